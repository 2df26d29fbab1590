/*-------------------------------------------------------------------------
 *
 * col_scan.h
 *	  Sequential, parallel and ANALYZE scans of colcompress relations
 *	  through the table access method interface.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COL_SCAN_H
#define STORAGE_ENGINE_COL_SCAN_H

#include "compat/compat.h"

#include "access/relscan.h"
#include "access/tableam.h"

extern TableScanDesc col_scan_begin(Relation rel, Snapshot snapshot,
									int nkeys, struct ScanKeyData *key,
									ParallelTableScanDesc pscan, uint32 flags);
extern void col_scan_end(TableScanDesc scan);
extern void col_scan_rescan(TableScanDesc scan, struct ScanKeyData *key,
							bool set_params, bool allow_strat,
							bool allow_sync, bool allow_pagemode);
extern bool col_scan_getnextslot(TableScanDesc scan, ScanDirection direction,
								 TupleTableSlot *slot);

extern Size col_parallelscan_estimate(Relation rel);
extern Size col_parallelscan_initialize(Relation rel, ParallelTableScanDesc pscan);
extern void col_parallelscan_reinitialize(Relation rel, ParallelTableScanDesc pscan);

extern bool col_scan_analyze_next_block(TableScanDesc scan, COMPAT_ANALYZE_BLOCK_ARGS);
extern bool col_scan_analyze_next_tuple(TableScanDesc scan, TransactionId OldestXmin,
										double *liverows, double *deadrows,
										TupleTableSlot *slot);

/* Visible rows of the relation under snapshot. */
extern uint64 col_count_rows(Relation rel, Snapshot snapshot);

#endif							/* STORAGE_ENGINE_COL_SCAN_H */
