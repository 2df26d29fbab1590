/*-------------------------------------------------------------------------
 *
 * storage_am.c
 *	  Storage lifecycle and table-AM glue shared by colcompress and
 *	  rowcompress (see storage_am.h).
 *
 *	  New storage (CREATE, TRUNCATE, rewrites) starts with no blocks: the
 *	  metapage, and with it a fresh storage id, appears on first write.
 *	  When storage is replaced or dropped, the metadata rows of the old
 *	  storage id are deleted in the same transaction, so a rollback
 *	  restores both.  UNLOGGED relations get an empty init fork; after a
 *	  crash the main fork is reset to it, and the next write creates a new
 *	  storage id that no leftover metadata row matches.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include <math.h>

#include "access/heapam.h"
#include "access/multixact.h"
#include "access/parallel.h"
#include "access/xact.h"
#include "catalog/pg_am.h"
#include "catalog/pg_publication.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/procarray.h"
#include "storage/smgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/tuplesort.h"

#include "catalog/free_space.h"
#include "catalog/row_marks.h"
#include "catalog/stream_runs.h"
#include "format/pending_writes.h"
#include "format/storage.h"
#include "format/storage_am.h"
#include "format/storage_rewrite.h"
#include "format/tid_blocks.h"

void
storage_am_refuse_if_published(const StorageAm *am, Relation rel)
{
	PublicationDesc pubdesc;

	RelationBuildPublicationDesc(rel, &pubdesc);
	if (pubdesc.pubactions.pubinsert)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot write to %s table \"%s\": it is in a publication",
						am->name, RelationGetRelationName(rel)),
				 errdetail("Logical decoding of %s tables is not supported.",
						   am->name),
				 errhint("Remove the table from the publication, or use a heap table.")));
}

/* Deletes the metadata of rel's current storage, if it has any. */
static void
forget_storage(const StorageAm *am, Relation rel)
{
	StorageMeta meta;

	if (!smgrexists(RelationGetSmgr(rel), MAIN_FORKNUM))
		return;
	if (storage_read_meta(rel, &meta))
	{
		am->delete_metadata(meta.storage_id);
		row_mark_delete_storage(meta.storage_id);
		free_space_delete_storage(meta.storage_id);
	}
}

void
storage_am_set_new_storage(Relation rel,
						   const CompatRelFileLocator *newlocator,
						   char persistence, TransactionId *freezeXid,
						   MultiXactId *minmulti)
{
	const StorageAm *am = storage_am_for(rel);
	SMgrRelation srel;

	/*
	 * replacing existing storage (TRUNCATE, rewrite): drop its metadata;
	 * rows buffered for it stay, for an abort that brings it back
	 */
	if (!CompatRelFileLocatorEquals(*newlocator, RelationPhysicalId(rel)))
		forget_storage(am, rel);

	/* its rows may come in parallel mode (CREATE TABLE AS) */
	storage_reserve_id(rel, CompatRelFileNumber(*newlocator));

	*freezeXid = RecentXmin;
	*minmulti = GetOldestMultiXactId();
	srel = RelationCreateStorage(*newlocator, persistence, true);
	if (persistence == RELPERSISTENCE_UNLOGGED)
		compat_create_init_fork(srel, newlocator);
	smgrclose(srel);
}

/*
 * A table rewrite (ALTER TABLE, REFRESH MATERIALIZED VIEW) fills a
 * transient table, made in this transaction and named pg_temp_<oid> by
 * make_new_heap, whose storage is then swapped into the table rewritten
 * before it is dropped: its buffered rows must be written now, or they
 * would go with it.  Other tables' rows wait, as any insert's do: COPY
 * calls this for every partition whose buffer it lets go (it keeps 32),
 * and writing them then made a stripe of a few rows each time (COPY into
 * 40 partitions: 18,000 stripes for 200,000 rows).
 */
void
storage_am_finish_bulk_insert(Relation rel, int options)
{
	if (rel->rd_createSubid != InvalidSubTransactionId &&
		strncmp(RelationGetRelationName(rel), "pg_temp_", 8) == 0)
		pending_flush_for_read(rel);
}

bool
storage_am_needs_toast_table(Relation rel)
{
	return false;
}

Oid
storage_am_toast_am(Relation rel)
{
	return InvalidOid;
}

void
storage_am_nontransactional_truncate(Relation rel)
{
	pending_forget(rel);
	forget_storage(storage_am_for(rel), rel);
	RelationTruncate(rel, 0);
}

void
storage_am_copy_data(Relation rel, const CompatRelFileLocator *newlocator)
{
	SMgrRelation dstrel;
	ForkNumber	fork;

	/* the storage id travels with the metapage: metadata stays valid */
	FlushRelationBuffers(rel);
	dstrel = RelationCreateStorage(*newlocator, rel->rd_rel->relpersistence, true);
	RelationCopyStorage(RelationGetSmgr(rel), dstrel, MAIN_FORKNUM,
						rel->rd_rel->relpersistence);
	for (fork = MAIN_FORKNUM + 1; fork <= MAX_FORKNUM; fork++)
	{
		if (smgrexists(RelationGetSmgr(rel), fork))
		{
			smgrcreate(dstrel, fork, false);
			if (RelationIsPermanent(rel) ||
				(rel->rd_rel->relpersistence == RELPERSISTENCE_UNLOGGED &&
				 fork == INIT_FORKNUM))
				log_smgrcreate(newlocator, fork);
			RelationCopyStorage(RelationGetSmgr(rel), dstrel, fork,
								rel->rd_rel->relpersistence);
		}
	}
	RelationDropStorage(rel);
	smgrclose(dstrel);
}

/* Is the utility statement running a VACUUM FULL or CLUSTER by itself? */
static bool rewrite_alone = false;

void
storage_am_utility_starts(Node *parsetree, ProcessUtilityContext context)
{
	rewrite_alone = context == PROCESS_UTILITY_TOPLEVEL &&
		!IsTransactionBlock() &&
		(IsA(parsetree, VacuumStmt) || IsA(parsetree, ClusterStmt));
}

/*
 * Is the copy of OldTable exactly what every snapshot still running sees
 * (storage_rewrite.c)?  When everything in the old storage that decides
 * which rows exist was written before OldestXmin, which those snapshots
 * all see, and the transaction writes nothing else: the copy's metadata
 * rows carry its xid, which a snapshot made to see it sees whole.
 */
static bool
copy_seen_by_all(Relation OldTable, TransactionId OldestXmin)
{
	StorageMeta meta;

	if (!rewrite_alone)
		return false;
	if (!storage_read_meta(OldTable, &meta))
		return true;
	return stream_runs_settled(meta.storage_id, OldestXmin) &&
		row_mark_changes_settled(meta.storage_id, OldestXmin) &&
		free_space_retired_settled(meta.storage_id, OldestXmin);
}

/*
 * VACUUM FULL and CLUSTER: rewrite every visible row into the new storage.
 * The old storage's metadata goes when the old files are dropped.  The new
 * metapage records the rewrite, for snapshots that do not see it
 * (storage_rewrite.c).
 *
 * CLUSTER writes the rows in the index's order: through a sort on the
 * index keys for a btree (which is also far cheaper for us than fetching
 * row by row, so it is used whatever the planner's use_sort says), through
 * an index scan for the other kinds that can order (GiST).  A colcompress
 * writer then keeps that order instead of sorting stripes by orderby.
 */
void
storage_am_copy_for_cluster(Relation OldTable, Relation NewTable,
							Relation OldIndex, bool use_sort,
							TransactionId OldestXmin,
							TransactionId *xid_cutoff,
							MultiXactId *multi_cutoff, double *num_tuples,
							double *tups_vacuumed, double *tups_recently_dead)
{
	const StorageAm *am = storage_am_for(OldTable);

	/*
	 * Taken now, holding the table's exclusive lock: VACUUM FULL's and
	 * CLUSTER's own snapshots were taken before they waited for it, and
	 * missed the rows of every transaction that committed meanwhile (rows
	 * lost; heap's copy judges each tuple by OldestXmin instead).
	 */
	Snapshot	snapshot = RegisterSnapshot(GetLatestSnapshot());
	TupleTableSlot *slot;
	void	   *writer;
	CommandId	cid = GetCurrentCommandId(true);
	bool		seen_by_all = copy_seen_by_all(OldTable, OldestXmin);

	*num_tuples = 0;
	*tups_vacuumed = 0;
	*tups_recently_dead = 0;
	*xid_cutoff = RecentXmin;
	*multi_cutoff = GetOldestMultiXactId();

	slot = table_slot_create(OldTable, NULL);
	writer = pending_writer(NewTable, am->writer_ops);
	if (OldIndex != NULL && am->keep_insert_order != NULL)
		am->keep_insert_order(writer);

	if (OldIndex != NULL && OldIndex->rd_rel->relam == BTREE_AM_OID)
	{
		Tuplesortstate *sort = tuplesort_begin_cluster(RelationGetDescr(OldTable),
													   OldIndex,
													   maintenance_work_mem,
													   NULL, TUPLESORT_NONE);
		TableScanDesc scan = table_beginscan(OldTable, snapshot, 0, NULL);
		HeapTuple	tuple;

		while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
		{
			bool		should_free;

			CHECK_FOR_INTERRUPTS();
			tuple = ExecFetchSlotHeapTuple(slot, true, &should_free);
			tuplesort_putheaptuple(sort, tuple);
			if (should_free)
				heap_freetuple(tuple);
		}
		table_endscan(scan);
		tuplesort_performsort(sort);
		while ((tuple = tuplesort_getheaptuple(sort, true)) != NULL)
		{
			CHECK_FOR_INTERRUPTS();
			ExecForceStoreHeapTuple(tuple, slot, false);
			am->insert(writer, NewTable, slot, cid);
			*num_tuples += 1;
		}
		tuplesort_end(sort);
	}
	else if (OldIndex != NULL)
	{
		IndexScanDesc scan = compat_index_beginscan(OldTable, OldIndex,
													snapshot, 0, 0);

		index_rescan(scan, NULL, 0, NULL, 0);
		while (index_getnext_slot(scan, ForwardScanDirection, slot))
		{
			CHECK_FOR_INTERRUPTS();
			am->insert(writer, NewTable, slot, cid);
			*num_tuples += 1;
		}
		index_endscan(scan);
	}
	else
	{
		TableScanDesc scan = table_beginscan(OldTable, snapshot, 0, NULL);

		while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
		{
			CHECK_FOR_INTERRUPTS();
			am->insert(writer, NewTable, slot, cid);
			*num_tuples += 1;
		}
		table_endscan(scan);
	}
	ExecDropSingleTupleTableSlot(slot);
	UnregisterSnapshot(snapshot);
	pending_writer_flush(am->writer_ops, writer, NewTable);
	storage_set_rewrite(NewTable, GetCurrentTransactionId(),
						seen_by_all ? OldestXmin : InvalidTransactionId);
}

/*
 * Utility statements that may build an index: CREATE INDEX, REINDEX, and
 * those that rebuild a table's indexes or add constraints that have one
 * (ALTER TABLE, CLUSTER, VACUUM FULL, REFRESH MATERIALIZED VIEW).
 */
bool
statement_may_build_index(Node *parsetree)
{
	switch (nodeTag(parsetree))
	{
		case T_IndexStmt:
		case T_ReindexStmt:
		case T_AlterTableStmt:
		case T_ClusterStmt:
		case T_VacuumStmt:
		case T_RefreshMatViewStmt:
			return true;
		default:
			return false;
	}
}

StorageIndexKinds
storage_index_kinds(Relation rel)
{
	StorageIndexKinds kinds = {false, false, false};
	List	   *indexes;
	ListCell   *lc;

	if (!rel->rd_rel->relhasindex)
		return kinds;
	indexes = RelationGetIndexList(rel);
	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), AccessShareLock);

		kinds.unique |= index->rd_index->indisunique;
		kinds.exclusion |= index->rd_index->indisexclusion;
		kinds.brin |= index->rd_rel->relam == BRIN_AM_OID;
		index_close(index, AccessShareLock);
	}
	list_free(indexes);
	return kinds;
}

uint64
storage_am_write_stream(Relation rel, uint64 storage_id, const char *data,
						uint64 len, uint64 *stream_num)
{
	uint64		first = STORAGE_NEW_BLOCKS;

	/*
	 * Free extents are looked up with a fresh snapshot, which parallel mode
	 * refuses; the only writes in it are the leader's into a table its
	 * statement just made (CREATE TABLE AS), which has none.
	 */
	if (!IsInParallelMode() &&
		!free_space_take(storage_id, storage_stream_blocks(len), &first))
		first = STORAGE_NEW_BLOCKS;
	first = storage_write_stream(rel, first, data, len, stream_num);
	if (storage_index_kinds(rel).brin)
		tid_blocks_cover(rel, storage_id);
	return first;
}

/*
 * The planner's size estimate.  Like heap's, it scales the rows per block
 * that the last VACUUM or ANALYZE counted to the blocks the table has now:
 * counting the rows exactly reads every stripe's or batch's metadata, at
 * every planning of every query (a lookup of one row in a table of a
 * hundred thousand batches would plan longer than it runs).  A table
 * never counted yet, or counted empty, is counted now: it is usually small
 * or just loaded, and a density of zero would plan it as empty for good.
 */
void
storage_am_estimate_size(Relation rel, int32 *attr_widths,
						 BlockNumber *pages, double *tuples,
						 double *allvisfrac)
{
	const StorageAm *am = storage_am_for(rel);
	BlockNumber relpages = rel->rd_rel->relpages;
	double		reltuples = rel->rd_rel->reltuples;

	*pages = RelationGetNumberOfBlocks(rel);
	*allvisfrac = 0;
	/* rows per data block: the metapage would skew a table of a few blocks */
	if (relpages > STORAGE_FIRST_DATA_BLOCK && reltuples > 0 &&
		*pages > STORAGE_FIRST_DATA_BLOCK)
		*tuples = rint(reltuples / (double) (relpages - STORAGE_FIRST_DATA_BLOCK) *
					   (double) (*pages - STORAGE_FIRST_DATA_BLOCK));
	else
	{
		Snapshot	snapshot = RegisterSnapshot(GetLatestSnapshot());
		MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
												  "storage_engine row count",
												  ALLOCSET_DEFAULT_SIZES);
		MemoryContext old = MemoryContextSwitchTo(cxt);

		/* the planner's context would keep the stream list to the end */
		*tuples = (double) am->count_rows(rel, snapshot);
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		UnregisterSnapshot(snapshot);
	}
	/* rows this transaction loaded and buffers (COPY, CREATE TABLE AS) */
	*tuples += (double) pending_row_count(rel);
}

void
storage_am_scan_init(TableScanDesc scan, Relation rel, Snapshot snapshot,
					 int nkeys, struct ScanKeyData *key,
					 ParallelTableScanDesc pscan, uint32 flags)
{
	/* parallel workers have no buffered rows, and may not write */
	if (!IsParallelWorker())
		pending_flush_for_read(rel);

	/*
	 * A parallel CREATE INDEX scans with SnapshotAny, for heap to judge each
	 * tuple with HeapTupleSatisfiesVacuum.  Our metadata read so would list
	 * streams whose writers aborted, and a write an aborted subtransaction
	 * made of rows that were then written again (pending_writes.c) put those
	 * rows in the index twice.  What a serial build reads, SnapshotSelf
	 * (storage_index_build_range_scan), is what the parallel one needs; the
	 * build's ShareLock keeps it the same list for every participant.
	 */
	if (snapshot != NULL && snapshot->snapshot_type == SNAPSHOT_ANY)
		snapshot = SnapshotSelf;

	scan->rs_rd = rel;
	scan->rs_snapshot = snapshot;
	scan->rs_nkeys = nkeys;
	scan->rs_key = key;
	scan->rs_flags = flags;
	scan->rs_parallel = pscan;
}

void
storage_am_relation_dropped(const StorageAm *am, Relation rel)
{
	forget_storage(am, rel);
}

void
storage_am_analyze_units(BlockNumber block, BlockNumber nblocks, int64 nunits,
						 int64 *first, int64 *end)
{
	*first = *end = 0;
	if (nblocks == 0 || nunits == 0)
		return;
	*first = (int64) ((double) block * nunits / nblocks);
	*end = (int64) ((double) (block + 1) * nunits / nblocks);
	*end = Min(*end, nunits);
}
