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

#include "access/parallel.h"
#include "access/tableam.h"
#include "executor/tuptable.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "colstore/col_reader.h"
#include "colstore/col_scan.h"
#include "format/pending_writes.h"
#include "format/row_number.h"
#include "format/storage.h"
#include "format/storage_am.h"

typedef struct ColScanDescData
{
	TableScanDescData base;
	ColReader  *reader;
	int64		pos;			/* row of the batch last returned */
	bool		have_batch;
	/* ANALYZE: total chunk groups, and the last one handed out */
	int64		analyze_groups;
	int64		analyze_last_group;
} ColScanDescData;

typedef ColScanDescData *ColScanDesc;

TableScanDesc
col_scan_begin(Relation rel, Snapshot snapshot, int nkeys,
			   struct ScanKeyData *key, ParallelTableScanDesc pscan,
			   uint32 flags)
{
	ColScanDesc scan = palloc0(sizeof(ColScanDescData));

	/* this transaction's buffered rows must be in storage to be read */
	if (!IsParallelWorker())
		pending_flush_for_read(rel);

	scan->base.rs_rd = rel;
	scan->base.rs_snapshot = snapshot;
	scan->base.rs_nkeys = nkeys;
	scan->base.rs_key = key;
	scan->base.rs_flags = flags;
	scan->base.rs_parallel = pscan;
	scan->reader = col_reader_begin(rel, snapshot, NULL,
									(ColParallelScanDescData *) pscan);
	scan->analyze_last_group = -1;
	return &scan->base;
}

void
col_scan_end(TableScanDesc sscan)
{
	ColScanDesc scan = (ColScanDesc) sscan;

	col_reader_end(scan->reader);
	if (scan->base.rs_flags & SO_TEMP_SNAPSHOT)
		UnregisterSnapshot(scan->base.rs_snapshot);
	pfree(scan);
}

void
col_scan_rescan(TableScanDesc sscan, struct ScanKeyData *key, bool set_params,
				bool allow_strat, bool allow_sync, bool allow_pagemode)
{
	ColScanDesc scan = (ColScanDesc) sscan;

	col_reader_reset(scan->reader, true);
	scan->have_batch = false;
}

static void
store_row(ColReader *r, uint32 row, TupleTableSlot *slot)
{
	RowBatch   *b = &r->batch;
	int			natts = slot->tts_tupleDescriptor->natts;
	int			a;

	ExecClearTuple(slot);
	for (a = 0; a < natts; a++)
	{
		if (a < b->natts && b->cols[a].loaded)
		{
			slot->tts_values[a] = b->cols[a].values[row];
			slot->tts_isnull[a] = b->cols[a].isnull[row];
		}
		else
		{
			slot->tts_values[a] = (Datum) 0;
			slot->tts_isnull[a] = true;
		}
	}
	ExecStoreVirtualTuple(slot);
	row_number_to_tid(b->rownums[row], &slot->tts_tid);
	slot->tts_tableOid = RelationGetRelid(r->rel);
}

bool
col_scan_getnextslot(TableScanDesc sscan, ScanDirection direction,
					 TupleTableSlot *slot)
{
	ColScanDesc scan = (ColScanDesc) sscan;
	ColReader  *r = scan->reader;
	bool		forward = !ScanDirectionIsBackward(direction);

	if (r->desc != slot->tts_tupleDescriptor)
		col_reader_use_desc(r, slot->tts_tupleDescriptor);
	for (;;)
	{
		if (scan->have_batch)
		{
			int64		next = scan->pos + (forward ? 1 : -1);

			if (next >= 0 && next < (int64) r->batch.nrows)
			{
				scan->pos = next;
				store_row(r, (uint32) next, slot);
				return true;
			}
		}
		if (!col_reader_next_batch(r, forward))
		{
			/* stay past the end, so the opposite direction resumes */
			if (scan->have_batch)
				scan->pos = forward ? (int64) r->batch.nrows : -1;
			ExecClearTuple(slot);
			return false;
		}
		scan->have_batch = true;
		scan->pos = forward ? -1 : (int64) r->batch.nrows;
	}
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
	pg_atomic_init_u64(&p->next_stripe, 0);
	return sizeof(ColParallelScanDescData);
}

void
col_parallelscan_reinitialize(Relation rel, ParallelTableScanDesc pscan)
{
	ColParallelScanDescData *p = (ColParallelScanDescData *) pscan;

	pg_atomic_write_u64(&p->next_stripe, 0);
}

/* ANALYZE: each sampled block stands for one chunk group (storage_am.h). */
bool
col_scan_analyze_next_block(TableScanDesc sscan, COMPAT_ANALYZE_BLOCK_ARGS)
{
	ColScanDesc scan = (ColScanDesc) sscan;
	ColReader  *r = scan->reader;
	BlockNumber block;
	int64		group;
	int64		base = 0;
	int			si;

	if (!compat_analyze_block(&block))
		return false;
	if (scan->analyze_groups == 0)
	{
		ListCell   *lc;

		foreach(lc, r->stripes)
			scan->analyze_groups += ((StripeMeta *) lfirst(lc))->chunk_group_count;
	}
	scan->have_batch = false;
	group = storage_am_analyze_unit(block, RelationGetNumberOfBlocks(sscan->rs_rd),
									scan->analyze_groups,
									&scan->analyze_last_group);
	if (group < 0)
		return true;
	for (si = 0; si < r->nstripes; si++)
	{
		StripeMeta *s = list_nth(r->stripes, si);

		if (group < base + s->chunk_group_count)
		{
			col_reader_load_group(r, si, (int) (group - base));
			scan->have_batch = true;
			scan->pos = -1;
			break;
		}
		base += s->chunk_group_count;
	}
	return true;
}

bool
col_scan_analyze_next_tuple(TableScanDesc sscan, TransactionId OldestXmin,
							double *liverows, double *deadrows,
							TupleTableSlot *slot)
{
	ColScanDesc scan = (ColScanDesc) sscan;

	if (!scan->have_batch || scan->pos + 1 >= (int64) scan->reader->batch.nrows)
		return false;
	scan->pos++;
	store_row(scan->reader, (uint32) scan->pos, slot);
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
