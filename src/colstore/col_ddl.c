/*-------------------------------------------------------------------------
 *
 * col_ddl.c
 *	  Storage lifecycle of colcompress relations.
 *
 *	  New storage (CREATE, TRUNCATE, rewrites) starts with no blocks: the
 *	  metapage, and with it a fresh storage id, appears on first write.
 *	  When storage is replaced or dropped, the metadata rows of the old
 *	  storage id are deleted in the same transaction, so a rollback
 *	  restores both.  UNLOGGED relations get an empty init fork; after a
 *	  crash the main fork is reset to it, and the next write creates a new
 *	  storage id that no leftover metadata row matches.
 *
 *	  The data holds no transaction ids (visibility lives in the metadata
 *	  rows, which VACUUM of those tables takes care of), so VACUUM can
 *	  always advance relfrozenxid to the oldest xmin still running.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/multixact.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/procarray.h"
#include "storage/smgr.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "catalog/stripe_meta.h"
#include "colstore/col_ddl.h"
#include "colstore/col_reader.h"
#include "colstore/col_scan.h"
#include "colstore/col_writer.h"
#include "format/pending_writes.h"
#include "format/storage.h"

/* Deletes the metadata of rel's current storage, if it has any. */
static void
forget_storage(Relation rel)
{
	StorageMeta meta;

	if (!smgrexists(RelationGetSmgr(rel), MAIN_FORKNUM))
		return;
	if (storage_read_meta(rel, &meta))
		stripe_meta_delete_storage(meta.storage_id);
}

void
col_set_new_storage(Relation rel, const CompatRelFileLocator *newlocator,
					char persistence, TransactionId *freezeXid,
					MultiXactId *minmulti)
{
	SMgrRelation srel;

	/* replacing existing storage (TRUNCATE, rewrite): drop its metadata */
	if (!CompatRelFileLocatorEquals(*newlocator, RelationPhysicalId(rel)))
	{
		pending_forget(RelationGetRelid(rel));
		forget_storage(rel);
	}

	*freezeXid = RecentXmin;
	*minmulti = GetOldestMultiXactId();
	srel = RelationCreateStorage(*newlocator, persistence, true);
	if (persistence == RELPERSISTENCE_UNLOGGED)
		compat_create_init_fork(srel, newlocator);
	smgrclose(srel);
}

void
col_nontransactional_truncate(Relation rel)
{
	pending_forget(RelationGetRelid(rel));
	forget_storage(rel);
	RelationTruncate(rel, 0);
}

void
col_copy_data(Relation rel, const CompatRelFileLocator *newlocator)
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

/*
 * VACUUM FULL and CLUSTER: rewrite every visible row into the new storage.
 * The old storage's metadata goes when the old files are dropped.
 */
void
col_copy_for_cluster(Relation OldTable, Relation NewTable, Relation OldIndex,
					 bool use_sort, TransactionId OldestXmin,
					 TransactionId *xid_cutoff, MultiXactId *multi_cutoff,
					 double *num_tuples, double *tups_vacuumed,
					 double *tups_recently_dead)
{
	TupleTableSlot *slot;
	TableScanDesc scan;
	ColWriter  *writer;
	CommandId	cid = GetCurrentCommandId(true);

	if (OldIndex != NULL || use_sort)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("CLUSTER is not supported on colcompress table \"%s\"",
						RelationGetRelationName(OldTable)),
				 errhint("Use VACUUM FULL, or the orderby option with engine.colcompress_merge().")));

	*num_tuples = 0;
	*tups_vacuumed = 0;
	*tups_recently_dead = 0;
	*xid_cutoff = RecentXmin;
	*multi_cutoff = GetOldestMultiXactId();

	slot = table_slot_create(OldTable, NULL);
	scan = table_beginscan(OldTable, GetActiveSnapshot(), 0, NULL);
	writer = col_writer_for(NewTable);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		CHECK_FOR_INTERRUPTS();
		col_writer_insert(writer, NewTable, slot, cid);
		*num_tuples += 1;
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	col_writer_flush(writer, NewTable);
}

void
col_vacuum(Relation rel, struct VacuumParams *params,
		   BufferAccessStrategy bstrategy)
{
	BlockNumber pages = RelationGetNumberOfBlocks(rel);
	double		tuples = (double) col_count_rows(rel, GetActiveSnapshot());
	List	   *indexes = RelationGetIndexList(rel);

	compat_vac_update_relstats(rel, pages, tuples, 0, indexes != NIL,
							   GetOldestNonRemovableTransactionId(rel),
							   GetOldestMultiXactId());
	compat_pgstat_report_vacuum(RelationGetRelid(rel), rel->rd_rel->relisshared,
								(PgStat_Counter) tuples, 0);
}

void
col_estimate_size(Relation rel, int32 *attr_widths, BlockNumber *pages,
				  double *tuples, double *allvisfrac)
{
	Snapshot	snapshot = RegisterSnapshot(GetLatestSnapshot());

	*pages = RelationGetNumberOfBlocks(rel);
	*tuples = (double) col_count_rows(rel, snapshot);
	*allvisfrac = 0;
	UnregisterSnapshot(snapshot);
}

void
col_relation_dropped(Relation rel)
{
	pending_forget(RelationGetRelid(rel));
	forget_storage(rel);
}
