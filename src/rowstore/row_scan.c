/*-------------------------------------------------------------------------
 *
 * row_scan.c
 *	  Table-AM scans of rowcompress relations: sequential (both
 *	  directions, for scrollable cursors), parallel (participants claim
 *	  whole batches) and ANALYZE's row sample.  Rows are handed out one at
 *	  a time from the reader's current batch.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/tableam.h"
#include "executor/tuptable.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "format/storage.h"
#include "format/tid_blocks.h"
#include "format/storage_am.h"
#include "rowstore/row_reader.h"
#include "rowstore/row_scan.h"

typedef struct RowScanDescData
{
	StorageScanDescData base;	/* first: shared with storage_am_rows.c */
	RowReader  *reader;			/* NULL until needed (scan_reader) */
	MemoryContext cxt;			/* where scan_reader makes it */
	/* ANALYZE: the batch being sampled and its row last returned */
	bool		have_batch;
	int64		pos;
	/* ANALYZE: the batches the sampled block stands for, [next, end) */
	int64		analyze_next_batch;
	int64		analyze_end_batch;
} RowScanDescData;

typedef RowScanDescData *RowScanDesc;

/*
 * The scan's reader, made when first needed: a bitmap scan, which fetches
 * rows by TID, never needs one, and making one lists every batch.
 */
static RowReader *
scan_reader(TableScanDesc sscan)
{
	RowScanDesc scan = (RowScanDesc) sscan;

	if (scan->reader == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(scan->cxt);

		scan->reader = row_reader_begin(sscan->rs_rd, sscan->rs_snapshot,
										(RowParallelScanDescData *) sscan->rs_parallel);
		MemoryContextSwitchTo(old);
	}
	return scan->reader;
}

TableScanDesc
row_scan_begin(Relation rel, Snapshot snapshot, int nkeys,
			   struct ScanKeyData *key, ParallelTableScanDesc pscan,
			   uint32 flags)
{
	RowScanDesc scan = palloc0(sizeof(RowScanDescData));

	storage_am_scan_init(&scan->base.rs, rel, snapshot, nkeys, key, pscan, flags);
	scan->cxt = CurrentMemoryContext;
	return &scan->base.rs;
}

void
row_scan_end(TableScanDesc sscan)
{
	RowScanDesc scan = (RowScanDesc) sscan;

	if (scan->reader != NULL)
		row_reader_end(scan->reader);
	storage_scan_end_rows(sscan);
	if (scan->base.rs.rs_flags & SO_TEMP_SNAPSHOT)
		UnregisterSnapshot(scan->base.rs.rs_snapshot);
	pfree(scan);
}

void
row_scan_rescan(TableScanDesc sscan, struct ScanKeyData *key, bool set_params,
				bool allow_strat, bool allow_sync, bool allow_pagemode)
{
	RowScanDesc scan = (RowScanDesc) sscan;

	if (scan->reader != NULL)
		row_reader_reset(scan->reader);
	storage_scan_sample_restart(sscan);
}

bool
row_scan_getnextslot(TableScanDesc sscan, ScanDirection direction,
					 TupleTableSlot *slot)
{
	return row_reader_next_slot(scan_reader(sscan),
								!ScanDirectionIsBackward(direction), slot);
}

Size
row_parallelscan_estimate(Relation rel)
{
	return sizeof(RowParallelScanDescData);
}

Size
row_parallelscan_initialize(Relation rel, ParallelTableScanDesc pscan)
{
	RowParallelScanDescData *p = (RowParallelScanDescData *) pscan;

	p->base.phs_syncscan = false;
	pg_atomic_init_u64(&p->next_batch, 0);
	tid_blocks_note_parallel_scan(rel);
	return sizeof(RowParallelScanDescData);
}

void
row_parallelscan_reinitialize(Relation rel, ParallelTableScanDesc pscan)
{
	RowParallelScanDescData *p = (RowParallelScanDescData *) pscan;

	pg_atomic_write_u64(&p->next_batch, 0);
}

/*
 * ANALYZE: sampled block b stands for the batches at the same relative
 * position (storage_am_analyze_units), and every row of them is handed
 * over; ANALYZE keeps a random reservoir of them and sorts it back into
 * table order by the TIDs our slots' copies keep (storage_slots.c).
 */
bool
row_scan_analyze_next_block(TableScanDesc sscan, COMPAT_ANALYZE_BLOCK_ARGS)
{
	RowScanDesc scan = (RowScanDesc) sscan;
	BlockNumber block;

	if (!compat_analyze_block(&block))
		return false;
	scan->have_batch = false;
	storage_am_analyze_units(block, RelationGetNumberOfBlocks(sscan->rs_rd),
							 scan_reader(sscan)->nbatches,
							 &scan->analyze_next_batch,
							 &scan->analyze_end_batch);
	return true;
}

bool
row_scan_analyze_next_tuple(TableScanDesc sscan, TransactionId OldestXmin,
							double *liverows, double *deadrows,
							TupleTableSlot *slot)
{
	RowScanDesc scan = (RowScanDesc) sscan;
	RowReader  *r = scan_reader(sscan);

	while (!scan->have_batch || scan->pos + 1 >= (int64) r->nrows)
	{
		if (scan->analyze_next_batch >= scan->analyze_end_batch)
			return false;
		row_reader_load_batch(r, (int) scan->analyze_next_batch++);
		scan->have_batch = true;
		scan->pos = -1;
	}
	scan->pos++;
	*liverows += 1;
	row_reader_store_row(r, (uint32) scan->pos, slot);
	return true;
}

uint64
row_count_rows(Relation rel, Snapshot snapshot)
{
	StorageMeta meta;
	List	   *batches;
	ListCell   *lc;
	uint64		total = 0;

	if (!storage_read_meta(rel, &meta))
		return 0;
	batches = batch_meta_list(meta.storage_id, snapshot);
	foreach(lc, batches)
		total += batch_visible_rows(lfirst(lc), snapshot);
	return total;
}
