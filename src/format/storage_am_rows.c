/*-------------------------------------------------------------------------
 *
 * storage_am_rows.c
 *	  Rows by TID, for both access methods: index scans and builds, bitmap
 *	  and TABLESAMPLE scans, fetching a row version, row locks, DELETE and
 *	  UPDATE, and speculative inserts.
 *
 *	  A row's data comes from its access method's fetcher (StorageAm
 *	  fetch_*), which sees the streams a snapshot sees and keeps the unit
 *	  (chunk group, batch) it decoded last.  Whether the row was deleted,
 *	  and its locks, come from row marks (catalog/row_marks.c).  Fetchers
 *	  are cached per relation for the transaction, keyed by snapshot, so
 *	  that a trigger or foreign key check fetching rows one by one decodes
 *	  each unit once.  For an MVCC snapshot, deletes are read a range of
 *	  row numbers at a time for the same reason.
 *
 *	  Non-MVCC snapshots (dirty, self, any) ask about the latest state: a
 *	  fetcher for them lists what is committed or ours; when it does not
 *	  find a row it lists again once, since a stream may have committed
 *	  since.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/relscan.h"
#include "access/subtrans.h"
#include "access/sysattr.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "access/tsmapi.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class_d.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/tidbitmap.h"
#include "optimizer/optimizer.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "storage/procarray.h"
#include "pgstat.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/tuplesort.h"

#include "catalog/free_space.h"
#include "catalog/row_marks.h"
#include "catalog/row_reservations.h"
#include "catalog/stream_runs.h"
#include "format/pending_writes.h"
#include "format/row_number.h"
#include "format/storage.h"
#include "format/snapshots.h"
#include "format/storage_am.h"
#include "format/tid_blocks.h"

/* Deletes are read for this many consecutive row numbers at a time. */
#define DELETED_RANGE_ROWS	(64 * 1024)
/* ... and this many ranges are kept (rewrites scatter a key's rows). */
#define DELETED_RANGES		16

/*
 * The rows a snapshot sees deleted, read from the row marks a range of
 * DELETED_RANGE_ROWS row numbers at a time, for callers that ask row by
 * row; the last DELETED_RANGES ranges read are kept.  The first row asked
 * for is looked up alone (one probe of the marks' index): a statement
 * that fetches one row, as an UPDATE by primary key does, would otherwise
 * read every mark of its range, and a table taking single-row UPDATEs has
 * one for each (7,000 marks took an UPDATE from 0.3 to 2 ms).  Rows after
 * it read ranges: probing each range's first row too cost a lookup of 200
 * rows in 16 ranges 3%.
 */
typedef struct DeletedRange
{
	uint64		storage_id;
	Snapshot	snapshot;
	MemoryContext cxt;			/* holds rows */
	int			next;			/* slot the next range read replaces */
	uint64		range[DELETED_RANGES];	/* range number, or PG_UINT64_MAX */
	uint64	   *rows[DELETED_RANGES];
	int			nrows[DELETED_RANGES];
	bool		probed;			/* a row was looked up alone */
} DeletedRange;

static void
deleted_range_init(DeletedRange *d, uint64 storage_id, Snapshot snapshot,
				   MemoryContext cxt)
{
	int			i;

	d->storage_id = storage_id;
	d->snapshot = snapshot;
	d->cxt = cxt;
	d->next = 0;
	d->probed = false;
	for (i = 0; i < DELETED_RANGES; i++)
	{
		d->range[i] = PG_UINT64_MAX;
		d->rows[i] = NULL;
		d->nrows[i] = 0;
	}
}

static bool
deleted_range_has(DeletedRange *d, uint64 rownum)
{
	uint64		range = rownum / DELETED_RANGE_ROWS;
	MemoryContext old;
	int			i;

	for (i = 0; i < DELETED_RANGES; i++)
		if (d->range[i] == range)
			return row_number_in(d->rows[i], d->nrows[i], rownum);
	if (!d->probed)
	{
		d->probed = true;
		return !row_mark_visible(d->storage_id, rownum, d->snapshot);
	}

	i = d->next;
	d->next = (d->next + 1) % DELETED_RANGES;
	old = MemoryContextSwitchTo(d->cxt);
	if (d->rows[i] != NULL)
		pfree(d->rows[i]);
	d->rows[i] = row_mark_deleted_rows(d->storage_id,
									   range * DELETED_RANGE_ROWS,
									   (range + 1) * DELETED_RANGE_ROWS - 1,
									   d->snapshot, &d->nrows[i]);
	d->range[i] = range;
	MemoryContextSwitchTo(old);
	return row_number_in(d->rows[i], d->nrows[i], rownum);
}

/*
 * A cursor over a RowFetch's fetcher, made on first use in cxt.  A scan
 * has its own, so the rows it stores are not overwritten by other fetches
 * of the same relation (a self-join, a trigger) while it still uses them.
 */
typedef struct FetchCursor
{
	void	   *cursor;
	uint64		generation;		/* of the fetcher it is over */
	MemoryContext cxt;
	bool		projected;		/* false: every column is decoded */
	const Bitmapset *columns;	/* else these (fetch_cursor_columns) */
} FetchCursor;

/* Tells fetchers apart across rebuilds, so stale cursors are noticed. */
static uint64 fetcher_generation = 0;

/* An access method's fetcher, and the snapshot it was built for. */
typedef struct Fetcher
{
	void	   *fetcher;		/* NULL until built */
	uint64		generation;		/* fetcher_generation when built */
	Snapshot	snapshot;		/* our copy (MVCC) or SnapshotSelf */
	uint64		flush_count;	/* pending_flush_count when built */
	MemoryContext cxt;
	FetchCursor own;			/* for fetches of no scan (row versions) */
	DeletedRange deleted;		/* for the same snapshot (MVCC only) */
} Fetcher;

typedef struct RowFetch
{
	Oid			relid;
	RelFileNumber relnumber;
	TupleDesc	desc;			/* the relcache's, when this was built */
	const StorageAm *am;
	uint64		storage_id;		/* 0: the relation has no storage yet */
	MemoryContext cxt;

	/*
	 * One fetcher for MVCC snapshots and one for the latest state (dirty,
	 * self, any): a scan with the first locks and updates rows with the
	 * second, and one fetcher for both would be rebuilt at every row.
	 */
	Fetcher		mvcc;
	Fetcher		latest;

	/*
	 * Whether inserted rows leave their image for exclusion checks (-1: not
	 * known yet): see keeps_images().
	 */
	int			keeps_images;

	/* streams rewrites retired, read once we hold the DML lock */
	bool		have_retired;
	List	   *retired;		/* RetiredStream *, in cxt */

	TupleTableSlot *scratch;	/* for existence checks */

	/* changes_key's: the unique indexes' columns, decoded alone */
	bool		have_key_columns;
	Bitmapset  *key_columns;	/* attribute numbers; NULL: none */
	FetchCursor key_cursor;

	/* set aside by a relcache invalidation: never looked up again */
	bool		stale;
} RowFetch;

static bool keeps_images(Relation rel);

static MemoryContext fetch_cache_cxt = NULL;
static List *fetch_cache = NIL;

static void
forget_fetch_cache(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PARALLEL_COMMIT ||
		event == XACT_EVENT_PARALLEL_ABORT || event == XACT_EVENT_PREPARE)
	{
		/* the context was a child of TopTransactionContext: gone */
		fetch_cache_cxt = NULL;
		fetch_cache = NIL;
	}
}

/*
 * A relcache invalidation frees the relation's entry when nobody has it
 * open, and the fetchers of a RowFetch point to the entry they were built
 * with: a later statement that matched the RowFetch (a new entry whose
 * tuple descriptor was allocated where the old one was) fetched through a
 * freed relation, and crashed (the planner reading an index's extreme
 * values, after an autovacuum ANALYZE).  So the relation's RowFetches are
 * set aside; a scan still using one holds the relation open, which keeps
 * its entry, and the next lookup builds a new one.
 */
static void
invalidate_fetch_cache(Datum arg, Oid relid)
{
	ListCell   *lc;

	foreach(lc, fetch_cache)
	{
		RowFetch   *f = lfirst(lc);

		if (!OidIsValid(relid) || f->relid == relid)
			f->stale = true;
	}
}

void
storage_rows_init(void)
{
	RegisterXactCallback(forget_fetch_cache, NULL);
	CacheRegisterRelcacheCallback(invalidate_fetch_cache, (Datum) 0);
	row_reservations_init();
}

/*
 * Rows inserted into a table with a unique index or an exclusion
 * constraint get reservation rows: another session's check finds their
 * index entries before the rows are stored, and must know whom to wait
 * for.  So do rows of a table with a BRIN index: summarizing a range that
 * holds rows not yet stored waits for them (brin_range_rows).
 */
void
storage_rows_reserved(Relation rel, uint64 first, uint64 count)
{
	StorageMeta meta;
	StorageIndexKinds kinds = storage_index_kinds(rel);

	if ((kinds.unique || kinds.exclusion || kinds.brin) &&
		storage_read_meta(rel, &meta))
		row_reservation_record(meta.storage_id, first, count);
}

static uint64
storage_id_of(Relation rel)
{
	StorageMeta meta;

	return storage_read_meta(rel, &meta) ? meta.storage_id : 0;
}

/* The cached row access of rel for this transaction. */
static RowFetch *
row_fetch_for(Relation rel)
{
	ListCell   *lc;
	RowFetch   *f;
	MemoryContext old;

	foreach(lc, fetch_cache)
	{
		f = lfirst(lc);
		if (!f->stale && f->relid == RelationGetRelid(rel) &&
			f->relnumber == RelFileNumberOf(rel) &&
			f->desc == RelationGetDescr(rel))
		{
			if (f->storage_id == 0)
				f->storage_id = storage_id_of(rel);
			return f;
		}
	}
	if (fetch_cache_cxt == NULL)
		fetch_cache_cxt = AllocSetContextCreate(TopTransactionContext,
												"storage_engine row fetches",
												ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(fetch_cache_cxt);
	f = palloc0(sizeof(RowFetch));
	f->relid = RelationGetRelid(rel);
	f->relnumber = RelFileNumberOf(rel);
	f->desc = RelationGetDescr(rel);
	f->am = storage_am_for(rel);
	f->storage_id = storage_id_of(rel);
	f->keeps_images = -1;
	f->cxt = AllocSetContextCreate(fetch_cache_cxt, "row fetch",
								   ALLOCSET_SMALL_SIZES);
	/* a copy of the descriptor: the relcache's would be pinned by the slot */
	f->scratch = MakeSingleTupleTableSlot(CreateTupleDescCopy(RelationGetDescr(rel)),
										  table_slot_callbacks(rel));
	/* palloc0 made key_cursor an empty cursor; it lives in f's context */
	f->key_cursor.cxt = f->cxt;
	fetch_cache = lappend(fetch_cache, f);
	MemoryContextSwitchTo(old);
	return f;
}

static bool
snapshot_matches(Fetcher *fr, Snapshot snapshot)
{
	Snapshot	mine = fr->snapshot;

	if (fr->fetcher == NULL || fr->flush_count != pending_flush_count)
		return false;
	if (!IsMVCCSnapshot(snapshot))
		return true;
	/* copies of a snapshot lose its identity: compare the contents */
	return snapshot == mine || snapshot_same_view(mine, snapshot);
}

static void
rebuild_fetcher(RowFetch *f, Fetcher *fr, Relation rel, Snapshot snapshot)
{
	MemoryContext old;

	if (fr->fetcher != NULL)
		f->am->fetch_end(fr->fetcher);
	fr->fetcher = NULL;
	if (fr->cxt != NULL)
		MemoryContextReset(fr->cxt);
	else
		fr->cxt = AllocSetContextCreate(f->cxt, "row fetcher",
										ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(fr->cxt);
	if (IsMVCCSnapshot(snapshot))
		fr->snapshot = snapshot_copy_deep(snapshot, fr->cxt);
	else
		fr->snapshot = SnapshotSelf;
	deleted_range_init(&fr->deleted, f->storage_id, fr->snapshot, fr->cxt);
	fr->flush_count = pending_flush_count;
	fr->fetcher = f->am->fetch_begin(rel, fr->snapshot);
	fr->generation = ++fetcher_generation;
	/* the old one went with the context */
	fr->own.cursor = NULL;
	fr->own.cxt = fr->cxt;
	MemoryContextSwitchTo(old);
}

/* The fetcher of f for snapshot, built for it. */
static Fetcher *
fetcher_for(RowFetch *f, Relation rel, Snapshot snapshot)
{
	Fetcher    *fr = IsMVCCSnapshot(snapshot) ? &f->mvcc : &f->latest;

	if (!snapshot_matches(fr, snapshot))
		rebuild_fetcher(f, fr, rel, snapshot);
	return fr;
}

/* cur's cursor over fr's current fetcher. */
static void *
cursor_for(RowFetch *f, Fetcher *fr, FetchCursor *cur)
{
	MemoryContext old;

	if (cur->cursor != NULL && cur->generation == fr->generation)
		return cur->cursor;
	if (cur->cursor != NULL)
		f->am->fetch_cursor_end(cur->cursor);
	old = MemoryContextSwitchTo(cur->cxt);
	cur->cursor = f->am->fetch_cursor(fr->fetcher);
	MemoryContextSwitchTo(old);
	cur->generation = fr->generation;
	if (cur->projected && f->am->fetch_cursor_columns != NULL)
		f->am->fetch_cursor_columns(cur->cursor, cur->columns);
	return cur->cursor;
}

static void
cursor_init(FetchCursor *cur)
{
	cur->cursor = NULL;
	cur->generation = 0;
	cur->cxt = CurrentMemoryContext;
	cur->projected = false;
	cur->columns = NULL;
}

/* The columns the cursor's fetches decode from now on (NULL: none). */
static void
cursor_set_columns(Relation rel, FetchCursor *cur, const Bitmapset *columns)
{
	const StorageAm *am = storage_am_for(rel);

	if (cur->projected && cur->columns == columns)
		return;
	cur->projected = true;
	cur->columns = columns;
	if (cur->cursor != NULL && am->fetch_cursor_columns != NULL)
		am->fetch_cursor_columns(cur->cursor, columns);
}

static void
cursor_end(Relation rel, FetchCursor *cur)
{
	if (cur->cursor != NULL)
		storage_am_for(rel)->fetch_cursor_end(cur->cursor);
	cur->cursor = NULL;
}

/*
 * Stores row rownum of a transaction still in progress in slot, copied,
 * when it left its image (tables with an exclusion constraint) or its
 * stream is written.  A rare path (a constraint check meeting a
 * concurrent insert), so its fetcher lives for this one row: the streams
 * it lists, read with a dirty snapshot, include uncommitted ones.
 */
static bool
fetch_in_progress(Relation rel, RowFetch *f, uint64 rownum,
				  TupleTableSlot *slot)
{
	SnapshotData dirty;
	MemoryContext cxt;
	MemoryContext old;
	void	   *fetcher;
	bool		found;

	if (keeps_images(rel) && pending_row_fetch(f->storage_id, rownum, slot))
		return true;
	cxt = AllocSetContextCreate(CurrentMemoryContext, "in-progress row fetch",
								ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	InitDirtySnapshot(dirty);
	fetcher = f->am->fetch_begin(rel, &dirty);
	found = f->am->fetch(f->am->fetch_cursor(fetcher), rownum, slot, NULL);
	MemoryContextSwitchTo(old);
	if (found)
		ExecMaterializeSlot(slot);
	f->am->fetch_end(fetcher);
	MemoryContextDelete(cxt);
	return found;
}

/*
 * Stores the image of row rownum, which this transaction still buffers, in
 * slot, if rel keeps images; false otherwise.
 */
static bool
own_image(Relation rel, uint64 rownum, TupleTableSlot *slot)
{
	RowFetch   *f;

	if (!keeps_images(rel) || !pending_holds_row(rel, rownum))
		return false;
	f = row_fetch_for(rel);
	if (f->storage_id == 0 || !pending_row_fetch(f->storage_id, rownum, slot))
		return false;
	row_number_to_tid(rownum, &slot->tts_tid);
	slot->tts_tableOid = RelationGetRelid(rel);
	return true;
}

/*
 * ON CONFLICT: the row is inserted as any other; if the insert lost a race
 * on a unique index, the row is killed (ROW_MARK_KILLED), seen by no one
 * from then on.  Until that is decided, the inserter holds the speculative
 * insertion lock of its top-level transaction under SPECULATIVE_TOKEN (not
 * the executor's token, which others cannot learn from our rows): a unique
 * check meeting the row waits on that lock, as for heap's speculative
 * tuples, rather than on the whole transaction, which would deadlock two
 * sessions upserting one key (each waiting for the other's transaction
 * over rows both go on to kill).
 */
#define SPECULATIVE_TOKEN	PG_UINT32_MAX

static void
speculative_tag(LOCKTAG *tag, TransactionId top_xid)
{
	SET_LOCKTAG_SPECULATIVE_INSERTION(*tag, top_xid, SPECULATIVE_TOKEN);
}

/*
 * Whether row rownum is held by another transaction still in progress,
 * which a unique or exclusion check must then wait for, as for a heap
 * tuple being inserted: if so, says whom in the dirty snapshot and leaves
 * the row's values in slot when it left its image (always, with an
 * exclusion constraint: keeps_images) or its stream is written, otherwise
 * NULLs (a unique check only needs to know whom to wait for).
 */
static bool
in_progress_row(Relation rel, RowFetch *f, uint64 rownum, Snapshot snapshot,
				TupleTableSlot *slot)
{
	TransactionId owner = row_reservation_owner(f->storage_id, rownum,
												rownum + 1);
	TransactionId top;
	LOCKTAG		tag;
	bool		deciding;

	if (!TransactionIdIsValid(owner))
		return false;

	/*
	 * Its owner deciding a speculative insertion (maybe of this row): the
	 * check waits for that, then looks again.  Otherwise whether the row
	 * was taken back is asked after the lock was found free: the owner
	 * kills a row before it lets the lock go, so the answer is final.  Asked
	 * before, a row killed in between looked like one its owner kept, and
	 * the check waited for the owner's whole transaction: two sessions
	 * upserting one key could each wait for the other's.
	 */
	top = SubTransGetTopmostTransaction(owner);
	speculative_tag(&tag, top);
	deciding = LockAcquire(&tag, ShareLock, false, true) == LOCKACQUIRE_NOT_AVAIL;
	if (!deciding)
	{
		SnapshotData killed_check;

		LockRelease(&tag, ShareLock, false);
		/* a row its own speculative insertion took back is no one's */
		InitDirtySnapshot(killed_check);
		if (!row_mark_visible(f->storage_id, rownum, &killed_check))
			return false;
	}

	if (!fetch_in_progress(rel, f, rownum, slot))
		ExecStoreAllNullTuple(slot);
	row_number_to_tid(rownum, &slot->tts_tid);
	snapshot->xmin = deciding ? top : owner;
	snapshot->xmax = InvalidTransactionId;
	snapshot->speculativeToken = deciding ? SPECULATIVE_TOKEN : 0;
	return true;
}

/*
 * Stores row rownum in slot when snapshot sees it (its stream, and no
 * delete); with check_marks false, only whether its stream holds it.  A
 * scan passes its cursor; without one, the row is copied into the slot,
 * since the relation's own cursor serves every other fetch.  So is a row
 * fetched with a snapshot that is not MVCC, by a constraint check: a
 * deferred unique or exclusion check (unique_key_recheck) ends its index
 * fetch and then reads the slot, which a heap slot's buffer pin keeps
 * valid, where ours pointed into the ended cursor's freed frames.
 */
static bool
fetch_row(Relation rel, uint64 rownum, Snapshot snapshot,
		  TupleTableSlot *slot, bool check_marks, FetchCursor *cur)
{
	RowFetch   *f;
	Fetcher    *fr;
	bool		found;
	MemoryContext old;

	/* a check meeting a row we buffer reads its image: the buffer stays */
	if (snapshot->snapshot_type == SNAPSHOT_DIRTY &&
		own_image(rel, rownum, slot))
	{
		snapshot->xmin = snapshot->xmax = InvalidTransactionId;
		snapshot->speculativeToken = 0;
		return !check_marks ||
			row_mark_visible(row_fetch_for(rel)->storage_id, rownum, snapshot);
	}
	/* our own buffered row must be written to be found */
	pending_flush_row(rel, rownum);
	f = row_fetch_for(rel);
	if (f->storage_id == 0)
		return false;
	fr = fetcher_for(f, rel, snapshot);
	if (cur == NULL)
		cur = &fr->own;
	old = MemoryContextSwitchTo(fr->cxt);
	found = f->am->fetch(cursor_for(f, fr, cur), rownum, slot, NULL);
	if (!found && !IsMVCCSnapshot(snapshot))
	{
		/*
		 * Not in the streams the fetcher listed.  A dirty snapshot first
		 * asks whether a transaction in progress holds the row, and only
		 * then are the streams listed again: a writer's commit makes its
		 * stream visible and its reservation gone at one instant, so in the
		 * other order a writer committing in between went unseen, and a
		 * unique check let a duplicate in.
		 */
		MemoryContextSwitchTo(old);
		if (snapshot->snapshot_type == SNAPSHOT_DIRTY &&
			in_progress_row(rel, f, rownum, snapshot, slot))
			return true;
		rebuild_fetcher(f, fr, rel, snapshot);
		old = MemoryContextSwitchTo(fr->cxt);
		found = f->am->fetch(cursor_for(f, fr, cur), rownum, slot, NULL);
	}
	MemoryContextSwitchTo(old);
	if (found && (cur == &fr->own || !IsMVCCSnapshot(snapshot)))
		ExecMaterializeSlot(slot);
	if (!found || !check_marks)
		return found;
	if (IsMVCCSnapshot(snapshot))
		return !deleted_range_has(&fr->deleted, rownum);
	return row_mark_visible(f->storage_id, rownum, snapshot);
}

/*
 * Is row rownum this transaction's, inserted by a command snapshot may not
 * see (the command running, for an INSERT ... ON CONFLICT meeting a row it
 * inserted itself)?
 */
static bool
inserted_by_later_command(Relation rel, uint64 rownum, Snapshot snapshot)
{
	RowFetch   *f = row_fetch_for(rel);
	Fetcher    *fr;
	bool		later_own = false;
	MemoryContext old;

	if (!IsMVCCSnapshot(snapshot))
		return false;
	pending_flush_row(rel, rownum);
	if (f->storage_id == 0)
		f->storage_id = storage_id_of(rel);
	if (f->storage_id == 0)
		return false;
	fr = fetcher_for(f, rel, snapshot);
	old = MemoryContextSwitchTo(fr->cxt);
	if (f->am->fetch(cursor_for(f, fr, &fr->own), rownum, NULL, &later_own))
		later_own = false;
	MemoryContextSwitchTo(old);
	return later_own;
}

uint64 *
storage_deleted_rows(uint64 storage_id, uint64 first, uint64 last,
					 Snapshot snapshot, int *n)
{
	*n = 0;
	if (snapshot == NULL || !IsMVCCSnapshot(snapshot))
		return NULL;
	return row_mark_deleted_rows(storage_id, first, last, snapshot, n);
}

/* ---- index scans ---- */

typedef struct StorageIndexFetch
{
	IndexFetchTableData base;
	FetchCursor cursor;
} StorageIndexFetch;

IndexFetchTableData *
storage_index_fetch_begin(Relation rel)
{
	StorageIndexFetch *scan = palloc0(sizeof(StorageIndexFetch));

	scan->base.rel = rel;
	cursor_init(&scan->cursor);
	return &scan->base;
}

void
storage_index_fetch_reset(IndexFetchTableData *scan)
{
}

void
storage_index_fetch_columns(IndexFetchTableData *scan, const Bitmapset *columns)
{
	StorageIndexFetch *s = (StorageIndexFetch *) scan;
	MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(s));

	cursor_set_columns(scan->rel, &s->cursor, bms_copy(columns));
	MemoryContextSwitchTo(old);
}

void
storage_index_fetch_end(IndexFetchTableData *scan)
{
	cursor_end(scan->rel, &((StorageIndexFetch *) scan)->cursor);
	pfree(scan);
}

/* Is row rownum dead to every snapshot (row_mark_dead_to_all)? */
static bool
dead_to_all(Relation rel, uint64 rownum)
{
	uint64		storage_id = row_fetch_for(rel)->storage_id;

	return storage_id != 0 &&
		row_mark_dead_to_all(storage_id, rownum, GlobalVisTestFor(rel));
}

bool
storage_index_fetch_tuple(IndexFetchTableData *scan, ItemPointer tid,
						  Snapshot snapshot, TupleTableSlot *slot,
						  bool *call_again, bool *all_dead)
{
	bool		found;

	*call_again = false;
	if (all_dead)
		*all_dead = false;
	found = fetch_row(scan->rel, tid_to_row_number(tid), snapshot, slot, true,
					  &((StorageIndexFetch *) scan)->cursor);
	if (!found)
	{
		ExecClearTuple(slot);
		if (all_dead != NULL)
			*all_dead = dead_to_all(scan->rel, tid_to_row_number(tid));
	}
	return found;
}

/* ---- single rows by TID ---- */

static void refuse_retired_row(Relation rel, uint64 rownum);

bool
storage_tuple_fetch_row_version(Relation rel, ItemPointer tid,
								Snapshot snapshot, TupleTableSlot *slot)
{
	uint64		rownum = tid_to_row_number(tid);

	if (fetch_row(rel, rownum, snapshot, slot, true, NULL))
		return true;

	/*
	 * UPDATE and DELETE fetch the row their scan found as it is now
	 * (SnapshotAny) before they change it.  A repack that moved it since
	 * the scan's snapshot retired its stream: that is the concurrent
	 * rewrite refuse_retired_row reports, not a row gone missing ("failed
	 * to fetch tuple being updated").
	 */
	if (snapshot->snapshot_type == SNAPSHOT_ANY)
	{
		storage_lock_for_dml(rel);
		refuse_retired_row(rel, rownum);
	}
	return false;
}

bool
storage_row_writer(Relation rel, ItemPointer tid, TransactionId *writer)
{
	uint64		rownum = tid_to_row_number(tid);
	uint64		storage_id = row_fetch_for(rel)->storage_id;
	uint64		stream_num;

	if (pending_holds_row(rel, rownum))
	{
		*writer = GetTopTransactionId();
		return true;
	}
	/* the row was just read: its stream is committed, or ours */
	return storage_id != 0 &&
		stream_runs_find(storage_id, rownum, SnapshotSelf, &stream_num,
						 writer);
}

bool
storage_tuple_tid_valid(TableScanDesc scan, ItemPointer tid)
{
	StorageMeta meta;
	uint64		rownum = tid_to_row_number(tid);

	return ItemPointerIsValid(tid) && storage_read_meta(scan->rs_rd, &meta) &&
		rownum >= STORAGE_FIRST_ROW_NUMBER && rownum < meta.next_row_number;
}

void
storage_tuple_get_latest_tid(TableScanDesc scan, ItemPointer tid)
{
	uint64		storage_id = storage_id_of(scan->rs_rd);
	uint64		rownum = tid_to_row_number(tid);
	uint64		successor;

	if (storage_id == 0)
		return;
	while (row_mark_successor(storage_id, rownum, scan->rs_snapshot, &successor))
	{
		CHECK_FOR_INTERRUPTS();
		rownum = successor;
	}
	row_number_to_tid(rownum, tid);
}

bool
storage_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
								 Snapshot snapshot)
{
	RowFetch   *f = row_fetch_for(rel);

	return fetch_row(rel, tid_to_row_number(&slot->tts_tid), snapshot,
					 f->scratch, true, NULL);
}

/*
 * Index page cleanup, which btree runs with the index page locked.  heap's
 * implementation reads only table pages here; reading our metadata tables
 * would take locks and process invalidations under that page lock.  So
 * nothing is looked up: entries index scans marked dead (knowndeletable:
 * their rows were dead to every snapshot then) are deletable, the others
 * wait for VACUUM (bottom-up deletion frees nothing).  The recovery
 * conflict horizon: every marked row's deleter committed before the oldest
 * transaction a snapshot may still see as running.
 */
TransactionId
storage_index_delete_tuples(Relation rel, TM_IndexDeleteOp *delstate)
{
	TransactionId horizon;
	int			i;

	for (i = 0; i < delstate->ndeltids; i++)
		if (delstate->status[delstate->deltids[i].id].knowndeletable)
			break;
	if (i == delstate->ndeltids)
		return InvalidTransactionId;
	horizon = GetOldestNonRemovableTransactionId(rel);
	TransactionIdRetreat(horizon);
	return horizon;
}

/* ---- inserts ---- */

/*
 * Do rows inserted into rel leave their image (engine.pending_row)?  A
 * unique check needs only to know that another session's row exists and
 * whom to wait for, which the reservation row tells; an exclusion
 * constraint's check compares the row's values (a lossy index rechecks
 * them), which the image gives another session before our buffer is
 * written, and our own checks without writing it.  A row whose image
 * would be too long is written at once instead, as its own stripe or
 * batch.  Known once per transaction: a constraint added by another
 * transaction since cannot meet our rows before we commit (ALTER TABLE
 * waits for us), and our rows are all written by then.
 */
static bool
keeps_images(Relation rel)
{
	RowFetch   *f = row_fetch_for(rel);

	if (f->keeps_images < 0)
		f->keeps_images = storage_index_kinds(rel).exclusion ? 1 : 0;
	return f->keeps_images == 1;
}

/* Leaves the image of the row just inserted from slot, or writes it. */
static void
leave_image(Relation rel, TupleTableSlot *slot)
{
	uint64		rownum = tid_to_row_number(&slot->tts_tid);
	uint64		storage_id = row_fetch_for(rel)->storage_id;

	if (storage_id == 0 || !pending_row_record(storage_id, rownum, slot))
		pending_flush_row(rel, rownum);
}

void
storage_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid,
					 int options, struct BulkInsertStateData *bistate)
{
	const StorageAm *am = storage_am_for(rel);

	storage_am_refuse_if_published(am, rel);
	CheckForSerializableConflictIn(rel, NULL, 0);
	pending_keep_within_budget();
	am->insert(pending_writer(rel, am->writer_ops), rel, slot, cid);
	/* counted as heap counts: autovacuum and autoanalyze go by these */
	pgstat_count_heap_insert(rel, 1);
	if (keeps_images(rel))
		leave_image(rel, slot);
}

void
storage_multi_insert(Relation rel, TupleTableSlot **slots, int nslots,
					 CommandId cid, int options,
					 struct BulkInsertStateData *bistate)
{
	const StorageAm *am = storage_am_for(rel);
	void	   *writer;
	bool		images = keeps_images(rel);
	int			i;

	storage_am_refuse_if_published(am, rel);
	CheckForSerializableConflictIn(rel, NULL, 0);
	pending_keep_within_budget();
	writer = pending_writer(rel, am->writer_ops);
	for (i = 0; i < nslots; i++)
	{
		am->insert(writer, rel, slots[i], cid);
		if (images)
			leave_image(rel, slots[i]);
	}
	pgstat_count_heap_insert(rel, nslots);
}

/* ON CONFLICT (see SPECULATIVE_TOKEN) */
void
storage_tuple_insert_speculative(Relation rel, TupleTableSlot *slot,
								 CommandId cid, int options,
								 struct BulkInsertStateData *bistate,
								 uint32 specToken)
{
	LOCKTAG		tag;

	speculative_tag(&tag, GetTopTransactionId());
	(void) LockAcquire(&tag, ExclusiveLock, false, false);
	storage_tuple_insert(rel, slot, cid, options, bistate);
}

void
storage_tuple_complete_speculative(Relation rel, TupleTableSlot *slot,
								   uint32 specToken, bool succeeded)
{
	TM_FailureData tmfd;
	TM_Result	result;
	LOCKTAG		tag;

	speculative_tag(&tag, GetTopTransactionId());
	if (succeeded)
	{
		LockRelease(&tag, ExclusiveLock, false);
		return;
	}
	result = row_mark_retire(rel, storage_id_of(rel),
							 tid_to_row_number(&slot->tts_tid),
							 ROW_MARK_KILLED, GetCurrentCommandId(true),
							 InvalidSnapshot, true, LockTupleExclusive, &tmfd);
	if (result != TM_Ok)
		elog(ERROR, "could not remove speculatively inserted row: %d", result);
	LockRelease(&tag, ExclusiveLock, false);
}

/* ---- row locks, DELETE, UPDATE ---- */

/* A lock tag of our own per relation, apart from its relation lock. */
#define DML_LOCK_SUBID	0x5345

void
storage_lock_for_dml(Relation rel)
{
	LockDatabaseObject(RelationRelationId, RelationGetRelid(rel),
					   DML_LOCK_SUBID, RowShareLock);
}

void
storage_lock_for_rewrite(Relation rel)
{
	LockDatabaseObject(RelationRelationId, RelationGetRelid(rel),
					   DML_LOCK_SUBID, ExclusiveLock);
}

/*
 * A statement whose snapshot predates a rewrite (colcompress_merge) may
 * reach a row the rewrite moved: changing or locking the old copy would
 * lose the change.  Rewrites wait for DML locks and DML waits for
 * rewrites, so once we hold the DML lock the retired streams stay as they
 * are for the rest of the transaction: read them once.
 */
static void
refuse_retired_row(Relation rel, uint64 rownum)
{
	RowFetch   *f = row_fetch_for(rel);
	ListCell   *lc;

	if (!f->have_retired)
	{
		MemoryContext old = MemoryContextSwitchTo(f->cxt);

		f->retired = free_space_retired(f->storage_id);
		f->have_retired = true;
		MemoryContextSwitchTo(old);
	}
	foreach(lc, f->retired)
	{
		RetiredStream *s = lfirst(lc);
		uint64		pos;

		if (rownum >= s->first_row_number && rownum <= s->last_row_number &&
			row_runs_find(s->runs, s->nruns, rownum, &pos))
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("could not serialize access due to a concurrent rewrite of table \"%s\"",
							RelationGetRelationName(rel)),
					 errdetail("The row was moved by a rewrite of the table (engine.colcompress_merge, a repack or VACUUM) after this transaction's snapshot was taken."),
					 errhint("Retry the transaction.")));
	}
}

bool
storage_try_lock_for_rewrite(Relation rel)
{
	return ConditionalLockDatabaseObject(RelationRelationId, RelationGetRelid(rel),
										 DML_LOCK_SUBID, ExclusiveLock);
}

void
storage_unlock_for_rewrite(Relation rel)
{
	UnlockDatabaseObject(RelationRelationId, RelationGetRelid(rel),
						 DML_LOCK_SUBID, ExclusiveLock);
}

static void
require_storage(Relation rel, uint64 storage_id)
{
	if (storage_id == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("table \"%s\" has no storage for the row to change",
						RelationGetRelationName(rel))));
}

TM_Result
storage_tuple_delete(Relation rel, ItemPointer tid, CommandId cid,
					 Snapshot snapshot, Snapshot crosscheck, bool wait,
					 TM_FailureData *tmfd, bool changingPart)
{
	uint64		storage_id = storage_id_of(rel);
	TM_Result	result;

	storage_am_refuse_if_published(storage_am_for(rel), rel);
	require_storage(rel, storage_id);
	storage_lock_for_dml(rel);
	refuse_retired_row(rel, tid_to_row_number(tid));
	CheckForSerializableConflictIn(rel, tid, ItemPointerGetBlockNumber(tid));
	result = row_mark_retire(rel, storage_id, tid_to_row_number(tid),
							 changingPart ? ROW_MARK_MOVED : ROW_MARK_DELETED,
							 cid, crosscheck, wait, LockTupleExclusive, tmfd);
	if (result == TM_Ok)
		pgstat_count_heap_delete(rel);
	return result;
}

/*
 * Does the update change a column of a unique index (a key column)?  The
 * old row is fetched with those columns only.
 */
static bool
changes_key(Relation rel, ItemPointer otid, TupleTableSlot *newslot)
{
	RowFetch   *f = row_fetch_for(rel);
	TupleTableSlot *old = f->scratch;
	int			attno = -1;

	if (!f->have_key_columns)
	{
		Bitmapset  *keys = RelationGetIndexAttrBitmap(rel, INDEX_ATTR_BITMAP_KEY);
		MemoryContext cxt = MemoryContextSwitchTo(f->cxt);

		while ((attno = bms_next_member(keys, attno)) >= 0)
			if (attno + FirstLowInvalidHeapAttributeNumber > 0)
				f->key_columns = bms_add_member(f->key_columns,
												attno + FirstLowInvalidHeapAttributeNumber);
		MemoryContextSwitchTo(cxt);
		cursor_set_columns(rel, &f->key_cursor, f->key_columns);
		f->have_key_columns = true;
	}
	if (f->key_columns == NULL)
		return false;
	if (!fetch_row(rel, tid_to_row_number(otid), SnapshotAny, old, false,
				   &f->key_cursor))
		return true;
	slot_getallattrs(old);
	slot_getallattrs(newslot);
	attno = -1;
	while ((attno = bms_next_member(f->key_columns, attno)) >= 0)
	{
		int			i = attno - 1;
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel), i);

		if (old->tts_isnull[i] != newslot->tts_isnull[i])
			return true;
		if (!old->tts_isnull[i] &&
			!datumIsEqual(old->tts_values[i], newslot->tts_values[i],
						  att->attbyval, att->attlen))
			return true;
	}
	return false;
}

TM_Result
storage_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot,
					 CommandId cid, Snapshot snapshot, Snapshot crosscheck,
					 bool wait, TM_FailureData *tmfd, LockTupleMode *lockmode,
					 TU_UpdateIndexes *update_indexes)
{
	const StorageAm *am = storage_am_for(rel);
	uint64		storage_id = storage_id_of(rel);
	void	   *writer;
	uint64		successor;
	TM_Result	result;

	storage_am_refuse_if_published(am, rel);
	require_storage(rel, storage_id);
	storage_lock_for_dml(rel);
	refuse_retired_row(rel, tid_to_row_number(otid));
	CheckForSerializableConflictIn(rel, otid, ItemPointerGetBlockNumber(otid));
	/*
	 * As on heap, an update of other columns than a unique index's goes
	 * through FOR KEY SHARE lockers; the row's new version is linked to
	 * this one so that its DELETE still waits for them (row_marks.c).
	 */
	*lockmode = changes_key(rel, otid, slot) ? LockTupleExclusive :
		LockTupleNoKeyExclusive;

	/*
	 * The tombstone names the new version's row number, so that a waiting
	 * writer can follow the row; the number is known before the row is
	 * buffered, and only used once the old version is ours.
	 */
	pending_keep_within_budget();
	writer = pending_writer(rel, am->writer_ops);
	successor = row_runs_peek(am->writer_ops->rows(writer), rel);
	result = row_mark_retire(rel, storage_id, tid_to_row_number(otid),
							 successor, cid, crosscheck, wait, *lockmode, tmfd);
	*update_indexes = COMPAT_TU_ALL;
	if (result != TM_Ok)
		return result;

	/* retiring may have written buffered rows: ask for the buffer again */
	writer = pending_writer(rel, am->writer_ops);
	am->insert(writer, rel, slot, cid);
	if (tid_to_row_number(&slot->tts_tid) != successor)
		elog(ERROR, "updated row got row number " UINT64_FORMAT " instead of " UINT64_FORMAT,
			 tid_to_row_number(&slot->tts_tid), successor);
	compat_pgstat_count_heap_update(rel);
	return TM_Ok;
}

TM_Result
storage_tuple_lock(Relation rel, ItemPointer tid, Snapshot snapshot,
				   TupleTableSlot *slot, CommandId cid, LockTupleMode mode,
				   LockWaitPolicy wait_policy, uint8 flags,
				   TM_FailureData *tmfd)
{
	uint64		storage_id = storage_id_of(rel);
	uint64		rownum = tid_to_row_number(tid);
	TM_Result	result;

	require_storage(rel, storage_id);
	storage_lock_for_dml(rel);
	refuse_retired_row(rel, rownum);

	/*
	 * Heap returns TM_Invisible for a row the locking command inserted
	 * itself, and the executor raises this error for ON CONFLICT DO UPDATE
	 * from the row's xmin, which our slots cannot give it.
	 */
	if (inserted_by_later_command(rel, rownum, snapshot))
		ereport(ERROR,
				(errcode(ERRCODE_CARDINALITY_VIOLATION),
				 errmsg("ON CONFLICT DO UPDATE command cannot affect row a second time"),
				 errhint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.")));
	tmfd->traversed = false;
	for (;;)
	{
		uint64		successor = ROW_MARK_DELETED;

		/* the row must exist before it can be locked; slot gets it */
		if (!fetch_row(rel, rownum, SnapshotAny, slot, false, NULL))
			return TM_Invisible;
		result = row_mark_lock(rel, storage_id, rownum, cid, mode,
							   wait_policy, tmfd, &successor);
		if (result != TM_Updated ||
			!(flags & TUPLE_LOCK_FLAG_FIND_LAST_VERSION))
			break;

		/*
		 * Follow the row to its new version, written by the transaction
		 * that retired this one (committed, or we would still be waiting).
		 * A new version of our own that our command may not see yet is
		 * what heap reports as TM_SelfModified.
		 */
		if (TransactionIdIsCurrentTransactionId(tmfd->xmax))
		{
			result = TM_SelfModified;
			break;
		}
		if (successor == ROW_MARK_MOVED)
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("tuple to be locked was already moved to another partition due to concurrent update")));
		rownum = successor;
		/* a rewrite since our snapshot moved it: as for the first row */
		refuse_retired_row(rel, rownum);
		row_number_to_tid(rownum, tid);
		tmfd->traversed = true;
		CHECK_FOR_INTERRUPTS();
	}
	/* slot holds the locked version: fetched above, and rows never change */
	return result;
}

/* ---- index builds ---- */

/* What an index build hands each row through. */
typedef struct IndexBuild
{
	Relation	index_rel;
	IndexInfo  *index_info;
	ExprState  *predicate;
	EState	   *estate;
	TupleTableSlot *slot;
	Snapshot	snapshot;
	DeletedRange deleted;
	IndexBuildCallback callback;
	void	   *callback_state;
	double		reltuples;
} IndexBuild;

/* Passes the row in b->slot, with row number rownum, to the index. */
static void
index_build_row(IndexBuild *b, uint64 rownum)
{
	ExprContext *econtext = GetPerTupleExprContext(b->estate);
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	bool		alive = true;

	if (!IsMVCCSnapshot(b->snapshot))
		alive = !deleted_range_has(&b->deleted, rownum);
	if (alive)
		b->reltuples += 1;
	MemoryContextReset(econtext->ecxt_per_tuple_memory);
	if (b->predicate != NULL && !ExecQual(b->predicate, econtext))
		return;
	FormIndexDatum(b->index_info, b->slot, b->estate, values, isnull);
	b->callback(b->index_rel, &b->slot->tts_tid, values, isnull, alive,
				b->callback_state);
}

bool
storage_columns_read(Node *exprs, Index relid, List **columns)
{
	Bitmapset  *attrs = NULL;
	int			m = -1;

	pull_varattnos(exprs, relid, &attrs);
	while ((m = bms_next_member(attrs, m)) >= 0)
	{
		AttrNumber	attno = m + FirstLowInvalidHeapAttributeNumber;

		if (attno == InvalidAttrNumber)
			return false;
		if (attno > 0)
			*columns = list_append_unique_int(*columns, attno);
	}
	return true;
}

Bitmapset *
storage_column_set(List *attnums)
{
	Bitmapset  *set = NULL;
	ListCell   *lc;

	foreach(lc, attnums)
		set = bms_add_member(set, lfirst_int(lc));
	return set;
}

/* The attribute numbers an index reads (fetch_cursor_columns); NULL: all. */
static Bitmapset *
index_columns(IndexInfo *index_info)
{
	List	   *columns = NIL;
	int			i;

	for (i = 0; i < index_info->ii_NumIndexAttrs; i++)
		if (index_info->ii_IndexAttrNumbers[i] != 0)
			columns = list_append_unique_int(columns,
											 index_info->ii_IndexAttrNumbers[i]);
	if (!storage_columns_read((Node *) index_info->ii_Expressions, 1, &columns) ||
		!storage_columns_read((Node *) index_info->ii_Predicate, 1, &columns))
		return NULL;
	return storage_column_set(columns);
}

/*
 * The rows of TID blocks [start_blockno, start_blockno + numblocks) for
 * BRIN, in row number order.  BRIN summarizes ranges of TID blocks, and a
 * serial build closes a range once a row of a later one arrives, so it
 * needs rows in TID order, which a scan (stripes in the order they were
 * written) does not give when transactions inserted side by side.  Rows
 * are fetched by row number instead, decoding only the index's columns;
 * row numbers no row holds are skipped by the fetcher's lookup.
 *
 * Summarizing a range (VACUUM, brin_summarize_new_values) runs beside
 * inserts.  A row inserted into a range before BRIN put its placeholder
 * there was not added to any summary, and may still be buffered by its
 * transaction, out of our reach: so the range waits for the transactions
 * still holding row numbers in it (heap's summarizing sees in-progress
 * tuples instead).  Rows inserted after the placeholder are added to it
 * by their own inserts.
 */
static void
brin_range_rows(IndexBuild *b, Relation rel, BlockNumber start_blockno,
				BlockNumber numblocks)
{
	const StorageAm *am = storage_am_for(rel);
	StorageMeta meta;
	uint64		first = (uint64) start_blockno * ROWS_PER_TID_BLOCK;
	uint64		end;
	uint64		rownum;
	TransactionId owner;
	MemoryContext cxt;
	MemoryContext old;
	void	   *fetcher;
	void	   *cursor;
	Bitmapset  *columns;

	if (!storage_read_meta(rel, &meta))
		return;
	end = meta.next_row_number;
	if (numblocks != InvalidBlockNumber)
		end = Min(end, first + (uint64) numblocks * ROWS_PER_TID_BLOCK);
	if (first >= end)
		return;
	while (TransactionIdIsValid(owner = row_reservation_owner(meta.storage_id,
															  first, end)))
		XactLockTableWait(owner, rel, NULL, XLTW_None);

	cxt = AllocSetContextCreate(CurrentMemoryContext, "BRIN rows",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	fetcher = am->fetch_begin(rel, b->snapshot);
	cursor = am->fetch_cursor(fetcher);
	columns = index_columns(b->index_info);
	if (columns != NULL && am->fetch_cursor_columns != NULL)
		am->fetch_cursor_columns(cursor, columns);
	MemoryContextSwitchTo(old);
	for (rownum = first; rownum < end; rownum++)
	{
		CHECK_FOR_INTERRUPTS();
		if (am->fetch(cursor, rownum, b->slot, NULL))
			index_build_row(b, rownum);
	}
	ExecClearTuple(b->slot);
	am->fetch_cursor_end(cursor);
	am->fetch_end(fetcher);
	MemoryContextDelete(cxt);
}

double
storage_index_build_range_scan(Relation table_rel, Relation index_rel,
							   IndexInfo *index_info, bool allow_sync,
							   bool anyvisible, bool progress,
							   BlockNumber start_blockno,
							   BlockNumber numblocks,
							   IndexBuildCallback callback,
							   void *callback_state, TableScanDesc scan)
{
	IndexBuild	b;
	uint64		storage_id;
	bool		need_unregister = false;

	b.index_rel = index_rel;
	b.index_info = index_info;
	b.estate = CreateExecutorState();
	b.slot = table_slot_create(table_rel, NULL);
	GetPerTupleExprContext(b.estate)->ecxt_scantuple = b.slot;
	b.predicate = ExecPrepareQual(index_info->ii_Predicate, b.estate);
	b.callback = callback;
	b.callback_state = callback_state;
	b.reltuples = 0;

	/*
	 * A plain build indexes every row committed or ours, deleted ones too
	 * (older snapshots may still see them: they are passed as not alive,
	 * so unique checks skip them).  A concurrent build indexes what its
	 * snapshot sees; the validation pass adds the rest.
	 */
	if (scan != NULL)
		b.snapshot = scan->rs_snapshot;
	else if (index_info->ii_Concurrent || IsBootstrapProcessingMode())
	{
		b.snapshot = RegisterSnapshot(GetTransactionSnapshot());
		need_unregister = true;
	}
	else
		b.snapshot = SnapshotSelf;
	storage_id = storage_id_of(table_rel);
	deleted_range_init(&b.deleted, storage_id, SnapshotSelf,
					   CurrentMemoryContext);

	/* a parallel BRIN build sorts what its workers summarize: any order */
	if (index_rel->rd_rel->relam == BRIN_AM_OID && scan == NULL)
	{
		pending_flush_for_read(table_rel);
		tid_blocks_cover(table_rel, storage_id);
		brin_range_rows(&b, table_rel, start_blockno, numblocks);
	}
	else
	{
		if (scan == NULL)
			scan = table_beginscan_strat(table_rel, b.snapshot, 0, NULL, true,
										 false);
		while (table_scan_getnextslot(scan, ForwardScanDirection, b.slot))
		{
			CHECK_FOR_INTERRUPTS();
			index_build_row(&b, tid_to_row_number(&b.slot->tts_tid));
		}
		table_endscan(scan);
	}
	if (need_unregister)
		UnregisterSnapshot(b.snapshot);
	ExecDropSingleTupleTableSlot(b.slot);
	FreeExecutorState(b.estate);
	index_info->ii_ExpressionsState = NIL;
	index_info->ii_PredicateState = NULL;
	return b.reltuples;
}

/*
 * The second pass of CREATE INDEX CONCURRENTLY: index the rows snapshot
 * sees that the first pass did not (state->tuplesort holds the TIDs the
 * index has, in order).  Heap's scan returns rows in TID order and walks
 * the index's TIDs beside it; ours does not (a stripe sorted by orderby,
 * a merge, a repack all reorder row numbers), and walking them so took
 * indexed rows for missing ones: their second entries broke the index
 * ("posting list contains misplaced TID").  So the scan only sorts the
 * TIDs of the rows it sees, and a row the index lacks is fetched by TID.
 */
void
storage_index_validate_scan(Relation table_rel, Relation index_rel,
							IndexInfo *index_info, Snapshot snapshot,
							ValidateIndexState *state)
{
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	ExprState  *predicate;
	TupleTableSlot *slot;
	EState	   *estate;
	ExprContext *econtext;
	TableScanDesc scan;
	Tuplesortstate *rows;
	FetchCursor cursor;
	Bitmapset  *columns;
	Datum		row;
	bool		row_null;
	Datum		indexed = (Datum) 0;
	bool		indexed_null;
	bool		have_indexed = false;
	bool		sort_done = false;

	estate = CreateExecutorState();
	econtext = GetPerTupleExprContext(estate);
	slot = table_slot_create(table_rel, NULL);
	econtext->ecxt_scantuple = slot;
	predicate = ExecPrepareQual(index_info->ii_Predicate, estate);

	rows = tuplesort_begin_datum(INT8OID, Int8LessOperator, InvalidOid, false,
								 maintenance_work_mem, NULL, TUPLESORT_NONE);
	scan = table_beginscan_strat(table_rel, snapshot, 0, NULL, true, false);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		CHECK_FOR_INTERRUPTS();
		tuplesort_putdatum(rows, Int64GetDatum(itemptr_encode(&slot->tts_tid)),
						   false);
		state->htups += 1;
	}
	table_endscan(scan);
	tuplesort_performsort(rows);

	cursor_init(&cursor);
	columns = index_columns(index_info);
	if (columns != NULL)
		cursor_set_columns(table_rel, &cursor, columns);
	while (compat_tuplesort_getdatum(rows, &row, &row_null))
	{
		int64		encoded = DatumGetInt64(row);
		ItemPointerData tid;

		CHECK_FOR_INTERRUPTS();
		/* advance the index's sorted TIDs to this row */
		while (!sort_done &&
			   (!have_indexed || DatumGetInt64(indexed) < encoded))
		{
			have_indexed = compat_tuplesort_getdatum(state->tuplesort,
													 &indexed, &indexed_null);
			if (!have_indexed)
				sort_done = true;
		}
		if (have_indexed && DatumGetInt64(indexed) == encoded)
			continue;

		itemptr_decode(&tid, encoded);
		if (!fetch_row(table_rel, tid_to_row_number(&tid), snapshot, slot,
					   true, &cursor))
			continue;
		MemoryContextReset(econtext->ecxt_per_tuple_memory);
		if (predicate != NULL && !ExecQual(predicate, econtext))
			continue;
		FormIndexDatum(index_info, slot, estate, values, isnull);
		index_insert(index_rel, values, isnull, &tid, table_rel,
					 index_info->ii_Unique ? UNIQUE_CHECK_YES : UNIQUE_CHECK_NO,
					 false, index_info);
		state->tups_inserted += 1;
	}
	cursor_end(table_rel, &cursor);
	tuplesort_end(rows);
	compat_index_insert_cleanup(index_rel, index_info);
	ExecDropSingleTupleTableSlot(slot);
	FreeExecutorState(estate);
	index_info->ii_ExpressionsState = NIL;
	index_info->ii_PredicateState = NULL;
}

/* ---- index entries for rewritten rows ---- */

struct StorageIndexInserter
{
	Relation	rel;
	int			n;
	Relation   *indexes;
	IndexInfo **infos;
	ExprState **predicates;
	EState	   *estate;
	TupleTableSlot *slot;		/* the executor's view of the row */
};

StorageIndexInserter *
storage_index_inserter_begin(Relation rel)
{
	StorageIndexInserter *ins = palloc0(sizeof(StorageIndexInserter));
	List	   *oids = RelationGetIndexList(rel);
	ListCell   *lc;

	ins->rel = rel;
	ins->estate = CreateExecutorState();
	ins->slot = table_slot_create(rel, NULL);
	GetPerTupleExprContext(ins->estate)->ecxt_scantuple = ins->slot;
	ins->indexes = palloc(sizeof(Relation) * Max(list_length(oids), 1));
	ins->infos = palloc(sizeof(IndexInfo *) * Max(list_length(oids), 1));
	ins->predicates = palloc(sizeof(ExprState *) * Max(list_length(oids), 1));
	foreach(lc, oids)
	{
		Relation	index = index_open(lfirst_oid(lc), RowExclusiveLock);

		ins->indexes[ins->n] = index;
		ins->infos[ins->n] = BuildIndexInfo(index);
		ins->predicates[ins->n] = ExecPrepareQual(ins->infos[ins->n]->ii_Predicate,
												  ins->estate);
		ins->n++;
	}
	list_free(oids);
	return ins;
}

void
storage_index_inserter_add(StorageIndexInserter *ins, TupleTableSlot *slot)
{
	ExprContext *econtext = GetPerTupleExprContext(ins->estate);
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	int			i;

	if (ins->n == 0)
		return;
	ExecCopySlot(ins->slot, slot);
	ins->slot->tts_tid = slot->tts_tid;
	MemoryContextReset(econtext->ecxt_per_tuple_memory);
	for (i = 0; i < ins->n; i++)
	{
		if (ins->predicates[i] != NULL && !ExecQual(ins->predicates[i], econtext))
			continue;
		FormIndexDatum(ins->infos[i], ins->slot, ins->estate, values, isnull);
		index_insert(ins->indexes[i], values, isnull, &slot->tts_tid, ins->rel,
					 UNIQUE_CHECK_NO, false, ins->infos[i]);
	}
}

void
storage_index_inserter_end(StorageIndexInserter *ins)
{
	int			i;

	for (i = 0; i < ins->n; i++)
	{
		compat_index_insert_cleanup(ins->indexes[i], ins->infos[i]);
		index_close(ins->indexes[i], NoLock);
	}
	ExecDropSingleTupleTableSlot(ins->slot);
	FreeExecutorState(ins->estate);
	pfree(ins);
}

/* ---- bitmap and TABLESAMPLE scans: rows by TID block ---- */

typedef struct StorageBitmap
{
	FetchCursor cursor;
	BlockNumber block;
	OffsetNumber offsets[MaxHeapTuplesPerPage];
	int			noffsets;
	int			next;
	/* TABLESAMPLE: the TID blocks, and the next one when the method has no order */
	BlockNumber sample_nblocks;	/* InvalidBlockNumber until the scan starts */
	BlockNumber sample_next;
	/* storage_scan_bitmap_columns(): projected, else every column is read */
	bool		projected;
	Bitmapset  *columns;		/* the plan's target list and filter */
	Bitmapset  *recheck_columns;	/* the former and the recheck condition */
} StorageBitmap;

static StorageBitmap *
bitmap_of(TableScanDesc scan)
{
	StorageScanDescData *s = (StorageScanDescData *) scan;

	if (s->bitmap == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(s));

		s->bitmap = palloc0(sizeof(StorageBitmap));
		cursor_init(&s->bitmap->cursor);
		s->bitmap->sample_nblocks = InvalidBlockNumber;
		MemoryContextSwitchTo(old);
	}
	return s->bitmap;
}

void
storage_scan_end_rows(TableScanDesc scan)
{
	StorageScanDescData *s = (StorageScanDescData *) scan;

	if (s->bitmap != NULL)
	{
		cursor_end(scan->rs_rd, &s->bitmap->cursor);
		pfree(s->bitmap);
		s->bitmap = NULL;
	}
}

void
storage_scan_bitmap_columns(TableScanDesc scan, const Bitmapset *columns,
							const Bitmapset *recheck_columns)
{
	StorageBitmap *b = bitmap_of(scan);
	MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(b));

	b->projected = true;
	b->columns = bms_copy(columns);
	b->recheck_columns = bms_union(columns, recheck_columns);
	MemoryContextSwitchTo(old);
}

/*
 * Starts a bitmap block: the given offsets, or every one when lossy.  Its
 * rows need the recheck condition's columns only when the executor
 * rechecks them.
 */
static void
bitmap_start_block(TableScanDesc scan, StorageBitmap *b, BlockNumber block,
				   const OffsetNumber *offsets, int noffsets, bool recheck)
{
	int			i;

	if (b->projected)
		cursor_set_columns(scan->rs_rd, &b->cursor,
						   recheck ? b->recheck_columns : b->columns);
	b->block = block;
	b->next = 0;
	if (noffsets < 0)
	{
		for (i = 0; i < MaxHeapTuplesPerPage; i++)
			b->offsets[i] = (OffsetNumber) (i + FirstOffsetNumber);
		b->noffsets = MaxHeapTuplesPerPage;
	}
	else
	{
		memcpy(b->offsets, offsets, sizeof(OffsetNumber) * noffsets);
		b->noffsets = noffsets;
	}
}

/* The next row of the block the scan's snapshot sees. */
static bool
bitmap_next_row(TableScanDesc scan, StorageBitmap *b, TupleTableSlot *slot)
{
	while (b->next < b->noffsets)
	{
		ItemPointerData tid;

		ItemPointerSet(&tid, b->block, b->offsets[b->next++]);
		if (fetch_row(scan->rs_rd, tid_to_row_number(&tid), scan->rs_snapshot,
					  slot, true, &b->cursor))
		{
			pgstat_count_heap_fetch(scan->rs_rd);
			return true;
		}
	}
	ExecClearTuple(slot);
	return false;
}

#ifdef COMPAT_TAM_BITMAP_ITERATES
bool
storage_scan_bitmap_next_tuple(TableScanDesc scan, TupleTableSlot *slot,
							   bool *recheck, uint64 *lossy_pages,
							   uint64 *exact_pages)
{
	StorageBitmap *b = bitmap_of(scan);

	for (;;)
	{
		TBMIterateResult tbmres;
		OffsetNumber offsets[TBM_MAX_TUPLES_PER_PAGE];
		int			n = -1;

		if (b->noffsets > 0 && bitmap_next_row(scan, b, slot))
			return true;
		if (!tbm_iterate(&scan->st.rs_tbmiterator, &tbmres))
			return false;
		if (!tbmres.lossy)
			n = tbm_extract_page_tuple(&tbmres, offsets, TBM_MAX_TUPLES_PER_PAGE);
		if (tbmres.lossy)
			(*lossy_pages)++;
		else
			(*exact_pages)++;
		*recheck = tbmres.recheck;
		bitmap_start_block(scan, b, tbmres.blockno, offsets, n,
						   tbmres.recheck);
	}
}
#else
bool
storage_scan_bitmap_next_block(TableScanDesc scan, TBMIterateResult *tbmres)
{
	bitmap_start_block(scan, bitmap_of(scan), tbmres->blockno,
					   tbmres->offsets, tbmres->ntuples, tbmres->recheck);
	return true;
}

bool
storage_scan_bitmap_next_tuple(TableScanDesc scan, TBMIterateResult *tbmres,
							   TupleTableSlot *slot)
{
	return bitmap_next_row(scan, bitmap_of(scan), slot);
}
#endif

/*
 * TABLESAMPLE.  A sampling method picks TID blocks and offsets in them, as
 * on heap; our TID blocks are row numbers in steps of MaxHeapTuplesPerPage
 * (format/row_number.h), so the scan covers every row number handed out,
 * and a picked offset is fetched by its row number like a bitmap scan's.
 * Row numbers no row holds (gaps, deleted rows) are skipped, as heap skips
 * unused line pointers: SYSTEM takes whole TID blocks, BERNOULLI each row
 * with its probability.
 */
bool
storage_scan_sample_next_block(TableScanDesc scan, SampleScanState *scanstate)
{
	StorageBitmap *b = bitmap_of(scan);
	TsmRoutine *tsm = scanstate->tsmroutine;
	BlockNumber block;

	if (b->sample_nblocks == InvalidBlockNumber)
	{
		StorageMeta meta;
		uint64		rows = storage_read_meta(scan->rs_rd, &meta) ?
			meta.next_row_number : 0;

		b->sample_nblocks = (BlockNumber) ((rows + ROWS_PER_TID_BLOCK - 1) /
										   ROWS_PER_TID_BLOCK);
		b->sample_next = 0;
	}
	if (b->sample_nblocks == 0)
		return false;
	if (tsm->NextSampleBlock != NULL)
		block = tsm->NextSampleBlock(scanstate, b->sample_nblocks);
	else if (b->sample_next < b->sample_nblocks)
		block = b->sample_next++;
	else
		block = InvalidBlockNumber;
	if (!BlockNumberIsValid(block))
		return false;
	bitmap_start_block(scan, b, block, NULL, 0, false);
	return true;
}

bool
storage_scan_sample_next_tuple(TableScanDesc scan, SampleScanState *scanstate,
							   TupleTableSlot *slot)
{
	StorageBitmap *b = bitmap_of(scan);
	TsmRoutine *tsm = scanstate->tsmroutine;

	for (;;)
	{
		OffsetNumber offset;
		ItemPointerData tid;

		CHECK_FOR_INTERRUPTS();
		offset = tsm->NextSampleTuple(scanstate, b->block, MaxHeapTuplesPerPage);
		if (!OffsetNumberIsValid(offset))
		{
			ExecClearTuple(slot);
			return false;
		}
		ItemPointerSet(&tid, b->block, offset);
		if (fetch_row(scan->rs_rd, tid_to_row_number(&tid), scan->rs_snapshot,
					  slot, true, &b->cursor))
		{
			pgstat_count_heap_getnext(scan->rs_rd);
			return true;
		}
	}
}

/* A rescan starts the sample again (the method's own state restarts too). */
void
storage_scan_sample_restart(TableScanDesc scan)
{
	StorageScanDescData *s = (StorageScanDescData *) scan;

	if (s->bitmap != NULL)
		s->bitmap->sample_nblocks = InvalidBlockNumber;
}
