/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  Every difference between the PostgreSQL major versions we build
 *	  against (15 and 18) lives here, so that the rest of the tree is
 *	  written against one API.
 *
 *	  Rule: code outside this header never tests PG_VERSION_NUM.  When a
 *	  new major version changes an API, add a shim here, named after the
 *	  newest spelling of the API.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COMPAT_H
#define STORAGE_ENGINE_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 190000
#error "storage_engine supports PostgreSQL 15 to 18"
#endif

/* The varlena macros (frontend-safe, see compat_varatt.h). */
#include "compat/compat_varatt.h"

/* PostgreSQL 16 declares _PG_init centrally in fmgr.h. */
#if PG_VERSION_NUM < 160000
extern PGDLLEXPORT void _PG_init(void);
#endif


#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/rel.h"

/*
 * Physical relation identity: RelFileNode became RelFileLocator in 16.
 */
#if PG_VERSION_NUM >= 160000
#include "storage/relfilelocator.h"
#define RelationPhysicalId(rel) ((rel)->rd_locator)
#define RelFileNumberOf(rel) ((rel)->rd_locator.relNumber)
#define CompatRelFileNumber(locator) ((locator).relNumber)
typedef RelFileLocator CompatRelFileLocator;
#else
#include "storage/relfilenode.h"
#define RelationPhysicalId(rel) ((rel)->rd_node)
#define RelFileNumberOf(rel) ((rel)->rd_node.relNode)
#define CompatRelFileNumber(locator) ((locator).relNode)
typedef RelFileNode CompatRelFileLocator;
typedef Oid RelFileNumber;
#endif

/*
 * btree's REUSE_PAGE record, whose redo does nothing but resolve a recovery
 * conflict (format/storage.c, storage_log_reuse_conflict): its fields were
 * renamed in 16, which also added isCatalogRel.
 */
#include "access/nbtxlog.h"

static inline void
compat_reuse_page_record(xl_btree_reuse_page *xlrec, Relation rel,
						 BlockNumber block, FullTransactionId horizon)
{
	memset(xlrec, 0, sizeof(*xlrec));
#if PG_VERSION_NUM >= 160000
	xlrec->locator = rel->rd_locator;
	xlrec->snapshotConflictHorizon = horizon;
	xlrec->isCatalogRel = false;
#else
	xlrec->node = rel->rd_node;
	xlrec->latestRemovedFullXid = horizon;
#endif
	xlrec->block = block;
}

/*
 * Grow the main fork to at least nblocks blocks of zeroed pages.  Callers
 * reserve block ranges first (under the metapage lock), so concurrent
 * writers only ever extend, never overwrite, each other's pages.
 */
static inline void
compat_extend_main_fork_to(Relation rel, BlockNumber nblocks)
{
#if PG_VERSION_NUM >= 160000
	if (RelationGetNumberOfBlocks(rel) < nblocks)
		ReleaseBuffer(ExtendBufferedRelTo(BMR_REL(rel), MAIN_FORKNUM, NULL,
										  EB_CLEAR_SIZE_CACHE, nblocks,
										  RBM_NORMAL));
#else
	LockRelationForExtension(rel, ExclusiveLock);
	while (RelationGetNumberOfBlocks(rel) < nblocks)
		ReleaseBuffer(ReadBufferExtended(rel, MAIN_FORKNUM, P_NEW,
										 RBM_NORMAL, NULL));
	UnlockRelationForExtension(rel, ExclusiveLock);
#endif
}

/*
 * Table access method callbacks whose signatures changed.
 */
#if PG_VERSION_NUM >= 160000
#define COMPAT_TAM_SET_NEW_STORAGE relation_set_new_filelocator
#define COMPAT_TU_ALL TU_All
#else
#define COMPAT_TAM_SET_NEW_STORAGE relation_set_new_filenode
typedef bool TU_UpdateIndexes;
#define COMPAT_TU_ALL true
#endif

/*
 * Bitmap heap scans: up to 17 the executor iterates the bitmap and hands
 * the AM one block at a time (scan_bitmap_next_block/_tuple); from 18 on
 * the AM iterates scan->st.rs_tbmiterator itself in scan_bitmap_next_tuple.
 */
#if PG_VERSION_NUM >= 180000
#define COMPAT_TAM_BITMAP_ITERATES 1
#endif

/*
 * A custom scan chooses its scan slot's kind from 16 on; before, the slot
 * is virtual (rows stored in it are deformed whole).
 */
#if PG_VERSION_NUM >= 160000
#define compat_custom_scan_slot_ops(css, ops) ((css)->slotOps = (ops))
#else
#define compat_custom_scan_slot_ops(css, ops) ((void) (ops))
#endif

/* index_beginscan took instrumentation from 18 on. */
#include "access/genam.h"
#if PG_VERSION_NUM >= 180000
#define compat_index_beginscan(heap, index, snapshot, nkeys, norderbys) \
	index_beginscan((heap), (index), (snapshot), NULL, (nkeys), (norderbys))
#else
#define compat_index_beginscan(heap, index, snapshot, nkeys, norderbys) \
	index_beginscan((heap), (index), (snapshot), (nkeys), (norderbys))
#endif

/* tuplesort_getdatum gained a "copy" argument in 16. */
#include "utils/tuplesort.h"
#if PG_VERSION_NUM >= 160000
#define compat_tuplesort_getdatum(state, val, isnull) \
	tuplesort_getdatum((state), true, false, (val), (isnull), NULL)
#else
#define compat_tuplesort_getdatum(state, val, isnull) \
	tuplesort_getdatum((state), true, (val), (isnull), NULL)
#endif

/* heap_update reports which indexes need new entries from 16 on. */
#if PG_VERSION_NUM >= 160000
#define compat_heap_update(rel, otid, tup, cid, crosscheck, wait, tmfd, lockmode) \
	heap_update((rel), (otid), (tup), (cid), (crosscheck), (wait), (tmfd), (lockmode), \
				&(TU_UpdateIndexes) {TU_None})
#else
#define compat_heap_update(rel, otid, tup, cid, crosscheck, wait, tmfd, lockmode) \
	heap_update((rel), (otid), (tup), (cid), (crosscheck), (wait), (tmfd), (lockmode))
#endif

/*
 * ANALYZE hands the AM a block to sample: as a number up to 16, through a
 * read stream from 17 on.  COMPAT_ANALYZE_BLOCK_ARGS declares the
 * callback's parameters after the scan; compat_analyze_block() yields the
 * block number, false when the sample is exhausted.
 */
#if PG_VERSION_NUM >= 170000
#include "storage/read_stream.h"
#define COMPAT_ANALYZE_BLOCK_ARGS ReadStream *compat_stream
#define compat_analyze_block(blockp) compat_read_stream_block(compat_stream, (blockp))
static inline bool
compat_read_stream_block(ReadStream *stream, BlockNumber *block)
{
	Buffer		buf = read_stream_next_buffer(stream, NULL);

	if (!BufferIsValid(buf))
		return false;
	*block = BufferGetBlockNumber(buf);
	ReleaseBuffer(buf);
	return true;
}
#else
#define COMPAT_ANALYZE_BLOCK_ARGS BlockNumber compat_blockno, BufferAccessStrategy compat_bstrategy
#define compat_analyze_block(blockp) (*(blockp) = compat_blockno, true)
#endif

/*
 * From 17 on, an index AM may keep state across inserts of a statement
 * (BRIN keeps its revmap pinned) until index_insert_cleanup().
 */
#if PG_VERSION_NUM >= 170000
#define compat_index_insert_cleanup(index, info) index_insert_cleanup((index), (info))
#else
#define compat_index_insert_cleanup(index, info) ((void) 0)
#endif

/*
 * From 17 on, foreign key checks ask a slot whether the current
 * transaction created its row (slot_is_current_xact_tuple); before, they
 * read its xmin.  compat_slot_ops_is_current sets that callback, if any.
 */
#if PG_VERSION_NUM >= 170000
#define compat_slot_ops_is_current(ops, fn) ((ops)->is_current_xact_tuple = (fn))
#else
#define compat_slot_ops_is_current(ops, fn) ((void) (fn))
#endif

/* vac_update_relstats gained num_all_frozen_pages in 18. */
#if PG_VERSION_NUM >= 180000
#define compat_vac_update_relstats(rel, pages, tuples, visible, hasindex, frozenxid, minmulti) \
	vac_update_relstats((rel), (pages), (tuples), (visible), 0, (hasindex), (frozenxid), (minmulti), NULL, NULL, false)
#else
#define compat_vac_update_relstats(rel, pages, tuples, visible, hasindex, frozenxid, minmulti) \
	vac_update_relstats((rel), (pages), (tuples), (visible), (hasindex), (frozenxid), (minmulti), NULL, NULL, false)
#endif

/* IndexVacuumInfo names the table from 16 on. */
#if PG_VERSION_NUM >= 160000
#define COMPAT_IVINFO_SET_HEAPREL(ivinfo, rel) ((ivinfo)->heaprel = (rel))
#else
#define COMPAT_IVINFO_SET_HEAPREL(ivinfo, rel) ((void) (rel))
#endif

/* Creating the init fork of an unlogged relation: 17 dropped the sync. */
#include "catalog/storage.h"
#include "catalog/storage_xlog.h"
#include "storage/smgr.h"
static inline void
compat_create_init_fork(SMgrRelation srel, const CompatRelFileLocator *locator)
{
	smgrcreate(srel, INIT_FORKNUM, false);
	log_smgrcreate(locator, INIT_FORKNUM);
#if PG_VERSION_NUM < 170000
	smgrimmedsync(srel, INIT_FORKNUM);
#endif
}

#if PG_VERSION_NUM >= 160000
#define CompatRelFileLocatorEquals(a, b) RelFileLocatorEquals((a), (b))
#else
#define CompatRelFileLocatorEquals(a, b) RelFileNodeEquals((a), (b))
#endif

/*
 * PostgreSQL 18 counts a path's disabled nodes (enable_* = off) apart from
 * its cost, where earlier versions add disable_cost: a path wrapping
 * another must carry the count, and one standing in for a disabled kind of
 * scan is disabled the version's way.
 */
#if PG_VERSION_NUM >= 180000
#define compat_path_copy_disabled(dst, src) ((dst)->disabled_nodes = (src)->disabled_nodes)
#define compat_path_disable_unless(path, enabled) \
	((path)->disabled_nodes += (enabled) ? 0 : 1)
#else
#define compat_path_copy_disabled(dst, src) ((void) 0)
#define compat_path_disable_unless(path, enabled) \
	do { \
		if (!(enabled)) \
		{ \
			(path)->startup_cost += disable_cost; \
			(path)->total_cost += disable_cost; \
		} \
	} while (0)
#endif

/* pgstat_count_heap_update gained "the new version went to another page" in 16. */
#if PG_VERSION_NUM >= 160000
#define compat_pgstat_count_heap_update(rel) pgstat_count_heap_update((rel), false, true)
#else
#define compat_pgstat_count_heap_update(rel) pgstat_count_heap_update((rel), false)
#endif

/* pgstat_report_vacuum gained the vacuum's start time in 18. */
#if PG_VERSION_NUM >= 180000
#define compat_pgstat_report_vacuum(relid, shared, live, dead) \
	pgstat_report_vacuum((relid), (shared), (live), (dead), GetCurrentTimestamp())
#else
#define compat_pgstat_report_vacuum(relid, shared, live, dead) \
	pgstat_report_vacuum((relid), (shared), (live), (dead))
#endif

/*
 * ---- Options (src/catalog/options*.c, src/sql_api/options_api.c) ----
 *
 * PostgreSQL 16 replaced the per-catalog pg_*_ownercheck() functions with
 * object_ownercheck(classid, objectid, roleid).  On 15 the shim covers the
 * catalogs the extension checks ownership of; extend it when a new one is
 * needed.
 */
/*
 * PostgreSQL 18 marks functions that do not return with pg_noreturn, written
 * before the declaration; older versions spell it pg_attribute_noreturn().
 */
#ifndef pg_noreturn
#define pg_noreturn pg_attribute_noreturn()
#endif

#if PG_VERSION_NUM < 160000
#include "catalog/pg_class_d.h"
#include "catalog/pg_namespace_d.h"
#include "catalog/pg_proc_d.h"
#include "catalog/pg_type_d.h"
#include "utils/acl.h"

static inline bool
object_ownercheck(Oid classid, Oid objectid, Oid roleid)
{
	switch (classid)
	{
		case RelationRelationId:
			return pg_class_ownercheck(objectid, roleid);
		case NamespaceRelationId:
			return pg_namespace_ownercheck(objectid, roleid);
		case ProcedureRelationId:
			return pg_proc_ownercheck(objectid, roleid);
		case TypeRelationId:
			return pg_type_ownercheck(objectid, roleid);
		default:
			elog(ERROR, "object_ownercheck shim: unsupported catalog %u", classid);
	}
	return false;				/* keep compiler quiet */
}
#endif

/* EXPLAIN's property printers moved to a header of their own in 18. */
#if PG_VERSION_NUM >= 180000
#define COMPAT_EXPLAIN_FORMAT_HEADER "commands/explain_format.h"
#else
#define COMPAT_EXPLAIN_FORMAT_HEADER "commands/explain.h"
#endif

/*
 * Columns whose NOT NULL constraint PostgreSQL's tuple deforming relies
 * on: the JIT-compiled deformer skips their null test, and assumes that a
 * row holds every column up to the last of them that has no missing value.
 * 18 added NOT VALID not-null constraints (and virtual generated columns,
 * stored as NULL), which it does not rely on.
 */
#include "access/tupdesc.h"
#if PG_VERSION_NUM >= 180000
#define compat_attr_deform_notnull(desc, i) \
	(TupleDescCompactAttr((desc), (i))->attnullability == ATTNULLABLE_VALID && \
	 TupleDescAttr((desc), (i))->attgenerated != ATTRIBUTE_GENERATED_VIRTUAL)
#else
#define compat_attr_deform_notnull(desc, i) (TupleDescAttr((desc), (i))->attnotnull)
#endif

/*
 * Whether a collation orders strings by their bytes (C, POSIX): then text
 * compares with memcmp.  18 keeps that in the collation's pg_locale_t.
 */
#include "utils/pg_locale.h"
static inline bool
compat_collation_is_c(Oid collation)
{
	if (!OidIsValid(collation))
		return false;
#if PG_VERSION_NUM >= 180000
	return pg_newlocale_from_collation(collation)->collate_is_c;
#else
	return lc_collate_is_c(collation);
#endif
}

/*
 * Starts an index scan node's index scan as its first row would, so that
 * its table fetches can be told which columns to decode before that row
 * (scan/fetch_columns.c).  The nodes do this lazily, in the same way in
 * 15 and 18; 18 passes them their EXPLAIN instrumentation.
 */
#include "access/genam.h"
#include "access/relscan.h"
#include "nodes/execnodes.h"
static inline void
compat_start_index_scan(IndexScanState *node, Snapshot snapshot)
{
	if (node->iss_ScanDesc != NULL)
		return;
	node->iss_ScanDesc = index_beginscan(node->ss.ss_currentRelation,
										 node->iss_RelationDesc, snapshot,
#if PG_VERSION_NUM >= 180000
										 &node->iss_Instrument,
#endif
										 node->iss_NumScanKeys,
										 node->iss_NumOrderByKeys);
	if (node->iss_NumRuntimeKeys == 0 || node->iss_RuntimeKeysReady)
		index_rescan(node->iss_ScanDesc, node->iss_ScanKeys,
					 node->iss_NumScanKeys, node->iss_OrderByKeys,
					 node->iss_NumOrderByKeys);
}

static inline void
compat_start_index_only_scan(IndexOnlyScanState *node, Snapshot snapshot)
{
	if (node->ioss_ScanDesc != NULL)
		return;
	node->ioss_ScanDesc = index_beginscan(node->ss.ss_currentRelation,
										  node->ioss_RelationDesc, snapshot,
#if PG_VERSION_NUM >= 180000
										  &node->ioss_Instrument,
#endif
										  node->ioss_NumScanKeys,
										  node->ioss_NumOrderByKeys);
	node->ioss_ScanDesc->xs_want_itup = true;
	node->ioss_VMBuffer = InvalidBuffer;
	if (node->ioss_NumRuntimeKeys == 0 || node->ioss_RuntimeKeysReady)
		index_rescan(node->ioss_ScanDesc, node->ioss_ScanKeys,
					 node->ioss_NumScanKeys, node->ioss_OrderByKeys,
					 node->ioss_NumOrderByKeys);
}

/*
 * Scan helpers (scan/helper_task.c) run a plan to its end in one call, find
 * a backend's PGPROC by its number and go over every setting: ExecutorRun
 * lost execute_once in 18, a backend's number became MyProcNumber in 17,
 * and the settings' array came with its length from 16 on.
 */
#include "executor/executor.h"
#include "storage/proc.h"
#include "utils/guc_tables.h"

static inline void
compat_executor_run_all(QueryDesc *qd)
{
#if PG_VERSION_NUM >= 180000
	ExecutorRun(qd, ForwardScanDirection, 0);
#else
	ExecutorRun(qd, ForwardScanDirection, 0, true);
#endif
}

#if PG_VERSION_NUM >= 170000
#define compat_my_proc_number() ((int) MyProcNumber)
#else
#define compat_my_proc_number() (MyProc->pgprocno)
#endif

static inline struct config_generic **
compat_guc_variables(int *count)
{
#if PG_VERSION_NUM >= 160000
	return get_guc_variables(count);
#else
	*count = GetNumConfigOptions();
	return get_guc_variables();
#endif
}

#endif							/* STORAGE_ENGINE_COMPAT_H */
