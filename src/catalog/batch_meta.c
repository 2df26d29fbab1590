/*-------------------------------------------------------------------------
 *
 * batch_meta.c
 *	  Reading and writing rowcompress metadata rows (engine.batch).
 *
 *	  One row per batch, inserted by the transaction that wrote the batch,
 *	  after its data pages: a snapshot sees a batch exactly when it sees
 *	  the row.  Read with the scan's snapshot plus this transaction's own
 *	  rows (meta_snapshot_for); which of our own rows a command sees is
 *	  decided by the command-id runs (batch_visible_rows).
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "catalog/batch_meta.h"
#include "catalog/meta_tables.h"
#include "catalog/stream_runs.h"

/* Column numbers of engine.batch. */
enum
{
	Anum_batch_storage_id = 1,
	Anum_batch_batch_num,
	Anum_batch_first_block,
	Anum_batch_data_length,
	Anum_batch_raw_length,
	Anum_batch_row_count,
	Anum_batch_first_row_number,
	Anum_batch_last_row_number,
	Anum_batch_row_runs,
	Anum_batch_command_ids,
	Anum_batch_column_count,
	Anum_batch_codec,
	Anum_batch_checksum,
	Anum_batch_attr_min,
	Anum_batch_attr_max,
	Anum_batch_attr_null_count,
	Anum_batch_attr_type,
	Anum_batch_attr_collation,
	Anum_batch_dict_offset,
	Natts_batch = Anum_batch_dict_offset
};

static void *
batch_from_tuple(HeapTuple tuple, TupleDesc desc)
{
	Datum		values[Natts_batch];
	bool		nulls[Natts_batch];
	BatchMeta  *b = palloc0(sizeof(BatchMeta));
	int			i;

	meta_check_columns("batch", desc, Natts_batch);
	heap_deform_tuple(tuple, desc, values, nulls);
	for (i = 0; i < Natts_batch; i++)
		if (nulls[i])
			meta_corrupted("batch", DatumGetInt64(values[0]), "a column is NULL");
	b->storage_id = DatumGetInt64(values[Anum_batch_storage_id - 1]);
	b->batch_num = DatumGetInt64(values[Anum_batch_batch_num - 1]);
	b->first_block = DatumGetInt64(values[Anum_batch_first_block - 1]);
	b->data_length = DatumGetInt64(values[Anum_batch_data_length - 1]);
	b->raw_length = DatumGetInt64(values[Anum_batch_raw_length - 1]);
	b->row_count = DatumGetInt64(values[Anum_batch_row_count - 1]);
	b->first_row_number = DatumGetInt64(values[Anum_batch_first_row_number - 1]);
	b->last_row_number = DatumGetInt64(values[Anum_batch_last_row_number - 1]);
	b->column_count = DatumGetInt32(values[Anum_batch_column_count - 1]);
	b->codec = DatumGetInt16(values[Anum_batch_codec - 1]);
	b->checksum = (uint32) DatumGetInt32(values[Anum_batch_checksum - 1]);
	b->dict_offset = (uint64) DatumGetInt64(values[Anum_batch_dict_offset - 1]);
	if (b->dict_offset != BATCH_NO_DICT && b->dict_offset >= b->data_length)
		meta_corrupted("batch", b->storage_id, "dictionary outside the batch");
	b->written_by_me =
		TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data));

	b->runs = meta_row_runs_values(values[Anum_batch_row_runs - 1], &b->nruns);
	if (b->runs == NULL)
		meta_corrupted("batch", b->storage_id, "malformed row_runs");
	b->cids = meta_cid_runs_values(values[Anum_batch_command_ids - 1], &b->ncids);
	if (b->cids == NULL)
		meta_corrupted("batch", b->storage_id, "malformed command_ids");
	if (b->column_count < 0)
		meta_corrupted("batch", b->storage_id, "negative column count");
	/* the zone map is read when asked for: a fetch never needs it */
	b->meta_tid = tuple->t_self;
	return b;
}

/* A batch's zone map from its metadata row. */
static void *
zone_from_tuple(HeapTuple tuple, TupleDesc desc)
{
	Datum		values[Natts_batch];
	bool		nulls[Natts_batch];
	MetaZoneMap *zone;

	meta_check_columns("batch", desc, Natts_batch);
	heap_deform_tuple(tuple, desc, values, nulls);
	if (nulls[Anum_batch_column_count - 1])
		meta_corrupted("batch", DatumGetInt64(values[0]), "a column is NULL");
	zone = meta_zone_map_values(&values[Anum_batch_attr_min - 1],
								DatumGetInt32(values[Anum_batch_column_count - 1]));
	if (zone == NULL)
		meta_corrupted("batch", DatumGetInt64(values[0]),
					   "zone map arrays do not match the column count");
	return zone;
}

bool
batch_meta_zone_map(BatchMeta *b)
{
	MemoryContext old;
	ItemPointerData tid = b->meta_tid;
	MetaZoneMap *zone;

	if (b->zone_parsed)
		return true;
	old = MemoryContextSwitchTo(GetMemoryChunkContext(b));
	/* no snapshot (ANALYZE's): a catalog snapshot, as the list was read */
	zone = b->snapshot == NULL ?
		meta_get_stream("batch", "batch_pkey", b->storage_id, b->batch_num,
						NULL, NULL, zone_from_tuple) :
		meta_fetch_stream("batch", b->storage_id, b->batch_num, b->snapshot,
						  &tid, zone_from_tuple);
	MemoryContextSwitchTo(old);
	if (zone == NULL)
		return false;
	b->zone = *zone;
	b->zone_block = zone;
	b->zone_parsed = true;
	return true;
}

void
batch_meta_release_zone_map(BatchMeta *b)
{
	if (b->zone_block == NULL)
		return;
	pfree(b->zone_block);
	b->zone_block = NULL;
	memset(&b->zone, 0, sizeof(MetaZoneMap));
	b->zone_parsed = false;
}

static int
batch_cmp(const ListCell *a, const ListCell *b)
{
	uint64		x = ((BatchMeta *) lfirst(a))->batch_num;
	uint64		y = ((BatchMeta *) lfirst(b))->batch_num;

	return (x > y) - (x < y);
}

List *
batch_meta_list(uint64 storage_id, Snapshot snapshot)
{
	List	   *batches = meta_list_storage("batch", "batch_pkey", storage_id,
											snapshot, batch_from_tuple,
											batch_cmp);
	ListCell   *lc;

	foreach(lc, batches)
		((BatchMeta *) lfirst(lc))->snapshot = snapshot;
	return batches;
}

BatchMeta *
batch_meta_get(uint64 storage_id, uint64 batch_num, Snapshot snapshot,
			   ItemPointer tid)
{
	BatchMeta  *b = meta_get_stream("batch", "batch_pkey", storage_id,
									batch_num, snapshot, tid,
									batch_from_tuple);

	if (b != NULL)
		b->snapshot = snapshot;
	return b;
}

BatchMeta *
batch_meta_fetch(uint64 storage_id, uint64 batch_num, Snapshot snapshot,
				 ItemPointer tid)
{
	BatchMeta  *b = meta_fetch_stream("batch", storage_id, batch_num,
									  snapshot, tid, batch_from_tuple);

	if (b != NULL)
		b->snapshot = snapshot;
	return b;
}

void
batch_meta_insert(const BatchMeta *b)
{
	Datum		values[Natts_batch];
	bool		nulls[Natts_batch] = {0};
	Relation	rel;
	HeapTuple	tuple;

	values[Anum_batch_storage_id - 1] = Int64GetDatum(b->storage_id);
	values[Anum_batch_batch_num - 1] = Int64GetDatum(b->batch_num);
	values[Anum_batch_first_block - 1] = Int64GetDatum(b->first_block);
	values[Anum_batch_data_length - 1] = Int64GetDatum(b->data_length);
	values[Anum_batch_raw_length - 1] = Int64GetDatum(b->raw_length);
	values[Anum_batch_row_count - 1] = Int64GetDatum(b->row_count);
	values[Anum_batch_first_row_number - 1] = Int64GetDatum(b->first_row_number);
	values[Anum_batch_last_row_number - 1] = Int64GetDatum(b->last_row_number);
	values[Anum_batch_row_runs - 1] = PointerGetDatum(meta_row_runs_array(b->runs, b->nruns));
	values[Anum_batch_command_ids - 1] = PointerGetDatum(meta_cid_runs_array(b->cids, b->ncids));
	values[Anum_batch_column_count - 1] = Int32GetDatum(b->column_count);
	values[Anum_batch_codec - 1] = Int16GetDatum(b->codec);
	values[Anum_batch_checksum - 1] = Int32GetDatum((int32) b->checksum);
	values[Anum_batch_attr_min - 1] = PointerGetDatum(meta_bytea_array(b->zone.min, b->column_count));
	values[Anum_batch_attr_max - 1] = PointerGetDatum(meta_bytea_array(b->zone.max, b->column_count));
	values[Anum_batch_attr_null_count - 1] =
		PointerGetDatum(meta_int8_array(b->zone.null_count, b->column_count));
	values[Anum_batch_attr_type - 1] = PointerGetDatum(meta_oid_array(b->zone.type, b->column_count));
	values[Anum_batch_attr_collation - 1] =
		PointerGetDatum(meta_oid_array(b->zone.collation, b->column_count));
	values[Anum_batch_dict_offset - 1] = Int64GetDatum((int64) b->dict_offset);

	rel = meta_table_open("batch", RowExclusiveLock);
	meta_check_columns("batch", RelationGetDescr(rel), Natts_batch);
	tuple = heap_form_tuple(RelationGetDescr(rel), values, nulls);
	CatalogTupleInsert(rel, tuple);
	heap_freetuple(tuple);
	table_close(rel, RowExclusiveLock);
	stream_runs_insert(b->storage_id, b->batch_num, b->runs, b->nruns);
}

void
batch_meta_delete_batch(uint64 storage_id, uint64 batch_num)
{
	stream_runs_delete(storage_id, (int64) batch_num);
	meta_delete_rows("batch", "batch_pkey", storage_id, (int64) batch_num);
}

void
batch_meta_delete_storage(uint64 storage_id)
{
	stream_runs_delete(storage_id, -1);
	meta_delete_rows("batch", "batch_pkey", storage_id, -1);
	CommandCounterIncrement();
}

uint64
batch_visible_rows(const BatchMeta *b, Snapshot snapshot)
{
	return row_runs_visible(b->cids, b->ncids, b->row_count, b->written_by_me,
							snapshot);
}
