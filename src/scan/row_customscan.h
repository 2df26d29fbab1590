/*-------------------------------------------------------------------------
 *
 * row_customscan.h
 *	  What the vectorized aggregation needs of a RowcompressScan: its
 *	  batches as column batches, the rows passing its filter selected; for
 *	  a scan that reads no column and has no filter, batches without
 *	  columns, so that count(*) adds whole batches.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_ROW_CUSTOMSCAN_H
#define STORAGE_ENGINE_ROW_CUSTOMSCAN_H

#include "nodes/execnodes.h"
#include "nodes/plannodes.h"

#include "catalog/zone_map.h"
#include "vector/batch.h"

/* Is plan a RowcompressScan? */
extern bool row_scan_plan_is(Plan *plan);

/* Is plan a RowcompressScan that reads no column and has no filter? */
extern bool row_scan_plan_counts_rows(Plan *plan);

/*
 * A RowcompressScan in place of scan, a sequential scan (serial or
 * parallel) of a rowcompress table: the same rows, filter, target list and
 * costs, and no pruning.
 */
extern Plan *row_scan_plan_from_seqscan(Scan *scan);

/*
 * The columns (attribute numbers) row_scan_next_batch loads into its
 * batches; none unless set.  The target list of a scan is often the whole
 * row (PostgreSQL spares a projection that way), so it does not say.
 */
extern void row_scan_batch_columns(CustomScanState *node,
								   const Bitmapset *columns);

/*
 * The next batch of a RowcompressScan: its visible rows, the columns set
 * by row_scan_batch_columns loaded, the rows passing its filter selected
 * (a scan that reads no column and has no filter: all selected); NULL at
 * the end.  The batch lives until the next call.
 */
extern RowBatch *row_scan_next_batch(CustomScanState *node);

/* Row row of the batch row_scan_next_batch returned last, in the scan's slot. */
extern TupleTableSlot *row_scan_batch_row(CustomScanState *node, uint32 row);

/*
 * Does test hold for every batch a RowcompressScan reads?  Asked before
 * the scan starts.
 */
extern bool row_scan_zones_all(CustomScanState *node, ZoneTestFn test,
							   void *arg);

#endif							/* STORAGE_ENGINE_ROW_CUSTOMSCAN_H */
