/*-------------------------------------------------------------------------
 *
 * storage_am_todo.c
 *	  The not-yet-supported table-AM callbacks of both access methods (see
 *	  storage_am_todo.h).  Refusing with a clear error is right where
 *	  faking would be wrong: a tuple_lock that returns success without
 *	  locking silently breaks foreign keys and SELECT ... FOR UPDATE.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/relscan.h"
#include "commands/defrem.h"
#include "utils/rel.h"

#include "format/storage_am_todo.h"

static void
refuse(Relation rel, const char *what, const char *hint_fmt)
{
	char	   *am = get_am_name(rel->rd_rel->relam);

	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s tables do not support %s yet", am, what),
			 errhint(hint_fmt, am)));
}

#define NO_INDEXES_HINT "Use a heap table for data that needs indexes, or load the data into %s for scans only."
#define NO_DML_HINT "Rewrite the data with INSERT ... SELECT into a new table, or use a heap table."
#define NO_SAMPLE_HINT "Use ORDER BY random() LIMIT n."

void
todo_tuple_insert_speculative(Relation rel, TupleTableSlot *slot,
							  CommandId cid, int options,
							  struct BulkInsertStateData *bistate,
							  uint32 specToken)
{
	refuse(rel, "INSERT ... ON CONFLICT", NO_INDEXES_HINT);
}

void
todo_tuple_complete_speculative(Relation rel, TupleTableSlot *slot,
								uint32 specToken, bool succeeded)
{
	refuse(rel, "INSERT ... ON CONFLICT", NO_INDEXES_HINT);
}

TM_Result
todo_tuple_delete(Relation rel, ItemPointer tid, CommandId cid,
				  Snapshot snapshot, Snapshot crosscheck, bool wait,
				  TM_FailureData *tmfd, bool changingPart)
{
	refuse(rel, "DELETE", NO_DML_HINT);
	return TM_Ok;
}

TM_Result
todo_tuple_update(Relation rel, ItemPointer otid, TupleTableSlot *slot,
				  CommandId cid, Snapshot snapshot, Snapshot crosscheck,
				  bool wait, TM_FailureData *tmfd, LockTupleMode *lockmode,
				  TU_UpdateIndexes *update_indexes)
{
	refuse(rel, "UPDATE", NO_DML_HINT);
	return TM_Ok;
}

TM_Result
todo_tuple_lock(Relation rel, ItemPointer tid, Snapshot snapshot,
				TupleTableSlot *slot, CommandId cid, LockTupleMode mode,
				LockWaitPolicy wait_policy, uint8 flags, TM_FailureData *tmfd)
{
	refuse(rel, "locking rows (SELECT ... FOR UPDATE/SHARE)", NO_DML_HINT);
	return TM_Ok;
}

struct IndexFetchTableData *
todo_index_fetch_begin(Relation rel)
{
	refuse(rel, "index scans", NO_INDEXES_HINT);
	return NULL;
}

void
todo_index_fetch_reset(struct IndexFetchTableData *data)
{
}

void
todo_index_fetch_end(struct IndexFetchTableData *data)
{
}

bool
todo_index_fetch_tuple(struct IndexFetchTableData *scan, ItemPointer tid,
					   Snapshot snapshot, TupleTableSlot *slot,
					   bool *call_again, bool *all_dead)
{
	refuse(scan->rel, "index scans", NO_INDEXES_HINT);
	return false;
}

bool
todo_tuple_fetch_row_version(Relation rel, ItemPointer tid, Snapshot snapshot,
							 TupleTableSlot *slot)
{
	refuse(rel, "UPDATE, DELETE or fetching rows by TID", NO_DML_HINT);
	return false;
}

bool
todo_tuple_tid_valid(TableScanDesc scan, ItemPointer tid)
{
	return ItemPointerIsValid(tid);
}

void
todo_tuple_get_latest_tid(TableScanDesc scan, ItemPointer tid)
{
	/* rows are never updated in place: a TID is always its latest */
}

bool
todo_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
							  Snapshot snapshot)
{
	refuse(rel, "checking a row's visibility by TID", NO_DML_HINT);
	return false;
}

TransactionId
todo_index_delete_tuples(Relation rel, TM_IndexDeleteOp *delstate)
{
	refuse(rel, "indexes", NO_INDEXES_HINT);
	return InvalidTransactionId;
}

double
todo_index_build_range_scan(Relation table_rel, Relation index_rel,
							struct IndexInfo *index_info, bool allow_sync,
							bool anyvisible, bool progress,
							BlockNumber start_blockno, BlockNumber numblocks,
							IndexBuildCallback callback, void *callback_state,
							TableScanDesc scan)
{
	refuse(table_rel, "indexes", NO_INDEXES_HINT);
	return 0;
}

void
todo_index_validate_scan(Relation table_rel, Relation index_rel,
						 struct IndexInfo *index_info, Snapshot snapshot,
						 struct ValidateIndexState *state)
{
	refuse(table_rel, "indexes", NO_INDEXES_HINT);
}

bool
todo_scan_sample_next_block(TableScanDesc scan, struct SampleScanState *scanstate)
{
	refuse(scan->rs_rd, "TABLESAMPLE", NO_SAMPLE_HINT);
	return false;
}

bool
todo_scan_sample_next_tuple(TableScanDesc scan, struct SampleScanState *scanstate,
							TupleTableSlot *slot)
{
	refuse(scan->rs_rd, "TABLESAMPLE", NO_SAMPLE_HINT);
	return false;
}
