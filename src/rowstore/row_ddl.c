/*-------------------------------------------------------------------------
 *
 * row_ddl.c
 *	  Storage lifecycle of rowcompress relations: the rowcompress record
 *	  of the lifecycle shared with colcompress (format/storage_am.c, whose
 *	  functions are the table-AM callbacks of both).
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "catalog/batch_meta.h"
#include "catalog/options.h"
#include "format/storage_am.h"
#include "rowstore/row_ddl.h"
#include "rowstore/row_reader.h"
#include "rowstore/row_scan.h"
#include "rowstore/row_tableam.h"
#include "rowstore/row_writer.h"

static void
insert_row(void *writer, Relation rel, TupleTableSlot *slot, CommandId cid)
{
	row_writer_insert(writer, rel, slot, cid);
}

static void *
fetch_begin(Relation rel, Snapshot snapshot)
{
	return row_reader_begin_fetch(rel, snapshot);
}

static void *
fetch_cursor(void *fetcher)
{
	return row_reader_cursor(fetcher);
}

static bool
fetch(void *cursor, uint64 rownum, TupleTableSlot *slot, bool *later_own)
{
	return row_fetch(cursor, rownum, slot, later_own);
}

static void
fetch_end(void *reader)
{
	row_reader_end(reader);
}

static List *
list_streams(uint64 storage_id, Snapshot snapshot)
{
	List	   *streams = NIL;
	ListCell   *lc;

	foreach(lc, batch_meta_list(storage_id, snapshot))
	{
		BatchMeta  *b = lfirst(lc);
		StreamInfo *info = palloc(sizeof(StreamInfo));

		info->stream_num = b->batch_num;
		info->first_block = b->first_block;
		info->data_length = b->data_length;
		info->row_count = b->row_count;
		info->first_row_number = b->first_row_number;
		info->last_row_number = b->last_row_number;
		info->runs = b->runs;
		info->nruns = b->nruns;
		streams = lappend(streams, info);
	}
	return streams;
}

static void
copy_streams(Relation rel, Snapshot snapshot, const uint64 *nums, int n,
			 void (*emit) (TupleTableSlot *slot, void *arg), void *arg)
{
	RowReader  *r = row_reader_begin(rel, snapshot, NULL);
	TupleTableSlot *slot = MakeSingleTupleTableSlot(RelationGetDescr(rel),
													&TTSOpsMinimalTuple);
	int			bi;
	int			k = 0;

	for (bi = 0; bi < r->nbatches && k < n; bi++)
	{
		BatchMeta  *b = list_nth(r->batches, bi);
		uint32		i;

		if (b->batch_num != nums[k])
			continue;
		k++;
		row_reader_load_batch(r, bi);
		for (i = 0; i < r->nrows; i++)
		{
			row_reader_store_row(r, i, slot);
			emit(slot, arg);
		}
	}
	ExecDropSingleTupleTableSlot(slot);
	row_reader_end(r);
}

static uint64
stream_row_limit(Relation rel)
{
	RowcompressOptions opts;

	rowcompress_options_get(RelationGetRelid(rel), &opts);
	return (uint64) opts.batch_size;
}

const StorageAm rowcompress_storage_am = {
	.name = "rowcompress",
	.is_am = is_rowcompress,
	.metadata_table = "batch",
	.writer_ops = &row_writer_ops,
	.insert = insert_row,
	.delete_metadata = batch_meta_delete_storage,
	.count_rows = row_count_rows,
	.fetch_begin = fetch_begin,
	.fetch_cursor = fetch_cursor,
	.fetch = fetch,
	.fetch_cursor_end = fetch_end,
	.fetch_end = fetch_end,
	.list_streams = list_streams,
	.copy_streams = copy_streams,
	.delete_stream = batch_meta_delete_batch,
	.stream_row_limit = stream_row_limit,
};
