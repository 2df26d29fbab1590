/*-------------------------------------------------------------------------
 *
 * col_customscan.h
 *	  The ColcompressScan custom scan: projection, zone-map pruning and
 *	  parallel execution for colcompress tables.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COL_CUSTOMSCAN_H
#define STORAGE_ENGINE_COL_CUSTOMSCAN_H

#include "nodes/execnodes.h"
#include "nodes/plannodes.h"

#include "catalog/zone_map.h"
#include "vector/batch.h"

extern void col_customscan_init(void);

/*
 * Parallel scans by our custom scans (scan_planner.c): the share of the
 * rows one participant handles (PostgreSQL's rule; and, for scan, our
 * custom scan of relation, no more participants than the chunk groups
 * or batches it reads), and the workers a scan of relation gets (0: none).
 */
extern double parallel_divisor(int parallel_workers);
extern double scan_divisor_for(Relation relation, int parallel_workers,
							   CustomScan *scan);
extern int	parallel_scan_workers_for(Relation relation);

/*
 * The cost of a worker's start that a parallel plan over a colcompress
 * table adds to parallel_setup_cost (scan_planner.c).
 */
extern double col_worker_start_cost(void);

/*
 * The output columns of a plan's target list as Vars of varno (OUTER_VAR,
 * INDEX_VAR), for a node placed above it (scan_planner.c).
 */
extern List *plan_output_vars(List *tlist, int varno);

/* Is plan a ColcompressScan? */
extern bool col_scan_plan_is(Plan *plan);

/*
 * The next chunk group of a ColcompressScan as a batch whose selection
 * vector holds the rows passing its filter; NULL at the end.
 */
extern RowBatch *col_scan_next_batch(CustomScanState *node);

/*
 * The consumer of the batches adds the numerics of these columns (1-based
 * attribute numbers) and reads them as scaled integers: packed decimals
 * stay so (col_reader_scaled_columns).
 */
extern void col_scan_scaled_columns(CustomScanState *node,
									const Bitmapset *columns);

/* Row row of the batch col_scan_next_batch returned last, in the scan's slot. */
extern TupleTableSlot *col_scan_batch_row(CustomScanState *node, uint32 row);

/*
 * Does test hold for every stripe a ColcompressScan reads?  Asked before
 * the scan starts.
 */
extern bool col_scan_zones_all(CustomScanState *node, ZoneTestFn test,
							   void *arg);

#endif							/* STORAGE_ENGINE_COL_CUSTOMSCAN_H */
