/*-------------------------------------------------------------------------
 *
 * colcompress_handler.c
 *	  The colcompress table access method: the callback table, forwarding
 *	  to the modules that do the work (col_scan, col_writer, col_ddl).  What is not supported yet raises a clear
 *	  error instead of pretending.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/tableam.h"
#include "access/xact.h"
#include "fmgr.h"
#include "utils/rel.h"

#include "colstore/col_ddl.h"
#include "colstore/col_scan.h"
#include "colstore/col_tableam.h"
#include "colstore/col_writer.h"
#include "format/pending_writes.h"
#include "format/storage_am.h"

static void
unsupported(const char *what, const char *hint)
{
	storage_am_unsupported(&colcompress_storage_am, what, hint);
}

#define NO_INDEXES_HINT "Use a heap table for data that needs indexes, or load the data into colcompress for scans only."
#define NO_DML_HINT "Rewrite the data with INSERT ... SELECT into a new table, or use a heap table."

static const TupleTableSlotOps *
col_slot_callbacks(Relation rel)
{
	return &TTSOpsVirtual;
}

static void
col_tuple_insert(Relation rel, TupleTableSlot *slot, CommandId cid,
				 int options, struct BulkInsertStateData *bistate)
{
	storage_am_refuse_if_published(&colcompress_storage_am, rel);
	col_writer_insert(col_writer_for(rel), rel, slot, cid);
}

static void
col_multi_insert(Relation rel, TupleTableSlot **slots, int nslots,
				 CommandId cid, int options, struct BulkInsertStateData *bistate)
{
	ColWriter  *writer;
	int			i;

	storage_am_refuse_if_published(&colcompress_storage_am, rel);
	writer = col_writer_for(rel);
	for (i = 0; i < nslots; i++)
		col_writer_insert(writer, rel, slots[i], cid);
}

/* End of COPY, CREATE TABLE AS, or a table rewrite: write what is buffered. */
static void
col_finish_bulk_insert(Relation rel, int options)
{
	pending_flush_for_read(rel);
}

static void
col_tuple_insert_speculative(Relation rel, TupleTableSlot *slot, CommandId cid,
							 int options, struct BulkInsertStateData *bistate,
							 uint32 specToken)
{
	unsupported("INSERT ... ON CONFLICT", NO_INDEXES_HINT);
}

static void
col_tuple_complete_speculative(Relation rel, TupleTableSlot *slot,
							   uint32 specToken, bool succeeded)
{
	unsupported("INSERT ... ON CONFLICT", NO_INDEXES_HINT);
}

static TM_Result
col_tuple_delete(Relation rel, ItemPointer tid, CommandId cid,
				 Snapshot snapshot, Snapshot crosscheck, bool wait,
				 TM_FailureData *tmfd, bool changingPart)
{
	unsupported("DELETE", NO_DML_HINT);
	return TM_Ok;
}

static TM_Result
col_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot,
				 CommandId cid, Snapshot snapshot, Snapshot crosscheck,
				 bool wait, TM_FailureData *tmfd, LockTupleMode *lockmode,
				 TU_UpdateIndexes *update_indexes)
{
	unsupported("UPDATE", NO_DML_HINT);
	return TM_Ok;
}

static TM_Result
col_tuple_lock(Relation rel, ItemPointer tid, Snapshot snapshot,
			   TupleTableSlot *slot, CommandId cid, LockTupleMode mode,
			   LockWaitPolicy wait_policy, uint8 flags, TM_FailureData *tmfd)
{
	unsupported("locking rows (SELECT ... FOR UPDATE/SHARE)", NO_DML_HINT);
	return TM_Ok;
}

static struct IndexFetchTableData *
col_index_fetch_begin(Relation rel)
{
	unsupported("index scans", NO_INDEXES_HINT);
	return NULL;
}

static void
col_index_fetch_reset(struct IndexFetchTableData *data)
{
}

static void
col_index_fetch_end(struct IndexFetchTableData *data)
{
}

static bool
col_index_fetch_tuple(struct IndexFetchTableData *scan, ItemPointer tid,
					  Snapshot snapshot, TupleTableSlot *slot,
					  bool *call_again, bool *all_dead)
{
	unsupported("index scans", NO_INDEXES_HINT);
	return false;
}

static bool
col_tuple_fetch_row_version(Relation rel, ItemPointer tid, Snapshot snapshot,
							TupleTableSlot *slot)
{
	unsupported("UPDATE, DELETE or fetching rows by TID", NO_DML_HINT);
	return false;
}

static bool
col_tuple_tid_valid(TableScanDesc scan, ItemPointer tid)
{
	return ItemPointerIsValid(tid);
}

static void
col_tuple_get_latest_tid(TableScanDesc scan, ItemPointer tid)
{
	/* rows are never updated in place: a TID is always its latest */
}

static bool
col_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
							 Snapshot snapshot)
{
	unsupported("checking a row's visibility by TID", NO_DML_HINT);
	return false;
}

static TransactionId
col_index_delete_tuples(Relation rel, TM_IndexDeleteOp *delstate)
{
	unsupported("indexes", NO_INDEXES_HINT);
	return InvalidTransactionId;
}

static double
col_index_build_range_scan(Relation table_rel, Relation index_rel,
						   struct IndexInfo *index_info, bool allow_sync,
						   bool anyvisible, bool progress,
						   BlockNumber start_blockno, BlockNumber numblocks,
						   IndexBuildCallback callback, void *callback_state,
						   TableScanDesc scan)
{
	unsupported("indexes", NO_INDEXES_HINT);
	return 0;
}

static void
col_index_validate_scan(Relation table_rel, Relation index_rel,
						struct IndexInfo *index_info, Snapshot snapshot,
						struct ValidateIndexState *state)
{
	unsupported("indexes", NO_INDEXES_HINT);
}

static bool
col_relation_needs_toast_table(Relation rel)
{
	/* wide values are compressed inside the column chunks */
	return false;
}

static Oid
col_relation_toast_am(Relation rel)
{
	return InvalidOid;
}

static bool
col_scan_sample_next_block(TableScanDesc scan, struct SampleScanState *scanstate)
{
	unsupported("TABLESAMPLE", "Use ORDER BY random() LIMIT n.");
	return false;
}

static bool
col_scan_sample_next_tuple(TableScanDesc scan, struct SampleScanState *scanstate,
						   TupleTableSlot *slot)
{
	unsupported("TABLESAMPLE", "Use ORDER BY random() LIMIT n.");
	return false;
}

static const TableAmRoutine colcompress_methods = {
	.type = T_TableAmRoutine,
	.slot_callbacks = col_slot_callbacks,

	.scan_begin = col_scan_begin,
	.scan_end = col_scan_end,
	.scan_rescan = col_scan_rescan,
	.scan_getnextslot = col_scan_getnextslot,

	.parallelscan_estimate = col_parallelscan_estimate,
	.parallelscan_initialize = col_parallelscan_initialize,
	.parallelscan_reinitialize = col_parallelscan_reinitialize,

	.index_fetch_begin = col_index_fetch_begin,
	.index_fetch_reset = col_index_fetch_reset,
	.index_fetch_end = col_index_fetch_end,
	.index_fetch_tuple = col_index_fetch_tuple,

	.tuple_fetch_row_version = col_tuple_fetch_row_version,
	.tuple_tid_valid = col_tuple_tid_valid,
	.tuple_get_latest_tid = col_tuple_get_latest_tid,
	.tuple_satisfies_snapshot = col_tuple_satisfies_snapshot,
	.index_delete_tuples = col_index_delete_tuples,

	.tuple_insert = col_tuple_insert,
	.tuple_insert_speculative = col_tuple_insert_speculative,
	.tuple_complete_speculative = col_tuple_complete_speculative,
	.multi_insert = col_multi_insert,
	.tuple_delete = col_tuple_delete,
	.tuple_update = col_tuple_update,
	.tuple_lock = col_tuple_lock,
	.finish_bulk_insert = col_finish_bulk_insert,

	.COMPAT_TAM_SET_NEW_STORAGE = col_set_new_storage,
	.relation_nontransactional_truncate = col_nontransactional_truncate,
	.relation_copy_data = col_copy_data,
	.relation_copy_for_cluster = col_copy_for_cluster,
	.relation_vacuum = col_vacuum,
	.scan_analyze_next_block = col_scan_analyze_next_block,
	.scan_analyze_next_tuple = col_scan_analyze_next_tuple,
	.index_build_range_scan = col_index_build_range_scan,
	.index_validate_scan = col_index_validate_scan,

	.relation_size = table_block_relation_size,
	.relation_needs_toast_table = col_relation_needs_toast_table,
	.relation_toast_am = col_relation_toast_am,
	.relation_estimate_size = col_estimate_size,

	/* bitmap scans come with index support */
	.scan_sample_next_block = col_scan_sample_next_block,
	.scan_sample_next_tuple = col_scan_sample_next_tuple,
};

bool
is_colcompress(Relation rel)
{
	return rel->rd_tableam == &colcompress_methods;
}

PG_FUNCTION_INFO_V1(colcompress_handler);

Datum
colcompress_handler(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(&colcompress_methods);
}
