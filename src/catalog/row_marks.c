/*-------------------------------------------------------------------------
 *
 * row_marks.c
 *	  Owns engine.row_mark: the row-level locks, deletes and updates of
 *	  both access methods (see row_marks.h).
 *
 *	  Stored rows never change, so a row's life after its insert is told
 *	  by marks, which are heap tuples, and PostgreSQL's heap does the
 *	  concurrency: a row's first mark ("original", successor NULL) is
 *	  inserted frozen, visible to every snapshot at once and harmless if
 *	  the transaction that made it aborts (it says only "this row exists").
 *	  heap_lock_tuple on it is a row lock with all of heap's rules (lock
 *	  modes, multixacts, NOWAIT, SKIP LOCKED, deadlock detection), and
 *	  heap_update of it into a tombstone is a delete or update whose
 *	  visibility, rollback and savepoints are heap's.  A concurrent writer
 *	  that waited gets TM_Updated with the tombstone's TID, from which the
 *	  row's new version is found: that is how EvalPlanQual follows it.
 *
 *	  Creating the original is the only step heap cannot serialize (two
 *	  sessions could insert one each): a short heavyweight tuple lock on
 *	  the table's own TID of the row covers it.  Once the original's
 *	  updater has committed and no snapshot needs it, heap pruning removes
 *	  it and the tombstone alone says the row is gone.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/multixact.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/procarray.h"
#include "utils/fmgroids.h"
#include "utils/snapmgr.h"

#include "catalog/meta_tables.h"
#include "catalog/row_marks.h"
#include "format/row_number.h"

#define Anum_row_mark_storage_id	1
#define Anum_row_mark_row_number	2
#define Anum_row_mark_successor		3
#define Anum_row_mark_predecessor	4
#define Natts_row_mark				4

/* What the marks of one row say, for a writer. */
typedef struct MarkState
{
	bool		has_original;
	ItemPointerData original;	/* TID in engine.row_mark */
	uint64		predecessor;	/* the original's, or 0 (see key_sharers) */
	bool		retired;		/* no original left: a committed tombstone */
	uint64		successor;
} MarkState;

static int
row_keys(ScanKey keys, uint64 storage_id, uint64 rownum)
{
	meta_storage_key(&keys[0], Anum_row_mark_storage_id, storage_id);
	ScanKeyInit(&keys[1], Anum_row_mark_row_number, BTEqualStrategyNumber,
				F_INT8EQ, Int64GetDatum((int64) rownum));
	return 2;
}

/*
 * Is the mark a tombstone?  *successor: the row number of the new version,
 * or ROW_MARK_DELETED (killed and moved rows too, unless keep_special).
 */
static bool
tombstone_successor(HeapTuple tuple, TupleDesc desc, uint64 *successor,
					bool keep_special)
{
	bool		isnull;
	Datum		d = heap_getattr(tuple, Anum_row_mark_successor, desc, &isnull);

	if (!isnull)
	{
		*successor = (uint64) DatumGetInt64(d);
		if ((*successor == ROW_MARK_KILLED || *successor == ROW_MARK_MOVED) &&
			!keep_special)
			*successor = ROW_MARK_DELETED;
	}
	return !isnull;
}

/*
 * The result a writer meeting a retired row gets: TM_Deleted, or
 * TM_Updated with the new version's TID in ctid, or with heap's
 * moved-partitions mark there (which the executor reports).
 */
static TM_Result
retired_as(uint64 successor, uint64 rownum, TM_FailureData *tmfd)
{
	if (successor == ROW_MARK_DELETED || successor == ROW_MARK_KILLED)
	{
		row_number_to_tid(rownum, &tmfd->ctid);
		return TM_Deleted;
	}
	if (successor == ROW_MARK_MOVED)
		ItemPointerSetMovedPartitions(&tmfd->ctid);
	else
		row_number_to_tid(successor, &tmfd->ctid);
	return TM_Updated;
}

static bool
tuple_successor(HeapTuple tuple, TupleDesc desc, uint64 *successor)
{
	return tombstone_successor(tuple, desc, successor, false);
}

/* The row version the mark's row replaced, when linked, or 0. */
static uint64
mark_predecessor(HeapTuple tuple, TupleDesc desc)
{
	bool		isnull;
	Datum		d = heap_getattr(tuple, Anum_row_mark_predecessor, desc, &isnull);

	return isnull ? 0 : (uint64) DatumGetInt64(d);
}

/* A row's tombstone, as writers see it. */
typedef struct Tombstone
{
	ItemPointerData tid;
	uint64		successor;		/* ROW_MARK_KILLED and _MOVED kept */
	uint64		predecessor;	/* see key_sharers */
	bool		lockers;		/* its lockers may still run */
} Tombstone;

/* May a locker in the tuple's xmax still run? */
static bool
lockers_may_run(HeapTupleHeader header)
{
	TransactionId xmax = HeapTupleHeaderGetRawXmax(header);

	if ((header->t_infomask & HEAP_XMAX_INVALID) ||
		!HEAP_XMAX_IS_LOCKED_ONLY(header->t_infomask))
		return false;
	if (header->t_infomask & HEAP_XMAX_IS_MULTI)
		return MultiXactIdIsRunning(xmax, true);
	return TransactionIdIsInProgress(xmax);
}

/* The committed (or our own) tombstone of rownum, if any. */
static bool
find_tombstone(Relation markrel, uint64 storage_id, uint64 rownum,
			   Tombstone *t)
{
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tuple;
	bool		found = false;

	scan = systable_beginscan(markrel, meta_table_relid("row_mark_key"), true,
							  SnapshotSelf, row_keys(keys, storage_id, rownum),
							  keys);
	while (!found && HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		if (!tombstone_successor(tuple, RelationGetDescr(markrel),
								 &t->successor, true))
			continue;
		found = true;
		t->tid = tuple->t_self;
		t->predecessor = mark_predecessor(tuple, RelationGetDescr(markrel));
		t->lockers = lockers_may_run(tuple->t_data);
	}
	systable_endscan(scan);
	return found;
}

/*
 * The row's original mark, in any state, and when it is gone the
 * successor its committed (or our own) tombstone names.
 */
static void
find_marks(Relation markrel, uint64 storage_id, uint64 rownum, MarkState *st)
{
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tuple;
	uint64		successor;
	Tombstone	t;

	memset(st, 0, sizeof(MarkState));
	scan = systable_beginscan(markrel, meta_table_relid("row_mark_key"), true,
							  SnapshotAny, row_keys(keys, storage_id, rownum),
							  keys);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		if (!tuple_successor(tuple, RelationGetDescr(markrel), &successor))
		{
			st->has_original = true;
			st->original = tuple->t_self;
			st->predecessor = mark_predecessor(tuple, RelationGetDescr(markrel));
			break;
		}
	}
	systable_endscan(scan);
	if (!st->has_original && find_tombstone(markrel, storage_id, rownum, &t))
	{
		st->retired = true;
		st->successor = t.successor;
	}
}

/* Scan keys for the marks of rows [first, last]. */
static void
range_keys(ScanKey keys, uint64 storage_id, uint64 first, uint64 last)
{
	meta_storage_key(&keys[0], Anum_row_mark_storage_id, storage_id);
	ScanKeyInit(&keys[1], Anum_row_mark_row_number, BTGreaterEqualStrategyNumber,
				F_INT8GE, Int64GetDatum((int64) first));
	ScanKeyInit(&keys[2], Anum_row_mark_row_number, BTLessEqualStrategyNumber,
				F_INT8LE, Int64GetDatum((int64) last));
}

static HeapTuple
form_mark(Relation markrel, uint64 storage_id, uint64 rownum,
		  bool has_successor, uint64 successor, uint64 predecessor)
{
	Datum		values[Natts_row_mark];
	bool		nulls[Natts_row_mark] = {false, false};

	nulls[2] = !has_successor;
	nulls[3] = predecessor == 0;
	values[0] = Int64GetDatum((int64) storage_id);
	values[1] = Int64GetDatum((int64) rownum);
	values[2] = Int64GetDatum((int64) successor);
	values[3] = Int64GetDatum((int64) predecessor);
	return heap_form_tuple(RelationGetDescr(markrel), values, nulls);
}

/*
 * Finds the row's marks, creating its original when it has none, linked to
 * predecessor (0: none).
 */
static void
ensure_original(Relation markrel, Relation rel, uint64 storage_id,
				uint64 rownum, CommandId cid, uint64 predecessor,
				MarkState *st)
{
	ItemPointerData tid;

	find_marks(markrel, storage_id, rownum, st);
	if (st->has_original || st->retired)
		return;

	/* the heavyweight lock on our TID makes the check-and-insert atomic */
	row_number_to_tid(rownum, &tid);
	LockTuple(rel, &tid, ExclusiveLock);
	find_marks(markrel, storage_id, rownum, st);
	if (!st->has_original && !st->retired)
	{
		HeapTuple	tuple = form_mark(markrel, storage_id, rownum, false, 0,
									  predecessor);

		heap_insert(markrel, tuple, cid, HEAP_INSERT_FROZEN, NULL);
		meta_index_insert(markrel, tuple);
		st->has_original = true;
		st->original = tuple->t_self;
		st->predecessor = predecessor;
	}
	UnlockTuple(rel, &tid, ExclusiveLock);
}

/*
 * A failed lock or update of the original: tmfd->ctid is the tombstone
 * that replaced it; translate it to the row's TIDs.
 */
static TM_Result
translate_failure(Relation markrel, TM_Result result, uint64 rownum,
				  TM_FailureData *tmfd, uint64 *successor_out)
{
	HeapTupleData tuple;
	Buffer		buffer;
	uint64		successor = ROW_MARK_DELETED;
	TM_Result	retired;

	if (result != TM_Updated && result != TM_Deleted &&
		result != TM_SelfModified)
		return result;

	/* ctid: the tombstone; the original itself if it was never replaced */
	tuple.t_self = tmfd->ctid;
	if (heap_fetch(markrel, SnapshotAny, &tuple, &buffer, false))
	{
		if (!tombstone_successor(&tuple, RelationGetDescr(markrel), &successor,
								 true))
			successor = ROW_MARK_DELETED;
		ReleaseBuffer(buffer);
	}
	if (successor_out)
		*successor_out = successor;
	retired = retired_as(successor, rownum, tmfd);
	return result == TM_SelfModified ? result : retired;
}

/* The row is retired for good (its original was pruned away). */
static TM_Result
retired_result(const MarkState *st, uint64 rownum, TM_FailureData *tmfd,
			   uint64 *successor_out)
{
	tmfd->xmax = FrozenTransactionId;
	tmfd->cmax = InvalidCommandId;
	tmfd->traversed = false;
	if (successor_out)
		*successor_out = st->successor;
	return retired_as(st->successor, rownum, tmfd);
}

/*
 * heap_lock_tuple of the mark at tid, for a row of rel.  NOWAIT's error is
 * raised here: heap's would name the mark table.
 */
static TM_Result
lock_mark(Relation markrel, Relation rel, ItemPointer tid, CommandId cid,
		  LockTupleMode mode, LockWaitPolicy wait_policy,
		  TM_FailureData *tmfd)
{
	HeapTupleData tuple;
	Buffer		buffer;
	TM_Result	result;

	tuple.t_self = *tid;
	result = heap_lock_tuple(markrel, &tuple, cid, mode,
							 wait_policy == LockWaitError ? LockWaitSkip :
							 wait_policy, false, &buffer, tmfd);
	ReleaseBuffer(buffer);
	if (result == TM_WouldBlock && wait_policy == LockWaitError)
		ereport(ERROR,
				(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
				 errmsg("could not obtain lock on row in relation \"%s\"",
						RelationGetRelationName(rel))));
	return result;
}

/*
 * FOR KEY SHARE lockers of earlier versions.
 *
 * A foreign key check holds the referenced row FOR KEY SHARE, and an update
 * of other columns goes through that lock, as on heap: the mark's
 * heap_update carries the lockers onto the tombstone, as heap carries them
 * onto a row's new version.  But the row's new version here is another
 * row (another row number), with marks of its own, which the lock does not
 * reach: a DELETE of it, or a change of its key, must still wait for the
 * check, or its cascade would miss the referencing row the check lets in.
 * So such an update links the new version to the old: it creates the new
 * row's original with predecessor = the old row, and a tombstone keeps its
 * original's predecessor.  An exclusive lock of a row (DELETE, a key
 * update, FOR UPDATE) first locks, exclusively, every tombstone along the
 * links whose lockers may still run, which waits for them as heap_delete
 * waits for the lockers on its tuple.  Links are made only while lockers
 * of the old version or of one before it may run, so a chain lasts no
 * longer than the checks that hold it.  A tombstone outlives its lockers:
 * marks go only with their stripe or batch (storage_vacuum.c), once the
 * rewrite that retired it, which came after the update and so after the
 * lockers took their locks, is older than every running transaction.
 */
/* May lockers of an earlier version linked from predecessor still run? */
static bool
key_sharers_may_run(Relation markrel, uint64 storage_id, uint64 predecessor)
{
	Tombstone	t;

	for (; predecessor != 0; predecessor = t.predecessor)
	{
		if (!find_tombstone(markrel, storage_id, predecessor, &t))
			break;
		if (t.lockers)
			return true;
	}
	return false;
}

/*
 * Waits for the lockers of the earlier versions linked from predecessor by
 * locking their tombstones exclusively; TM_WouldBlock under SKIP LOCKED.
 */
static TM_Result
wait_for_key_sharers(Relation markrel, Relation rel, uint64 storage_id,
					 uint64 predecessor, CommandId cid,
					 LockWaitPolicy wait_policy, TM_FailureData *tmfd)
{
	Tombstone	t;

	for (; predecessor != 0; predecessor = t.predecessor)
	{
		TM_Result	result;

		CHECK_FOR_INTERRUPTS();
		if (!find_tombstone(markrel, storage_id, predecessor, &t))
			break;
		if (!t.lockers)
			continue;
		result = lock_mark(markrel, rel, &t.tid, cid, LockTupleExclusive,
						   wait_policy, tmfd);
		if (result == TM_WouldBlock)
			return result;
	}
	return TM_Ok;
}

/*
 * The new version of a row whose original mark at tid an update of other
 * columns, not aborted, replaced by a tombstone; 0 when none.
 *
 * A FOR KEY SHARE lock goes through such an update while it runs, as on
 * heap, and must then reach the new version too, as heap_lock_tuple locks
 * the tuple's later versions (heap_lock_updated_tuple): the update made no
 * link to this lock, which came after it (key_sharers), and a DELETE of
 * the new version would not wait for the check holding it; its cascade
 * would miss the referencing row the check lets in.
 */
static uint64
updated_to(Relation markrel, ItemPointer tid)
{
	HeapTupleData tuple;
	Buffer		buffer;
	ItemPointerData next;
	bool		updated = false;
	uint64		successor = 0;

	tuple.t_self = *tid;
	if (!heap_fetch(markrel, SnapshotAny, &tuple, &buffer, false))
		return 0;
	LockBuffer(buffer, BUFFER_LOCK_SHARE);
	if (!(tuple.t_data->t_infomask & HEAP_XMAX_INVALID) &&
		!HEAP_XMAX_IS_LOCKED_ONLY(tuple.t_data->t_infomask) &&
		!ItemPointerEquals(&tuple.t_self, &tuple.t_data->t_ctid) &&
		!TransactionIdDidAbort(HeapTupleHeaderGetUpdateXid(tuple.t_data)))
	{
		next = tuple.t_data->t_ctid;
		updated = true;
	}
	UnlockReleaseBuffer(buffer);
	if (!updated)
		return 0;
	tuple.t_self = next;
	if (heap_fetch(markrel, SnapshotAny, &tuple, &buffer, false))
	{
		uint64		s;

		if (tombstone_successor(&tuple, RelationGetDescr(markrel), &s, true) &&
			ROW_MARK_IS_ROW(s))
			successor = s;
		ReleaseBuffer(buffer);
	}
	return successor;
}

TM_Result
row_mark_lock(Relation rel, uint64 storage_id, uint64 rownum, CommandId cid,
			  LockTupleMode mode, LockWaitPolicy wait_policy,
			  TM_FailureData *tmfd, uint64 *successor)
{
	Relation	markrel = meta_table_open("row_mark", RowExclusiveLock);
	MarkState	st;
	TM_Result	result;

	ensure_original(markrel, rel, storage_id, rownum, cid, 0, &st);
	if (!st.has_original)
		result = retired_result(&st, rownum, tmfd, successor);
	else
	{
		result = TM_Ok;
		if (mode == LockTupleExclusive)
			result = wait_for_key_sharers(markrel, rel, storage_id, st.predecessor,
										  cid, wait_policy, tmfd);
		if (result == TM_Ok)
			result = lock_mark(markrel, rel, &st.original, cid, mode,
							   wait_policy, tmfd);
		if (result == TM_Ok && mode == LockTupleKeyShare)
		{
			uint64		next = updated_to(markrel, &st.original);

			if (next != 0)
			{
				table_close(markrel, NoLock);
				return row_mark_lock(rel, storage_id, next, cid, mode,
									 wait_policy, tmfd, successor);
			}
		}
		result = translate_failure(markrel, result, rownum, tmfd, successor);
	}
	table_close(markrel, NoLock);
	return result;
}

TM_Result
row_mark_retire(Relation rel, uint64 storage_id, uint64 rownum,
				uint64 successor, CommandId cid, Snapshot crosscheck,
				bool wait, LockTupleMode lockmode, TM_FailureData *tmfd)
{
	Relation	markrel = meta_table_open("row_mark", RowExclusiveLock);
	MarkState	st;
	TM_Result	result;

	ensure_original(markrel, rel, storage_id, rownum, cid, 0, &st);
	if (!st.has_original)
	{
		table_close(markrel, NoLock);
		return retired_result(&st, rownum, tmfd, NULL);
	}

	/*
	 * heap_update of a mark takes only the no-key lock (the mark table has
	 * no keys); a change that must exclude FOR KEY SHARE lockers takes the
	 * stronger lock first, after those of earlier versions (key_sharers).
	 */
	result = TM_Ok;
	if (lockmode == LockTupleExclusive)
	{
		LockWaitPolicy policy = wait ? LockWaitBlock : LockWaitError;

		result = wait_for_key_sharers(markrel, rel, storage_id, st.predecessor,
									  cid, policy, tmfd);
		if (result == TM_Ok)
			result = lock_mark(markrel, rel, &st.original, cid,
							   LockTupleExclusive, policy, tmfd);
	}
	if (result == TM_Ok)
	{
		HeapTuple	tombstone = form_mark(markrel, storage_id, rownum, true,
										  successor, st.predecessor);
		LockTupleMode ignored;

		result = compat_heap_update(markrel, &st.original, tombstone, cid,
									crosscheck, wait, tmfd, &ignored);
		if (result == TM_Ok && !HeapTupleIsHeapOnly(tombstone))
			meta_index_insert(markrel, tombstone);

		/* lockers carried to the tombstone, or of a version before */
		if (result == TM_Ok && lockmode != LockTupleExclusive &&
			ROW_MARK_IS_ROW(successor) &&
			(lockers_may_run(tombstone->t_data) ||
			 key_sharers_may_run(markrel, storage_id, st.predecessor)))
		{
			MarkState	next;

			ensure_original(markrel, rel, storage_id, successor, cid, rownum,
							&next);
		}
	}
	result = translate_failure(markrel, result, rownum, tmfd, NULL);
	table_close(markrel, NoLock);
	return result;
}

/*
 * A SnapshotDirty reports in xmin/xmax what the last tuple it looked at
 * was waiting on; a scan over several versions must keep what any of them
 * said.
 */
typedef struct DirtyWait
{
	TransactionId xmin;
	TransactionId xmax;
} DirtyWait;

static void
dirty_collect(Snapshot snapshot, DirtyWait *w)
{
	if (snapshot->snapshot_type != SNAPSHOT_DIRTY)
		return;
	if (TransactionIdIsValid(snapshot->xmin))
		w->xmin = snapshot->xmin;
	if (TransactionIdIsValid(snapshot->xmax))
		w->xmax = snapshot->xmax;
}

bool
row_mark_visible(uint64 storage_id, uint64 rownum, Snapshot snapshot)
{
	Relation	markrel;
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tuple;
	bool		any = false;
	bool		original = false;
	bool		killed = false;
	DirtyWait	wait = {InvalidTransactionId, InvalidTransactionId};
	uint64		successor;

	if (snapshot->snapshot_type == SNAPSHOT_ANY)
		return true;
	markrel = meta_table_open("row_mark", AccessShareLock);
	scan = systable_beginscan(markrel, meta_table_relid("row_mark_key"), true,
							  snapshot, row_keys(keys, storage_id, rownum),
							  keys);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		dirty_collect(snapshot, &wait);
		any = true;
		if (!tombstone_successor(tuple, RelationGetDescr(markrel), &successor,
								 true))
			original = true;
		else if (successor == ROW_MARK_KILLED)
			killed = true;
	}
	systable_endscan(scan);
	table_close(markrel, AccessShareLock);
	if (snapshot->snapshot_type == SNAPSHOT_DIRTY)
	{
		/* a killed row is nobody's to wait for */
		snapshot->xmin = killed ? InvalidTransactionId : wait.xmin;
		snapshot->xmax = killed ? InvalidTransactionId : wait.xmax;
		/* original marks are never speculative insertions */
		snapshot->speculativeToken = 0;
	}
	return !killed && (!any || original);
}

bool
row_mark_dead_to_all(uint64 storage_id, uint64 rownum, GlobalVisState *vistest)
{
	Relation	markrel = meta_table_open("row_mark", AccessShareLock);
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tuple;
	uint64		successor;
	bool		dead = false;

	/* committed tombstones, and our own (never dead to all yet) */
	scan = systable_beginscan(markrel, meta_table_relid("row_mark_key"), true,
							  SnapshotSelf, row_keys(keys, storage_id, rownum),
							  keys);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		TransactionId xmin = HeapTupleHeaderGetXmin(tuple->t_data);

		if (!tombstone_successor(tuple, RelationGetDescr(markrel), &successor,
								 true))
			continue;
		/* killed: seen by no snapshot at any time; frozen: older than all */
		if (successor == ROW_MARK_KILLED || !TransactionIdIsNormal(xmin) ||
			(!TransactionIdIsCurrentTransactionId(xmin) &&
			 GlobalVisTestIsRemovableXid(vistest, xmin)))
			dead = true;
	}
	systable_endscan(scan);
	table_close(markrel, AccessShareLock);
	return dead;
}

static int
cmp_uint64(const void *a, const void *b)
{
	uint64		x = *(const uint64 *) a;
	uint64		y = *(const uint64 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

uint64 *
row_mark_deleted_rows(uint64 storage_id, uint64 first, uint64 last,
					  Snapshot snapshot, int *n)
{
	Relation	markrel;
	ScanKeyData keys[3];
	SysScanDesc scan;
	HeapTuple	tuple;
	uint64	   *rows = NULL;
	uint64	   *live = NULL;
	int			nrows = 0;
	int			nlive = 0;
	int			max = 0;
	int			maxlive = 0;
	uint64		successor;
	int			i;
	int			j;
	int			k;

	*n = 0;
	if (snapshot == NULL || snapshot->snapshot_type == SNAPSHOT_ANY)
		return NULL;
	markrel = meta_table_open("row_mark", AccessShareLock);
	range_keys(keys, storage_id, first, last);
	scan = systable_beginscan(markrel, meta_table_relid("row_mark_key"), true,
							  snapshot, 3, keys);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		bool		isnull;
		uint64		rownum = (uint64) DatumGetInt64(heap_getattr(tuple, Anum_row_mark_row_number,
																 RelationGetDescr(markrel), &isnull));

		if (tuple_successor(tuple, RelationGetDescr(markrel), &successor))
		{
			if (nrows == max)
			{
				max = max == 0 ? 64 : max * 2;
				rows = rows == NULL ? palloc(sizeof(uint64) * max) :
					repalloc(rows, sizeof(uint64) * max);
			}
			rows[nrows++] = rownum;
		}
		else if (snapshot->snapshot_type != SNAPSHOT_MVCC)
		{
			/* a non-MVCC snapshot may see both versions of a row */
			if (nlive == maxlive)
			{
				maxlive = maxlive == 0 ? 64 : maxlive * 2;
				live = live == NULL ? palloc(sizeof(uint64) * maxlive) :
					repalloc(live, sizeof(uint64) * maxlive);
			}
			live[nlive++] = rownum;
		}
	}
	systable_endscan(scan);
	table_close(markrel, AccessShareLock);
	if (nrows == 0)
		return NULL;

	qsort(rows, nrows, sizeof(uint64), cmp_uint64);
	if (nlive > 0)
		qsort(live, nlive, sizeof(uint64), cmp_uint64);
	/* unique rows that no live original speaks for */
	for (i = 0, j = 0, k = 0; i < nrows; i++)
	{
		if (k > 0 && rows[k - 1] == rows[i])
			continue;
		while (j < nlive && live[j] < rows[i])
			j++;
		if (j < nlive && live[j] == rows[i])
			continue;
		rows[k++] = rows[i];
	}
	*n = k;
	return k > 0 ? rows : NULL;
}

bool
row_mark_successor(uint64 storage_id, uint64 rownum, Snapshot snapshot,
				   uint64 *successor)
{
	Relation	markrel = meta_table_open("row_mark", AccessShareLock);
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tuple;
	bool		found = false;
	uint64		s;

	scan = systable_beginscan(markrel, meta_table_relid("row_mark_key"), true,
							  snapshot, row_keys(keys, storage_id, rownum),
							  keys);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		if (tuple_successor(tuple, RelationGetDescr(markrel), &s) &&
			s != ROW_MARK_DELETED)
		{
			*successor = s;
			found = true;
		}
	}
	systable_endscan(scan);
	table_close(markrel, AccessShareLock);
	return found;
}

uint64 *
row_mark_dead_rows(uint64 storage_id, TransactionId oldest_xmin, int *n)
{
	Relation	markrel = meta_table_open("row_mark", AccessShareLock);
	Snapshot	snapshot = RegisterSnapshot(GetLatestSnapshot());
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	uint64	   *rows = NULL;
	int			nrows = 0;
	int			max = 0;
	uint64		successor;

	meta_storage_key(&key, Anum_row_mark_storage_id, storage_id);
	scan = systable_beginscan(markrel, meta_table_relid("row_mark_key"), true,
							  snapshot, 1, &key);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		bool		isnull;

		/* a tombstone every snapshot sees */
		if (!tuple_successor(tuple, RelationGetDescr(markrel), &successor) ||
			!TransactionIdPrecedes(HeapTupleHeaderGetXmin(tuple->t_data),
								   oldest_xmin))
			continue;
		if (nrows == max)
		{
			max = max == 0 ? 64 : max * 2;
			rows = rows == NULL ? palloc(sizeof(uint64) * max) :
				repalloc(rows, sizeof(uint64) * max);
		}
		rows[nrows++] = (uint64) DatumGetInt64(heap_getattr(tuple, Anum_row_mark_row_number,
															RelationGetDescr(markrel),
															&isnull));
	}
	systable_endscan(scan);
	UnregisterSnapshot(snapshot);
	table_close(markrel, AccessShareLock);
	if (nrows > 0)
		qsort(rows, nrows, sizeof(uint64), cmp_uint64);
	*n = nrows;
	return rows;
}

/* Is the mark a delete's or an update's tombstone? */
static bool
is_change(HeapTuple tuple, TupleDesc desc)
{
	uint64		successor;

	return tuple_successor(tuple, desc, &successor);
}

bool
row_mark_changes_settled(uint64 storage_id, TransactionId horizon)
{
	return meta_rows_settled("row_mark", "row_mark_key", storage_id, horizon,
							 is_change);
}

void
row_mark_delete_range(uint64 storage_id, uint64 first, uint64 last)
{
	Relation	markrel = meta_table_open("row_mark", RowExclusiveLock);
	ScanKeyData keys[3];
	SysScanDesc scan;
	HeapTuple	tuple;

	range_keys(keys, storage_id, first, last);
	scan = systable_beginscan(markrel, meta_table_relid("row_mark_key"), true,
							  SnapshotSelf, 3, keys);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
		CatalogTupleDelete(markrel, &tuple->t_self);
	systable_endscan(scan);
	table_close(markrel, RowExclusiveLock);
}

void
row_mark_delete_storage(uint64 storage_id)
{
	meta_delete_rows("row_mark", "row_mark_key", storage_id, -1);
}
