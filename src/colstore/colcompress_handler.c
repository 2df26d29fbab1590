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
#include "format/storage_am_todo.h"

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

	.index_fetch_begin = todo_index_fetch_begin,
	.index_fetch_reset = todo_index_fetch_reset,
	.index_fetch_end = todo_index_fetch_end,
	.index_fetch_tuple = todo_index_fetch_tuple,

	.tuple_fetch_row_version = todo_tuple_fetch_row_version,
	.tuple_tid_valid = todo_tuple_tid_valid,
	.tuple_get_latest_tid = todo_tuple_get_latest_tid,
	.tuple_satisfies_snapshot = todo_tuple_satisfies_snapshot,
	.index_delete_tuples = todo_index_delete_tuples,

	.tuple_insert = col_tuple_insert,
	.tuple_insert_speculative = todo_tuple_insert_speculative,
	.tuple_complete_speculative = todo_tuple_complete_speculative,
	.multi_insert = col_multi_insert,
	.tuple_delete = todo_tuple_delete,
	.tuple_update = todo_tuple_update,
	.tuple_lock = todo_tuple_lock,
	.finish_bulk_insert = col_finish_bulk_insert,

	.COMPAT_TAM_SET_NEW_STORAGE = col_set_new_storage,
	.relation_nontransactional_truncate = col_nontransactional_truncate,
	.relation_copy_data = col_copy_data,
	.relation_copy_for_cluster = col_copy_for_cluster,
	.relation_vacuum = col_vacuum,
	.scan_analyze_next_block = col_scan_analyze_next_block,
	.scan_analyze_next_tuple = col_scan_analyze_next_tuple,
	.index_build_range_scan = todo_index_build_range_scan,
	.index_validate_scan = todo_index_validate_scan,

	.relation_size = table_block_relation_size,
	.relation_needs_toast_table = col_relation_needs_toast_table,
	.relation_toast_am = col_relation_toast_am,
	.relation_estimate_size = col_estimate_size,

	/* bitmap scans come with index support */
	.scan_sample_next_block = todo_scan_sample_next_block,
	.scan_sample_next_tuple = todo_scan_sample_next_tuple,
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
