/*-------------------------------------------------------------------------
 *
 * storage_vacuum.c
 *	  VACUUM of colcompress and rowcompress tables.
 *
 *	  Streams are written once and never changed, so VACUUM has no tuples
 *	  to prune; it has garbage of two kinds:
 *
 *	  - streams a rewrite retired (catalog/free_space.c) that no snapshot
 *	    can read any more: their blocks become free extents, which writers
 *	    reuse and which VACUUM truncates away when they end the relation;
 *	    their rows' index entries and marks go;
 *	  - rows whose delete or update committed before every snapshot: their
 *	    index entries go (the rows stay in their stream, skipped by scans
 *	    through their marks, until a rewrite leaves them out).
 *
 *	  Index entries are removed with the index AM's bulk delete, as heap's
 *	  VACUUM does, with row numbers for TIDs.  The data holds no
 *	  transaction ids (visibility lives in the metadata rows, which VACUUM
 *	  of those tables takes care of), so VACUUM can always advance
 *	  relfrozenxid to the oldest xmin still running.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/genam.h"
#include "access/multixact.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/storage.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/lmgr.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "catalog/free_space.h"
#include "catalog/row_marks.h"
#include "format/row_number.h"
#include "format/storage.h"
#include "format/storage_am.h"
#include "format/tid_blocks.h"
#include "guc.h"

/* At most this many compaction passes per VACUUM (each moves data). */
#define VACUUM_COMPACT_PASSES	3

/* Row numbers whose index entries go: sorted, disjoint [first, last]. */
typedef struct DeadRows
{
	uint64	   *first;
	uint64	   *last;
	int			n;
	int			max;
} DeadRows;

static void
dead_add(DeadRows *d, uint64 first, uint64 last)
{
	if (d->n == d->max)
	{
		d->max = d->max == 0 ? 64 : d->max * 2;
		d->first = d->first ? repalloc(d->first, sizeof(uint64) * d->max) :
			palloc(sizeof(uint64) * d->max);
		d->last = d->last ? repalloc(d->last, sizeof(uint64) * d->max) :
			palloc(sizeof(uint64) * d->max);
	}
	d->first[d->n] = first;
	d->last[d->n] = last;
	d->n++;
}

static int
cmp_range(const void *a, const void *b, void *arg)
{
	const uint64 *first = arg;
	uint64		x = first[*(const int *) a];
	uint64		y = first[*(const int *) b];

	return x < y ? -1 : x > y ? 1 : 0;
}

/* Sorts the ranges by first row (they are disjoint). */
static void
dead_sort(DeadRows *d)
{
	int		   *order = palloc(sizeof(int) * Max(d->n, 1));
	uint64	   *first = palloc(sizeof(uint64) * Max(d->n, 1));
	uint64	   *last = palloc(sizeof(uint64) * Max(d->n, 1));
	int			i;

	for (i = 0; i < d->n; i++)
		order[i] = i;
	qsort_arg(order, d->n, sizeof(int), cmp_range, d->first);
	for (i = 0; i < d->n; i++)
	{
		first[i] = d->first[order[i]];
		last[i] = d->last[order[i]];
	}
	d->first = first;
	d->last = last;
}

static bool
dead_tid(ItemPointer tid, void *arg)
{
	DeadRows   *d = arg;
	uint64		rownum = tid_to_row_number(tid);
	int			lo = 0;
	int			hi = d->n;

	/* the last range starting at or before rownum */
	while (hi - lo > 1)
	{
		int			mid = lo + (hi - lo) / 2;

		if (d->first[mid] <= rownum)
			lo = mid;
		else
			hi = mid;
	}
	return d->n > 0 && rownum >= d->first[lo] && rownum <= d->last[lo];
}

static void
delete_index_entries(Relation rel, DeadRows *dead, double tuples,
					 BufferAccessStrategy bstrategy)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;

	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), RowExclusiveLock);
		IndexVacuumInfo ivinfo;
		IndexBulkDeleteResult *stats;

		memset(&ivinfo, 0, sizeof(ivinfo));
		ivinfo.index = index;
		COMPAT_IVINFO_SET_HEAPREL(&ivinfo, rel);
		ivinfo.analyze_only = false;
		ivinfo.report_progress = false;
		ivinfo.estimated_count = true;
		ivinfo.message_level = DEBUG2;
		ivinfo.num_heap_tuples = tuples;
		ivinfo.strategy = bstrategy;
		stats = index_bulk_delete(&ivinfo, NULL, dead_tid, dead);
		stats = index_vacuum_cleanup(&ivinfo, stats);
		if (stats != NULL)
			pfree(stats);
		index_close(index, RowExclusiveLock);
	}
	list_free(indexes);
}

typedef struct BlockRange
{
	uint64		first;
	uint64		end;
} BlockRange;

static int
cmp_block_range(const void *a, const void *b)
{
	uint64		x = ((const BlockRange *) a)->first;
	uint64		y = ((const BlockRange *) b)->first;

	return x < y ? -1 : x > y ? 1 : 0;
}

/*
 * With no writer running, the blocks below next_block that no stream,
 * retired stream or free extent holds were written by transactions that
 * aborted (or crashed) before their stream's metadata committed: they are
 * free.
 */
static void
free_lost_blocks(const StorageAm *am, Relation rel, uint64 storage_id)
{
	StorageMeta meta;
	Snapshot	snapshot = RegisterSnapshot(GetLatestSnapshot());
	List	   *streams = am->list_streams(storage_id, snapshot);
	List	   *retired = free_space_retired(storage_id);
	uint64	   *first;
	uint64	   *count;
	int			nfree;
	BlockRange *held;
	int			n = 0;
	uint64		next = STORAGE_FIRST_DATA_BLOCK;
	ListCell   *lc;
	int			i;

	UnregisterSnapshot(snapshot);
	if (!storage_read_meta(rel, &meta))
		return;
	free_space_extents(storage_id, &first, &count, &nfree);
	held = palloc(sizeof(BlockRange) *
				  Max(list_length(streams) + list_length(retired) + nfree, 1));
	foreach(lc, streams)
	{
		StreamInfo *s = lfirst(lc);

		held[n].first = s->first_block;
		held[n++].end = s->first_block + storage_stream_blocks(s->data_length);
	}
	foreach(lc, retired)
	{
		RetiredStream *s = lfirst(lc);

		held[n].first = s->first_block;
		held[n++].end = s->first_block + s->block_count;
	}
	for (i = 0; i < nfree; i++)
	{
		held[n].first = first[i];
		held[n++].end = first[i] + count[i];
	}
	qsort(held, n, sizeof(BlockRange), cmp_block_range);
	for (i = 0; i <= n; i++)
	{
		uint64		until = i < n ? Min(held[i].first, meta.next_block) : meta.next_block;

		if (until > next)
			free_space_add(storage_id, next, until - next);
		if (i < n)
			next = Max(next, held[i].end);
	}
}

/*
 * When no one else uses the table just now (heap's VACUUM does the same):
 * frees blocks aborted writers left, and truncates the free blocks at the
 * end of the relation.
 */
static void
sweep_and_truncate(const StorageAm *am, Relation rel, uint64 storage_id)
{
	BlockNumber nblocks;
	uint64		tail;

	if (!ConditionalLockRelation(rel, AccessExclusiveLock))
		return;
	free_lost_blocks(am, rel, storage_id);
	nblocks = RelationGetNumberOfBlocks(rel);
	tail = free_space_free_tail(storage_id, nblocks);
	/* a BRIN index needs the blocks its TIDs have (format/tid_blocks.c) */
	if (tail < nblocks && storage_index_kinds(rel).brin)
		tail = Max(tail, tid_blocks_needed(rel));
	if (tail < nblocks && tail > STORAGE_METAPAGE_BLOCK)
		RelationTruncate(rel, (BlockNumber) tail);
	UnlockRelation(rel, AccessExclusiveLock);
}

void
storage_vacuum_reclaim(const StorageAm *am, Relation rel, double tuples,
					   BufferAccessStrategy bstrategy)
{
	TransactionId oldest_xmin = GetOldestNonRemovableTransactionId(rel);
	TransactionId horizon = InvalidTransactionId;
	List	   *indexes = RelationGetIndexList(rel);
	StorageMeta meta;
	DeadRows	dead = {0};
	List	   *reclaimed;
	ListCell   *lc;
	uint64	   *rows;
	int			nrows;
	int			i;

	if (!storage_read_meta(rel, &meta))
		return;
	reclaimed = free_space_reclaim(meta.storage_id, oldest_xmin);
	foreach(lc, reclaimed)
	{
		RetiredStream *s = lfirst(lc);

		if (!TransactionIdIsValid(horizon) ||
			TransactionIdFollows(s->retired_by, horizon))
			horizon = s->retired_by;
		for (i = 0; i < s->nruns; i++)
		{
			uint64		last = s->runs[i].first + s->runs[i].count - 1;

			CHECK_FOR_INTERRUPTS();
			dead_add(&dead, s->runs[i].first, last);
			row_mark_delete_range(meta.storage_id, s->runs[i].first, last);
		}
	}
	/* before this transaction commits the extents, hence before any reuse */
	storage_log_reuse_conflict(rel, horizon);
	/* rows of reclaimed streams had their marks removed just now */
	CommandCounterIncrement();
	rows = row_mark_dead_rows(meta.storage_id, oldest_xmin, &nrows);
	for (i = 0; i < nrows; i++)
		dead_add(&dead, rows[i], rows[i]);
	if (dead.n > 0 && indexes != NIL)
	{
		dead_sort(&dead);
		delete_index_entries(rel, &dead, tuples, bstrategy);
	}
	sweep_and_truncate(am, rel, meta.storage_id);
}

/*
 * Lazy VACUUM marks its transaction PROC_IN_VACUUM, and other sessions'
 * snapshots then leave its xid out (GetSnapshotData): a session reading the
 * metadata rows this VACUUM writes while it runs would take them for an
 * aborted transaction's, and its deletes for rolled back, and record that
 * in hint bits that outlive the commit, so that the new streams vanish and
 * the retired ones come back over freed blocks.  PostgreSQL's lazy VACUUM
 * writes no transactional row; ours rewrites streams as VACUUM FULL does,
 * which runs as an ordinary transaction.  So does ours, from here on, with
 * a snapshot taken now: the one VACUUM took while the flag was set did not
 * hold back other sessions' horizons.
 */
static void
vacuum_as_ordinary_transaction(void)
{
	LWLockAcquire(ProcArrayLock, LW_EXCLUSIVE);
	MyProc->statusFlags &= ~PROC_IN_VACUUM;
	ProcGlobal->statusFlags[MyProc->pgxactoff] = MyProc->statusFlags;
	LWLockRelease(ProcArrayLock);
	PushActiveSnapshot(GetLatestSnapshot());
}

/*
 * Rows snapshot sees, deleted ones left out, as heap's VACUUM counts the
 * live tuples it reports (reltuples, and the statistics autovacuum goes by).
 */
static double
live_rows(const StorageAm *am, Relation rel, Snapshot snapshot)
{
	StorageMeta meta;
	uint64		rows;
	uint64		deleted = 0;
	ListCell   *lc;
	MemoryContext cxt;
	MemoryContext old;

	if (!storage_read_meta(rel, &meta))
		return 0;

	/*
	 * The stream lists go with the context: VACUUM runs in its transaction's
	 * context, which kept them (30,000 one-row stripes: 30 MB).
	 */
	cxt = AllocSetContextCreate(CurrentMemoryContext, "storage_engine live rows",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	rows = am->count_rows(rel, snapshot);
	foreach(lc, am->list_streams(meta.storage_id, snapshot))
		deleted += storage_stream_deleted_rows(meta.storage_id, lfirst(lc),
											   snapshot);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return (double) (rows - Min(rows, deleted));
}

/*
 * Statistics, and relfrozenxid: the table stores no xid, so every xid
 * before the oldest a snapshot may still see running.  Once relfrozenxid
 * passes the table's last rewrite, readers take every snapshot to see the
 * rewrite (storage_rewrite.c), which a hot standby's need not, since the
 * primary's horizon does not wait for them: they would find the rewritten
 * table empty.  So they are canceled first, as for heap tuples VACUUM
 * removes.
 */
static void
advance_frozen_xid(Relation rel, double tuples, bool has_indexes)
{
	TransactionId frozen = GetOldestNonRemovableTransactionId(rel);
	StorageMeta meta;

	if (storage_read_meta(rel, &meta) &&
		TransactionIdIsNormal(meta.rewrite_xid) &&
		!TransactionIdPrecedes(meta.rewrite_xid, rel->rd_rel->relfrozenxid) &&
		TransactionIdPrecedes(meta.rewrite_xid, frozen))
		storage_log_reuse_conflict(rel, meta.rewrite_xid);
	compat_vac_update_relstats(rel, RelationGetNumberOfBlocks(rel), tuples, 0,
							   has_indexes, frozen, GetOldestMultiXactId());
}

void
storage_am_vacuum(Relation rel, struct VacuumParams *params,
				  BufferAccessStrategy bstrategy)
{
	const StorageAm *am = storage_am_for(rel);
	double		tuples;
	List	   *indexes = RelationGetIndexList(rel);

	vacuum_as_ordinary_transaction();

	/*
	 * What an earlier VACUUM or merge retired is freed first (no row moves),
	 * so that the rewrite below can use the space.  Then streams that are
	 * mostly deleted rows are written again and streams at the end move
	 * into free space before them, so that a later VACUUM frees the old
	 * ones and truncates the end: a table settles back to its size over a
	 * few VACUUMs (engine.colcompress_repack does it at once).
	 *
	 * Moving rows gives them new row numbers, and a statement that took its
	 * snapshot before the move committed would meet the old ones when it
	 * deletes, updates or locks them (a serialization failure).  Statements
	 * lock their tables before they take their snapshots, so moving needs
	 * the relation's ExclusiveLock and our rewrite lock, both taken only if
	 * no writer or row locker holds the table (VACUUM does not wait for
	 * them): the ones that come later wait for this VACUUM to commit (an
	 * autovacuum holding them up is canceled after deadlock_timeout, as for
	 * its truncation), and then see the new streams.  Readers are not held
	 * up.  When nothing moved, the locks go at once.
	 */
	tuples = live_rows(am, rel, GetActiveSnapshot());
	storage_vacuum_reclaim(am, rel, tuples, bstrategy);
	CommandCounterIncrement();
	if (ConditionalLockRelation(rel, ExclusiveLock))
	{
		int			moved = 0;

		if (storage_try_lock_for_rewrite(rel))
		{
			int			passes = 0;
			int			n;

			moved = storage_vacuum_rewrite_streams(am, rel,
												   storage_engine_vacuum_rewrite_threshold);

			/*
			 * A pass moves the end streams that fit, first fit, by their
			 * present size; their copies are encoded again and need not
			 * come out as large, so a stream left over may fit after it (an
			 * UPDATE's stream between the retired ones and the rewritten
			 * ones would otherwise take a VACUUM more).
			 */
			while ((n = storage_compact_streams(am, rel)) > 0)
			{
				moved += n;
				if (++passes >= VACUUM_COMPACT_PASSES)
					break;
			}
			if (moved == 0)
				storage_unlock_for_rewrite(rel);
		}
		if (moved == 0)
			UnlockRelation(rel, ExclusiveLock);
	}

	advance_frozen_xid(rel, tuples, indexes != NIL);
	compat_pgstat_report_vacuum(RelationGetRelid(rel), rel->rd_rel->relisshared,
								(PgStat_Counter) tuples, 0);
	PopActiveSnapshot();
}
