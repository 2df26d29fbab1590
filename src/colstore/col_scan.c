/*-------------------------------------------------------------------------
 *
 * col_scan.c
 *	  Table-AM scans of colcompress relations: sequential (both
 *	  directions, for scrollable cursors), parallel (participants claim
 *	  whole stripes) and ANALYZE's row sample.  Rows are handed out one at
 *	  a time from the reader's current batch as virtual tuples.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/tableam.h"
#include "executor/tuptable.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "colstore/col_reader.h"
#include "colstore/col_scan.h"
#include "format/storage.h"
#include "format/tid_blocks.h"
#include "format/storage_am.h"

typedef struct ColScanDescData
{
	StorageScanDescData base;	/* first: shared with storage_am_rows.c */
	ColReader  *reader;			/* NULL until needed (scan_reader) */
	MemoryContext cxt;			/* where scan_reader makes it */
	/* ANALYZE: total chunk groups, and the range of the sampled block */
	int64		analyze_groups;
	int64		analyze_next_group;
	int64		analyze_end_group;
} ColScanDescData;

typedef ColScanDescData *ColScanDesc;

/*
 * The scan's reader, made when first needed: a bitmap scan, which fetches
 * rows by TID, never needs one, and making one lists every stripe.
 */
static ColReader *
scan_reader(TableScanDesc sscan)
{
	ColScanDesc scan = (ColScanDesc) sscan;

	if (scan->reader == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(scan->cxt);

		scan->reader = col_reader_begin(sscan->rs_rd, sscan->rs_snapshot, NULL,
										(ColParallelScanDescData *) sscan->rs_parallel);
		MemoryContextSwitchTo(old);
	}
	return scan->reader;
}

TableScanDesc
col_scan_begin(Relation rel, Snapshot snapshot, int nkeys,
			   struct ScanKeyData *key, ParallelTableScanDesc pscan,
			   uint32 flags)
{
	ColScanDesc scan = palloc0(sizeof(ColScanDescData));

	storage_am_scan_init(&scan->base.rs, rel, snapshot, nkeys, key, pscan, flags);
	scan->cxt = CurrentMemoryContext;
	return &scan->base.rs;
}

void
col_scan_end(TableScanDesc sscan)
{
	ColScanDesc scan = (ColScanDesc) sscan;

	if (scan->reader != NULL)
		col_reader_end(scan->reader);
	storage_scan_end_rows(sscan);
	if (scan->base.rs.rs_flags & SO_TEMP_SNAPSHOT)
		UnregisterSnapshot(scan->base.rs.rs_snapshot);
	pfree(scan);
}

void
col_scan_rescan(TableScanDesc sscan, struct ScanKeyData *key, bool set_params,
				bool allow_strat, bool allow_sync, bool allow_pagemode)
{
	ColScanDesc scan = (ColScanDesc) sscan;

	if (scan->reader != NULL)
		col_reader_reset(scan->reader, true);
	storage_scan_sample_restart(sscan);
}

bool
col_scan_getnextslot(TableScanDesc sscan, ScanDirection direction,
					 TupleTableSlot *slot)
{
	return col_reader_next_slot(scan_reader(sscan),
								!ScanDirectionIsBackward(direction), slot);
}

Size
col_parallelscan_estimate(Relation rel)
{
	return sizeof(ColParallelScanDescData);
}

Size
col_parallelscan_initialize(Relation rel, ParallelTableScanDesc pscan)
{
	ColParallelScanDescData *p = (ColParallelScanDescData *) pscan;

	p->base.phs_syncscan = false;
	pg_atomic_init_u64(&p->next_group, 0);
	tid_blocks_note_parallel_scan(rel);
	return sizeof(ColParallelScanDescData);
}

void
col_parallelscan_reinitialize(Relation rel, ParallelTableScanDesc pscan)
{
	ColParallelScanDescData *p = (ColParallelScanDescData *) pscan;

	pg_atomic_write_u64(&p->next_group, 0);
}

/*
 * ANALYZE: sampled block b stands for the chunk groups at the same
 * relative position (storage_am_analyze_units).
 */
static bool
load_analyze_group(ColScanDesc scan, int64 group)
{
	ColReader  *r = scan_reader(&scan->base.rs);
	int64		base = 0;
	int			si;

	for (si = 0; si < r->nstripes; si++)
	{
		StripeMeta *s = list_nth(r->stripes, si);

		if (group < base + s->chunk_group_count)
		{
			col_reader_load_group(r, si, (int) (group - base));
			r->have_batch = true;
			r->pos = -1;
			return true;
		}
		base += s->chunk_group_count;
	}
	return false;
}

bool
col_scan_analyze_next_block(TableScanDesc sscan, COMPAT_ANALYZE_BLOCK_ARGS)
{
	ColScanDesc scan = (ColScanDesc) sscan;
	ColReader  *r = scan_reader(sscan);
	BlockNumber block;
	BlockNumber nblocks = RelationGetNumberOfBlocks(sscan->rs_rd);

	if (!compat_analyze_block(&block))
		return false;
	if (scan->analyze_groups == 0)
	{
		ListCell   *lc;

		foreach(lc, r->stripes)
			scan->analyze_groups += ((StripeMeta *) lfirst(lc))->chunk_group_count;
	}
	r->have_batch = false;
	storage_am_analyze_units(block, nblocks, scan->analyze_groups,
							 &scan->analyze_next_group,
							 &scan->analyze_end_group);
	return true;
}

bool
col_scan_analyze_next_tuple(TableScanDesc sscan, TransactionId OldestXmin,
							double *liverows, double *deadrows,
							TupleTableSlot *slot)
{
	ColScanDesc scan = (ColScanDesc) sscan;
	ColReader  *r = scan_reader(sscan);

	while (!r->have_batch || r->pos + 1 >= (int64) r->batch.nrows)
	{
		if (scan->analyze_next_group >= scan->analyze_end_group ||
			!load_analyze_group(scan, scan->analyze_next_group++))
			return false;
	}
	r->pos++;
	col_reader_store_row(r, (uint32) r->pos, slot);
	*liverows += 1;
	return true;
}

uint64
col_count_rows(Relation rel, Snapshot snapshot)
{
	StorageMeta meta;
	List	   *stripes;
	ListCell   *lc;
	uint64		total = 0;

	if (!storage_read_meta(rel, &meta))
		return 0;
	stripes = stripe_meta_list(meta.storage_id, snapshot);
	foreach(lc, stripes)
		total += stripe_visible_rows(lfirst(lc), snapshot);
	return total;
}
