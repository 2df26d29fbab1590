/*-------------------------------------------------------------------------
 *
 * storage_am_todo.h
 *	  Table-AM callbacks neither access method supports yet (indexes,
 *	  UPDATE/DELETE, row locks, ON CONFLICT, TABLESAMPLE), written once for
 *	  both: each raises ERRCODE_FEATURE_NOT_SUPPORTED naming the table's
 *	  access method, with a hint.  They go away as the features land.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_STORAGE_AM_TODO_H
#define STORAGE_ENGINE_STORAGE_AM_TODO_H

#include "compat/compat.h"

#include "access/tableam.h"

extern void todo_tuple_insert_speculative(Relation rel, TupleTableSlot *slot,
										  CommandId cid, int options,
										  struct BulkInsertStateData *bistate,
										  uint32 specToken);
extern void todo_tuple_complete_speculative(Relation rel, TupleTableSlot *slot,
											uint32 specToken, bool succeeded);
extern TM_Result todo_tuple_delete(Relation rel, ItemPointer tid, CommandId cid,
								   Snapshot snapshot, Snapshot crosscheck,
								   bool wait, TM_FailureData *tmfd,
								   bool changingPart);
extern TM_Result todo_tuple_update(Relation rel, ItemPointer otid,
								   TupleTableSlot *slot, CommandId cid,
								   Snapshot snapshot, Snapshot crosscheck,
								   bool wait, TM_FailureData *tmfd,
								   LockTupleMode *lockmode,
								   TU_UpdateIndexes *update_indexes);
extern TM_Result todo_tuple_lock(Relation rel, ItemPointer tid,
								 Snapshot snapshot, TupleTableSlot *slot,
								 CommandId cid, LockTupleMode mode,
								 LockWaitPolicy wait_policy, uint8 flags,
								 TM_FailureData *tmfd);
extern struct IndexFetchTableData *todo_index_fetch_begin(Relation rel);
extern void todo_index_fetch_reset(struct IndexFetchTableData *data);
extern void todo_index_fetch_end(struct IndexFetchTableData *data);
extern bool todo_index_fetch_tuple(struct IndexFetchTableData *scan,
								   ItemPointer tid, Snapshot snapshot,
								   TupleTableSlot *slot, bool *call_again,
								   bool *all_dead);
extern bool todo_tuple_fetch_row_version(Relation rel, ItemPointer tid,
										 Snapshot snapshot,
										 TupleTableSlot *slot);
extern bool todo_tuple_tid_valid(TableScanDesc scan, ItemPointer tid);
extern void todo_tuple_get_latest_tid(TableScanDesc scan, ItemPointer tid);
extern bool todo_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
										  Snapshot snapshot);
extern TransactionId todo_index_delete_tuples(Relation rel,
											  TM_IndexDeleteOp *delstate);
extern double todo_index_build_range_scan(Relation table_rel,
										  Relation index_rel,
										  struct IndexInfo *index_info,
										  bool allow_sync, bool anyvisible,
										  bool progress,
										  BlockNumber start_blockno,
										  BlockNumber numblocks,
										  IndexBuildCallback callback,
										  void *callback_state,
										  TableScanDesc scan);
extern void todo_index_validate_scan(Relation table_rel, Relation index_rel,
									 struct IndexInfo *index_info,
									 Snapshot snapshot,
									 struct ValidateIndexState *state);
extern bool todo_scan_sample_next_block(TableScanDesc scan,
										struct SampleScanState *scanstate);
extern bool todo_scan_sample_next_tuple(TableScanDesc scan,
										struct SampleScanState *scanstate,
										TupleTableSlot *slot);

#endif							/* STORAGE_ENGINE_STORAGE_AM_TODO_H */
