/*-------------------------------------------------------------------------
 *
 * col_ddl.c
 *	  Storage lifecycle of colcompress relations: the colcompress record
 *	  of the lifecycle shared with rowcompress (format/storage_am.c, whose
 *	  functions are the table-AM callbacks of both).
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "catalog/options.h"
#include "catalog/stripe_meta.h"
#include "colstore/col_ddl.h"
#include "colstore/col_fetch.h"
#include "colstore/col_reader.h"
#include "colstore/col_scan.h"
#include "colstore/col_tableam.h"
#include "colstore/col_writer.h"
#include "format/storage_am.h"

static void
insert_row(void *writer, Relation rel, TupleTableSlot *slot, CommandId cid)
{
	col_writer_insert(writer, rel, slot, cid);
}

static void
keep_insert_order(void *writer)
{
	col_writer_keep_order(writer);
}

static void *
fetch_begin(Relation rel, Snapshot snapshot)
{
	return col_fetch_begin(rel, snapshot);
}

static void *
fetch_cursor(void *fetcher)
{
	return col_fetch_cursor(fetcher);
}

static bool
fetch(void *cursor, uint64 rownum, TupleTableSlot *slot, bool *later_own)
{
	return col_fetch_row(cursor, rownum, slot, later_own);
}

static void
fetch_cursor_columns(void *cursor, const Bitmapset *columns)
{
	col_fetch_cursor_columns(cursor, columns);
}

static void
fetch_cursor_end(void *cursor)
{
	col_fetch_cursor_end(cursor);
}

static void
fetch_end(void *fetcher)
{
	col_fetch_end(fetcher);
}

void
col_stripe_stream_info(const StripeMeta *stripe, StreamInfo *info)
{
	info->stream_num = stripe->stripe_num;
	info->first_block = stripe->first_block;
	info->data_length = stripe->data_length;
	info->row_count = stripe->row_count;
	info->first_row_number = stripe->first_row_number;
	info->last_row_number = stripe->last_row_number;
	info->runs = stripe->runs;
	info->nruns = stripe->nruns;
}

static List *
list_streams(uint64 storage_id, Snapshot snapshot)
{
	List	   *streams = NIL;
	ListCell   *lc;

	foreach(lc, stripe_meta_list(storage_id, snapshot))
	{
		StreamInfo *info = palloc(sizeof(StreamInfo));

		col_stripe_stream_info(lfirst(lc), info);
		streams = lappend(streams, info);
	}
	return streams;
}

static void
copy_streams(Relation rel, Snapshot snapshot, const uint64 *nums, int n,
			 void (*emit) (TupleTableSlot *slot, void *arg), void *arg)
{
	ColReader  *r = col_reader_begin(rel, snapshot, NULL, NULL);
	TupleTableSlot *slot = MakeSingleTupleTableSlot(RelationGetDescr(rel),
													&TTSOpsVirtual);
	int			si;
	int			k = 0;

	for (si = 0; si < r->nstripes && k < n; si++)
	{
		StripeMeta *s = list_nth(r->stripes, si);
		int			g;
		uint32		i;

		if (s->stripe_num != nums[k])
			continue;
		k++;
		for (g = 0; g < s->chunk_group_count; g++)
		{
			col_reader_load_group(r, si, g);
			for (i = 0; i < r->batch.nrows; i++)
			{
				col_reader_store_row(r, i, slot);
				emit(slot, arg);
			}
		}
	}
	ExecDropSingleTupleTableSlot(slot);
	col_reader_end(r);
}

static void
delete_stream(uint64 storage_id, uint64 stream_num)
{
	stripe_meta_delete_stripe(storage_id, stream_num);
}

static uint64
stream_row_limit(Relation rel)
{
	ColcompressOptions opts;

	colcompress_options_get(RelationGetRelid(rel), &opts);
	return (uint64) opts.stripe_row_limit;
}

const StorageAm colcompress_storage_am = {
	.name = "colcompress",
	.is_am = is_colcompress,
	.metadata_table = "stripe",
	.writer_ops = &col_writer_ops,
	.insert = insert_row,
	.keep_insert_order = keep_insert_order,
	.delete_metadata = stripe_meta_delete_storage,
	.count_rows = col_count_rows,
	.fetch_begin = fetch_begin,
	.fetch_cursor = fetch_cursor,
	.fetch = fetch,
	.fetch_cursor_columns = fetch_cursor_columns,
	.fetch_cursor_end = fetch_cursor_end,
	.fetch_end = fetch_end,
	.list_streams = list_streams,
	.copy_streams = copy_streams,
	.delete_stream = delete_stream,
	.stream_row_limit = stream_row_limit,
};
