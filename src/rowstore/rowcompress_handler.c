/*-------------------------------------------------------------------------
 *
 * rowcompress_handler.c
 *	  The rowcompress table access method: the callback table, forwarding
 *	  to the modules that do the work (row_scan, row_writer, row_ddl, storage_am for
 *	  the storage lifecycle, and storage_am_rows for rows by TID, bitmap
 *	  and TABLESAMPLE scans).
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/tableam.h"
#include "fmgr.h"
#include "utils/rel.h"

#include "format/pending_writes.h"
#include "format/storage_am.h"
#include "format/storage_slots.h"
#include "rowstore/row_scan.h"
#include "rowstore/row_tableam.h"
#include "rowstore/row_writer.h"

/*
 * Rows are MinimalTuples inside the decompressed batch: a scan stores a
 * pointer to them, and PostgreSQL deforms only the columns it needs.  The
 * slots have the system columns of format/storage_slots.c.
 */
static const TupleTableSlotOps *
row_slot_callbacks(Relation rel)
{
	return storage_slot_minimal_ops();
}

static const TableAmRoutine rowcompress_methods = {
	.type = T_TableAmRoutine,
	.slot_callbacks = row_slot_callbacks,

	.scan_begin = row_scan_begin,
	.scan_end = row_scan_end,
	.scan_rescan = row_scan_rescan,
	.scan_getnextslot = row_scan_getnextslot,

	.parallelscan_estimate = row_parallelscan_estimate,
	.parallelscan_initialize = row_parallelscan_initialize,
	.parallelscan_reinitialize = row_parallelscan_reinitialize,

	.index_fetch_begin = storage_index_fetch_begin,
	.index_fetch_reset = storage_index_fetch_reset,
	.index_fetch_end = storage_index_fetch_end,
	.index_fetch_tuple = storage_index_fetch_tuple,

	.tuple_fetch_row_version = storage_tuple_fetch_row_version,
	.tuple_tid_valid = storage_tuple_tid_valid,
	.tuple_get_latest_tid = storage_tuple_get_latest_tid,
	.tuple_satisfies_snapshot = storage_tuple_satisfies_snapshot,
	.index_delete_tuples = storage_index_delete_tuples,

	.tuple_insert = storage_tuple_insert,
	.tuple_insert_speculative = storage_tuple_insert_speculative,
	.tuple_complete_speculative = storage_tuple_complete_speculative,
	.multi_insert = storage_multi_insert,
	.tuple_delete = storage_tuple_delete,
	.tuple_update = storage_tuple_update,
	.tuple_lock = storage_tuple_lock,
	.finish_bulk_insert = storage_am_finish_bulk_insert,

	.COMPAT_TAM_SET_NEW_STORAGE = storage_am_set_new_storage,
	.relation_nontransactional_truncate = storage_am_nontransactional_truncate,
	.relation_copy_data = storage_am_copy_data,
	.relation_copy_for_cluster = storage_am_copy_for_cluster,
	.relation_vacuum = storage_am_vacuum,
	.scan_analyze_next_block = row_scan_analyze_next_block,
	.scan_analyze_next_tuple = row_scan_analyze_next_tuple,
	.index_build_range_scan = storage_index_build_range_scan,
	.index_validate_scan = storage_index_validate_scan,

	.relation_size = table_block_relation_size,
	.relation_needs_toast_table = storage_am_needs_toast_table,
	.relation_toast_am = storage_am_toast_am,
	.relation_estimate_size = storage_am_estimate_size,

#ifdef COMPAT_TAM_BITMAP_ITERATES
	.scan_bitmap_next_tuple = storage_scan_bitmap_next_tuple,
#else
	.scan_bitmap_next_block = storage_scan_bitmap_next_block,
	.scan_bitmap_next_tuple = storage_scan_bitmap_next_tuple,
#endif
	.scan_sample_next_block = storage_scan_sample_next_block,
	.scan_sample_next_tuple = storage_scan_sample_next_tuple,
};

bool
is_rowcompress(Relation rel)
{
	return rel->rd_tableam == &rowcompress_methods;
}

PG_FUNCTION_INFO_V1(rowcompress_handler);

Datum
rowcompress_handler(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(&rowcompress_methods);
}
