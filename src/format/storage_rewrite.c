/*-------------------------------------------------------------------------
 *
 * storage_rewrite.c
 *	  Snapshots older than a VACUUM FULL or CLUSTER of the table they read.
 *
 *	  Heap's rewrite copies every tuple with its xmin and xmax, so a snapshot
 *	  taken before the rewrite committed still sees in the new files what it
 *	  saw in the old ones.  Ours copies the rows its own snapshot sees into
 *	  new storage, whose metadata rows (which alone say which rows exist) its
 *	  transaction writes: a snapshot that does not see that transaction
 *	  would find the table empty, and an UPDATE under it would change
 *	  nothing, silently.
 *
 *	  So the rewrite records in the new metapage its xid and, when its copy
 *	  is exactly what every snapshot still running saw, its horizon (its
 *	  OldestXmin, which every such snapshot's xmin follows): when every
 *	  metadata row of the old storage that decides which rows exist (stream
 *	  runs, delete and update marks, retirements) was written by a
 *	  transaction before the horizon, which they all see, and the rewrite
 *	  is its transaction's only statement (storage_am.c).  A snapshot that
 *	  does not see the rewrite then reads the storage's metadata with a copy
 *	  of itself that sees the rewrite's transaction too and nothing else it
 *	  did not see: the copy is what it saw.  Without a horizon the copy may
 *	  differ from what it saw (rows deleted, inserted or updated by
 *	  transactions it does not see), and reading raises a serialization
 *	  failure instead of answering from the wrong rows; so does a snapshot
 *	  older than the horizon (a hot standby's, which the primary's horizon
 *	  does not hold back without hot_standby_feedback).
 *
 *	  A metapage is read before any metadata row of its storage; each read
 *	  notes a rewrite here by storage id (never reused) for the backend's
 *	  life, until the table's relfrozenxid passes it: every snapshot sees it
 *	  then (a hot standby's older ones are canceled first, storage_vacuum.c).  The adjusted snapshots live in TopTransactionContext, a few
 *	  kept for the transaction's later reads with the same snapshot.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/transam.h"
#include "access/xact.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "format/snapshots.h"
#include "format/storage_rewrite.h"

typedef struct Rewrite
{
	uint64		storage_id;
	TransactionId xid;
	TransactionId horizon;		/* invalid: the copy is not what they saw */
	Oid			relid;			/* for errors */
} Rewrite;

static Rewrite *rewrites = NULL;
static int	nrewrites = 0;
static int	maxrewrites = 0;

/*
 * A snapshot that must see a rewrite's xid may have been taken long before
 * it: every xid assigned between them goes into its array of running ones.
 * Past this many, the reader gets a serialization failure instead.
 */
#define REWRITE_MAX_XID_GAP		(1024 * 1024)

/* Adjusted snapshots kept per transaction */
#define SEEING_CACHE_SIZE		8

typedef struct Seeing
{
	Snapshot	original;		/* a copy of the snapshot asked for */
	TransactionId xid;
	Snapshot	seeing;			/* it, seeing xid */
} Seeing;

static Seeing seeing_cache[SEEING_CACHE_SIZE];
static int	nseeing = 0;
static bool seeing_callback_registered = false;

static Rewrite *
find_rewrite(uint64 storage_id)
{
	int			i;

	for (i = 0; i < nrewrites; i++)
		if (rewrites[i].storage_id == storage_id)
			return &rewrites[i];
	return NULL;
}

void
storage_rewrite_note(Relation rel, const StorageMeta *meta)
{
	Rewrite    *r = nrewrites > 0 ? find_rewrite(meta->storage_id) : NULL;
	bool		current = TransactionIdIsNormal(meta->rewrite_xid) &&
		!TransactionIdPrecedes(meta->rewrite_xid, rel->rd_rel->relfrozenxid);

	if (r != NULL && !current)
	{
		/* every snapshot sees it now: forget it */
		*r = rewrites[--nrewrites];
		return;
	}
	if (r != NULL || !current)
		return;
	if (nrewrites == maxrewrites)
	{
		maxrewrites = maxrewrites == 0 ? 8 : maxrewrites * 2;
		rewrites = rewrites == NULL ?
			MemoryContextAlloc(TopMemoryContext, sizeof(Rewrite) * maxrewrites) :
			repalloc(rewrites, sizeof(Rewrite) * maxrewrites);
	}
	r = &rewrites[nrewrites++];
	r->storage_id = meta->storage_id;
	r->xid = meta->rewrite_xid;
	r->horizon = meta->rewrite_horizon;
	r->relid = RelationGetRelid(rel);
}

static void
forget_seeing(XactEvent event, void *arg)
{
	/* the snapshots were in TopTransactionContext */
	nseeing = 0;
}

static void
rewritten_since(const Rewrite *r, const char *detail)
{
	char	   *name = get_rel_name(r->relid);

	ereport(ERROR,
			(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
			 errmsg("could not serialize access due to concurrent rewrite of table \"%s\"",
					name != NULL ? name : "?"),
			 errdetail_internal("VACUUM FULL or CLUSTER rewrote the table after this transaction's snapshot was taken, %s.",
								detail),
			 errhint("Retry the transaction.")));
}

/*
 * A copy of snapshot that also sees xid, which it takes for running or
 * later, in TopTransactionContext.  A snapshot taken in recovery keeps
 * every running xid in subxip (XidInMVCCSnapshot), others in xip.  xid is
 * a top-level xid: a rewrite outside a transaction block.
 */
static Snapshot
snapshot_seeing(Snapshot snapshot, TransactionId xid, const Rewrite *r)
{
	MemoryContext old = MemoryContextSwitchTo(TopTransactionContext);
	Snapshot	s = palloc(sizeof(SnapshotData));
	bool		recovery = snapshot->takenDuringRecovery;
	const TransactionId *from = recovery ? snapshot->subxip : snapshot->xip;
	uint32		n = recovery ? snapshot->subxcnt : snapshot->xcnt;
	bool		beyond = !TransactionIdPrecedes(xid, snapshot->xmax);
	uint32		gap = 0;
	uint32		count = 0;
	TransactionId *xids;
	TransactionId x;
	uint32		i;

	/* the xids from its xmax to xid, which it did not see either */
	x = snapshot->xmax;
	while (beyond && x != xid)
	{
		if (++gap > REWRITE_MAX_XID_GAP)
			rewritten_since(r, "too many transactions later");
		TransactionIdAdvance(x);
	}
	xids = palloc(sizeof(TransactionId) * Max(n + gap, 1));
	for (i = 0; i < n; i++)
		if (from[i] != xid)
			xids[count++] = from[i];
	x = snapshot->xmax;
	for (i = 0; i < gap; i++)
	{
		xids[count++] = x;
		TransactionIdAdvance(x);
	}

	memcpy(s, snapshot, sizeof(SnapshotData));
	if (recovery)
	{
		s->subxip = xids;
		s->subxcnt = (int32) count;
	}
	else
	{
		s->xip = xids;
		s->xcnt = count;
	}
	if (beyond)
	{
		s->xmax = xid;
		TransactionIdAdvance(s->xmax);
	}
	s->copied = true;
	s->regd_count = 0;
	s->active_count = 0;

	/* kept, with a copy of what was asked for to compare with */
	if (nseeing < SEEING_CACHE_SIZE)
	{
		Seeing	   *c = &seeing_cache[nseeing++];

		c->original = snapshot_copy_deep(snapshot, TopTransactionContext);
		c->xid = xid;
		c->seeing = s;
		if (!seeing_callback_registered)
		{
			RegisterXactCallback(forget_seeing, NULL);
			seeing_callback_registered = true;
		}
	}
	MemoryContextSwitchTo(old);
	return s;
}

Snapshot
storage_rewrite_snapshot(Snapshot snapshot, uint64 storage_id)
{
	Rewrite    *r;
	int			i;

	if (nrewrites == 0 || snapshot == NULL ||
		snapshot->snapshot_type != SNAPSHOT_MVCC ||
		(r = find_rewrite(storage_id)) == NULL ||
		!XidInMVCCSnapshot(r->xid, snapshot) ||
		TransactionIdIsCurrentTransactionId(r->xid) ||
		!TransactionIdDidCommit(r->xid))
		return snapshot;
	if (!TransactionIdIsNormal(r->horizon))
		rewritten_since(r, "when transactions the snapshot does not see had changed it");
	/* older than the rewrite knew of: a hot standby's, without feedback */
	if (TransactionIdPrecedes(snapshot->xmin, r->horizon))
		rewritten_since(r, "when it was older than every snapshot the rewrite knew of");
	for (i = 0; i < nseeing; i++)
		if (seeing_cache[i].xid == r->xid &&
			snapshot_same_view(seeing_cache[i].original, snapshot))
			return seeing_cache[i].seeing;
	return snapshot_seeing(snapshot, r->xid, r);
}
