/*-------------------------------------------------------------------------
 *
 * row_customscan.h
 *	  What the vectorized aggregation needs of a RowcompressScan: a scan
 *	  that reads no column and has no filter hands its batches' row counts
 *	  over as batches without columns, so count(*) adds whole batches.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_ROW_CUSTOMSCAN_H
#define STORAGE_ENGINE_ROW_CUSTOMSCAN_H

#include "nodes/execnodes.h"
#include "nodes/plannodes.h"

#include "vector/batch.h"

/* Is plan a RowcompressScan that reads no column and has no filter? */
extern bool row_scan_plan_counts_rows(Plan *plan);

/*
 * The next batch of such a scan: its visible rows, no column loaded, all
 * selected; NULL at the end.  The batch lives until the next call.
 */
extern RowBatch *row_scan_next_batch(CustomScanState *node);

#endif							/* STORAGE_ENGINE_ROW_CUSTOMSCAN_H */
