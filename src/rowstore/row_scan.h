/*-------------------------------------------------------------------------
 *
 * row_scan.h
 *	  Sequential, parallel and ANALYZE scans of rowcompress relations
 *	  through the table access method interface.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_ROW_SCAN_H
#define STORAGE_ENGINE_ROW_SCAN_H

#include "compat/compat.h"

#include "access/relscan.h"
#include "access/tableam.h"

extern TableScanDesc row_scan_begin(Relation rel, Snapshot snapshot,
									int nkeys, struct ScanKeyData *key,
									ParallelTableScanDesc pscan, uint32 flags);
extern void row_scan_end(TableScanDesc scan);
extern void row_scan_rescan(TableScanDesc scan, struct ScanKeyData *key,
							bool set_params, bool allow_strat,
							bool allow_sync, bool allow_pagemode);
extern bool row_scan_getnextslot(TableScanDesc scan, ScanDirection direction,
								 TupleTableSlot *slot);

extern Size row_parallelscan_estimate(Relation rel);
extern Size row_parallelscan_initialize(Relation rel, ParallelTableScanDesc pscan);
extern void row_parallelscan_reinitialize(Relation rel, ParallelTableScanDesc pscan);

extern bool row_scan_analyze_next_block(TableScanDesc scan, COMPAT_ANALYZE_BLOCK_ARGS);
extern bool row_scan_analyze_next_tuple(TableScanDesc scan, TransactionId OldestXmin,
										double *liverows, double *deadrows,
										TupleTableSlot *slot);

/* Visible rows of the relation under snapshot. */
extern uint64 row_count_rows(Relation rel, Snapshot snapshot);

#endif							/* STORAGE_ENGINE_ROW_SCAN_H */
