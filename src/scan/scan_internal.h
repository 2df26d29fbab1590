/*-------------------------------------------------------------------------
 *
 * scan_internal.h
 *	  Shared between the custom scans' planner and executor parts.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_SCAN_INTERNAL_H
#define STORAGE_ENGINE_SCAN_INTERNAL_H

#include "commands/explain.h"
#include "nodes/extensible.h"
#include "nodes/pathnodes.h"

#include "vector/batch.h"

#define COL_SCAN_NAME "ColcompressScan"
#define ROW_SCAN_NAME "RowcompressScan"

extern const CustomScanMethods col_scan_methods;
extern const CustomScanMethods row_scan_methods;

extern void col_scan_planner_init(void);
extern void col_scan_exec_init(void);
extern void row_scan_exec_init(void);

/*
 * Attribute numbers (1-based) the expressions over relation relid use:
 * every one for a whole-row reference, none for count(*).
 */
extern List *used_columns(List *exprs, Index relid, int natts);

/* EXPLAIN's list of the columns (attribute numbers) a node decodes */
extern void explain_columns(const char *label, List *attnums, TupleDesc desc,
							ExplainState *es);

/* filtered_rows.c: rows returned from filtered batches */
typedef struct FilteredRows
{
	RowBatch   *batch;			/* the batch being returned, or NULL */
	uint32		next;			/* its next selected row */
} FilteredRows;

/* a scan's next batch with only the rows passing its filter selected */
typedef RowBatch *(*FilteredBatchFn) (ScanState *ss);
/* stores the batch's row in slot */
typedef void (*StoreBatchRowFn) (ScanState *ss, uint32 row,
								 TupleTableSlot *slot);

/* The scan's next row passing its filter, projected; empty at the end. */
extern TupleTableSlot *filtered_rows_next(ScanState *ss, FilteredRows *rows,
										  FilteredBatchFn next_batch,
										  StoreBatchRowFn store_row);

/* next_batch's batch, counted by the node's instrumentation */
extern RowBatch *filtered_batch_counted(ScanState *ss,
										FilteredBatchFn next_batch);

/* fetch_columns.c */
extern Path *bitmap_columns_path(Path *path, Cost saved);
extern Path *index_columns_path(IndexPath *path, Cost saved);
extern void fetch_columns_init(void);

#endif							/* STORAGE_ENGINE_SCAN_INTERNAL_H */
