/*-------------------------------------------------------------------------
 *
 * row_marks.h
 *	  Row-level locks, deletes and updates of both access methods, as
 *	  marks in engine.row_mark (see sql/storage_engine.sql and
 *	  docs/architecture.md, "Row marks").
 *
 *	  Every function takes the storage id of the table's storage and a row
 *	  number; the table itself is needed only for the short lock that
 *	  serializes creating a row's first mark.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_ROW_MARKS_H
#define STORAGE_ENGINE_ROW_MARKS_H

#include "access/tableam.h"
#include "nodes/lockoptions.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

/* A tombstone's successor of a deleted row. */
#define ROW_MARK_DELETED	0

/*
 * A tombstone's successor of a row its own speculative insertion took back
 * (INSERT ... ON CONFLICT lost a race on a unique index): deleted, and
 * seen by no one even before its transaction ends, as heap's super-deleted
 * tuples are.  Otherwise two sessions inserting one key would each wait
 * for the other's transaction, whose row they both still saw: a deadlock.
 */
#define ROW_MARK_KILLED		PG_INT64_MAX

/*
 * A tombstone's successor of a row an UPDATE moved into another partition
 * (a delete with changingPart): a writer meeting it fails as on heap
 * ("already moved to another partition due to concurrent update") rather
 * than take the row for deleted and skip it.
 */
#define ROW_MARK_MOVED		(PG_INT64_MAX - 1)

/* Does a tombstone's successor name the row's new version? */
#define ROW_MARK_IS_ROW(successor) \
	((successor) != ROW_MARK_DELETED && (successor) != ROW_MARK_KILLED && \
	 (successor) != ROW_MARK_MOVED)

/*
 * Does snapshot see the row (as far as deletes and updates go)?  A
 * SnapshotDirty learns in xmax the transaction deleting it, if in
 * progress, as heap's visibility check would tell it.
 */
extern bool row_mark_visible(uint64 storage_id, uint64 rownum,
							 Snapshot snapshot);

/*
 * Row numbers in [first, last] that snapshot sees deleted, ascending, in
 * *n; NULL when there are none.
 */
extern uint64 *row_mark_deleted_rows(uint64 storage_id, uint64 first,
									 uint64 last, Snapshot snapshot, int *n);

/*
 * Locks the row in mode for the current transaction, with heap's waiting
 * rules.  For TM_Updated, *successor (and tmfd->ctid) name the row's new
 * version; for TM_Deleted, tmfd->ctid is the row's own TID.
 */
extern TM_Result row_mark_lock(Relation rel, uint64 storage_id, uint64 rownum,
							   CommandId cid, LockTupleMode mode,
							   LockWaitPolicy wait_policy,
							   TM_FailureData *tmfd, uint64 *successor);

/*
 * Ends the row's life: deleted (successor ROW_MARK_DELETED) or replaced by
 * row number successor.  lockmode is the row lock the change needs
 * (LockTupleExclusive when key columns change or the row goes, so that
 * FOR KEY SHARE lockers, such as foreign key checks, hold it off, also
 * those of the versions it replaced; otherwise an update goes through
 * them and links its new version to this one, see row_marks.c).
 * Results as row_mark_lock's.
 */
extern TM_Result row_mark_retire(Relation rel, uint64 storage_id,
								 uint64 rownum, uint64 successor,
								 CommandId cid, Snapshot crosscheck,
								 bool wait, LockTupleMode lockmode,
								 TM_FailureData *tmfd);

/* The successor of a row a committed transaction retired, or none. */
extern bool row_mark_successor(uint64 storage_id, uint64 rownum,
							   Snapshot snapshot, uint64 *successor);

/*
 * VACUUM: the rows whose delete or update committed before oldest_xmin
 * (no snapshot sees them any more), ascending, in *n; NULL when none.
 */
extern uint64 *row_mark_dead_rows(uint64 storage_id, TransactionId oldest_xmin,
								  int *n);

/*
 * Is the row dead to every snapshot running or yet to be taken: killed, or
 * retired by a transaction vistest says every snapshot sees as committed?
 * Index scans and unique checks then mark its index entries dead, and
 * index page cleanup removes them.
 */
extern bool row_mark_dead_to_all(uint64 storage_id, uint64 rownum,
								 struct GlobalVisState *vistest);

/*
 * Were the deletes and updates the latest snapshot sees all made by
 * transactions before horizon?  (Row locks do not count.)
 */
extern bool row_mark_changes_settled(uint64 storage_id, TransactionId horizon);

/* VACUUM: removes the marks of rows [first, last], whose stream is gone. */
extern void row_mark_delete_range(uint64 storage_id, uint64 first,
								  uint64 last);

/* Removes every mark of a storage (DROP, TRUNCATE). */
extern void row_mark_delete_storage(uint64 storage_id);

#endif							/* STORAGE_ENGINE_ROW_MARKS_H */
