/*-------------------------------------------------------------------------
 *
 * row_verify.c
 *	  engine.rowcompress_verify(regclass): checks a rowcompress table's
 *	  metadata against its storage and returns one row per problem.
 *
 *	  The frame (metadata against the metapage, errors caught per batch)
 *	  is shared with colcompress (format/storage_verify.c).  Every batch is
 *	  read, decompressed and checked row by row through the same reader a
 *	  scan uses, and reached the way an index lookup will reach it: by
 *	  fetching one of its rows by row number (row_fetch).
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "executor/tuptable.h"
#include "fmgr.h"
#include "utils/snapmgr.h"

#include "format/row_number.h"
#include "format/storage_verify.h"
#include "rowstore/row_reader.h"
#include "rowstore/row_tableam.h"

PG_FUNCTION_INFO_V1(rowcompress_verify);

typedef struct ReadBatch
{
	StorageVerify *verify;
	RowReader  *reader;
	int			index;
	TupleTableSlot *slot;
} ReadBatch;

/*
 * Rows that break the table's NOT NULL constraints are readable (the
 * reader deforms them by their null bitmap), but only ALTER TABLE checking
 * a new constraint may legitimately meet them: anywhere else they are
 * damage.
 */
static void
report_slow_rows(ReadBatch *rb)
{
	RowReader  *r = rb->reader;
	uint64		slow = 0;
	uint64		i;

	for (i = 0; i < r->batch->row_count; i++)
		if (r->row_offsets[i] & ROW_BATCH_SLOW_ROW)
			slow++;
	if (slow > 0)
		storage_verify_report(rb->verify, (int64) r->batch->batch_num, 0,
							  UINT64_FORMAT " rows hold NULL in a NOT NULL column or lack one",
							  slow);
}

/*
 * Fetches the batch's middle row by row number (which reads one frame) and
 * checks that the row found is that row; then loads the whole batch.
 */
static void
read_batch(void *arg)
{
	ReadBatch  *rb = arg;
	BatchMeta  *b = list_nth(rb->reader->batches, rb->index);
	uint64		visible = batch_visible_rows(b, rb->reader->snapshot);
	uint64		rownum;
	RowReader  *cursor;

	if (b->row_count == 0 || visible == 0)
	{
		row_reader_load_batch(rb->reader, rb->index);
		return;
	}
	rownum = row_runs_nth(b->runs, b->nruns, (visible - 1) / 2);
	cursor = row_reader_cursor(rb->reader);
	cursor->reads_storage = true;
	if (!row_fetch(cursor, rownum, rb->slot, NULL) ||
		cursor->batch_index != rb->index ||
		tid_to_row_number(&rb->slot->tts_tid) != rownum)
		storage_verify_report(rb->verify, (int64) b->batch_num, 0,
							  "row " UINT64_FORMAT " is not found by its row number",
							  rownum);
	ExecClearTuple(rb->slot);
	row_reader_end(cursor);
	/* a batch the lookup did not reach is still checked */
	row_reader_load_batch(rb->reader, rb->index);
	report_slow_rows(rb);
}

Datum
rowcompress_verify(PG_FUNCTION_ARGS)
{
	StorageVerify v;
	RowReader  *r;
	TupleTableSlot *slot;
	ListCell   *lc;
	int			i;

	storage_verify_begin(&v, fcinfo, PG_GETARG_OID(0), "rowcompress",
						 is_rowcompress, "batch", false);
	if (!v.has_meta)
	{
		storage_verify_end(&v);
		PG_RETURN_VOID();
	}

	r = row_reader_begin(v.rel, GetActiveSnapshot(), NULL);
	/* row_fetch checks need the stored positions */
	r->keep_deleted = true;
	foreach(lc, r->batches)
	{
		BatchMeta  *b = lfirst(lc);
		uint64		first;
		uint64		last;

		storage_verify_stream(&v, b->batch_num, b->first_block,
							  b->data_length, b->runs, b->nruns, b->row_count);
		/* row_fetch finds a row's batch by these bounds */
		row_runs_bounds(b->runs, b->nruns, &first, &last);
		if (first != b->first_row_number || last != b->last_row_number)
			storage_verify_report(&v, (int64) b->batch_num, 0,
								  "row number bounds " UINT64_FORMAT " to " UINT64_FORMAT " disagree with the row runs (" UINT64_FORMAT " to " UINT64_FORMAT ")",
								  b->first_row_number, b->last_row_number,
								  first, last);
	}
	storage_verify_overlaps(&v);

	slot = MakeSingleTupleTableSlot(RelationGetDescr(v.rel), &TTSOpsMinimalTuple);
	for (i = 0; i < r->nbatches; i++)
	{
		ReadBatch	rb = {&v, r, i, slot};

		if (!storage_verify_try(&v, (int64) ((BatchMeta *) list_nth(r->batches, i))->batch_num,
								read_batch, &rb))
			row_reader_reset(r);
	}
	ExecDropSingleTupleTableSlot(slot);
	row_reader_end(r);
	storage_verify_end(&v);
	PG_RETURN_VOID();
}
