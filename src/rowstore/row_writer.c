/*-------------------------------------------------------------------------
 *
 * row_writer.c
 *	  Buffers inserted rows as one batch and writes it compressed.
 *
 *	  A writer belongs to one relation and one (sub)transaction
 *	  (format/pending_writes.c keeps track of them).  Each row is
 *	  serialized into the batch buffer (row_batch.c) when it is inserted,
 *	  and gets its final row number, hence its TID, right then: the
 *	  executor inserts index entries right after tuple_insert returns.
 *
 *	  A batch is written when it reaches batch_size rows or the byte
 *	  budget, whichever comes first: compressed as one unit with the
 *	  table's codec (stored raw when that does not make it smaller), into
 *	  new pages of the relation (format/storage.c), then described by one
 *	  engine.batch row (catalog/batch_meta.c) that carries the batch's zone
 *	  map: each column's bounds and NULL count, which scans prune on.
 *
 *	  Memory: the writer's context holds one batch's serialized rows (at
 *	  most the byte budget plus one row); each row is detoasted in a
 *	  per-row context reset right after it is serialized; compression uses
 *	  a context deleted at the end of the flush.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "catalog/batch_meta.h"
#include "catalog/zone_map.h"
#include "catalog/options.h"
#include "codec/checksum.h"
#include "codec/codec.h"
#include "codec/frames.h"
#include "format/row_number.h"
#include "format/row_runs.h"
#include "format/storage.h"
#include "format/storage_am.h"
#include "format/storage_slots.h"
#include "rowstore/row_batch.h"
#include "rowstore/row_writer.h"

/* Byte budget of one batch's serialized rows. */
#define WRITER_BYTE_LIMIT	((Size) 64 * 1024 * 1024)

struct RowWriter
{
	MemoryContext cxt;			/* batch buffer and runs; reset per flush */
	MemoryContext row_cxt;		/* one row's detoasted values */
	TupleDesc	tupdesc;		/* as of the writer's creation */
	RowcompressOptions opts;
	StringInfoData buf;			/* the batch being built, in cxt */
	uint32		nrows;
	RowRunBuilder rows;			/* row numbers and command ids, in cxt */
	Datum	   *values;			/* [natts] scratch */
	bool	   *isnull;
	RowBatchAttr *attrs;		/* tupdesc's column layout */
};

static void *
ops_create(Relation rel, MemoryContext cxt)
{
	return row_writer_create(rel, cxt);
}

static void
ops_write(void *writer, Relation rel)
{
	row_writer_write(writer, rel);
}

static void
ops_clear(void *writer)
{
	row_writer_clear(writer);
}

static uint64
ops_pending_rows(const void *writer)
{
	return row_writer_pending_rows(writer);
}

static int
ops_natts(const void *writer)
{
	return row_writer_natts(writer);
}

static RowRunBuilder *
ops_rows(void *writer)
{
	return &((RowWriter *) writer)->rows;
}

static bool
ops_holds_row(void *writer, uint64 rownum)
{
	RowWriter  *w = writer;
	uint64		pos;

	return row_runs_find(w->rows.runs, w->rows.nruns, rownum, &pos);
}

static Size
ops_memory(const void *writer)
{
	return MemoryContextMemAllocated(((const RowWriter *) writer)->cxt, true);
}

static void
ops_free(void *writer)
{
	row_writer_free(writer);
}

const PendingWriterOps row_writer_ops = {
	.am_name = "rowcompress",
	.create = ops_create,
	.write = ops_write,
	.clear = ops_clear,
	.pending_rows = ops_pending_rows,
	.natts = ops_natts,
	.rows = ops_rows,
	.holds_row = ops_holds_row,
	.memory = ops_memory,
	.free = ops_free,
};

RowWriter *
row_writer_for(Relation rel)
{
	return pending_writer(rel, &row_writer_ops);
}

RowWriter *
row_writer_create(Relation rel, MemoryContext parent)
{
	RowWriter  *w = MemoryContextAllocZero(parent, sizeof(RowWriter));
	MemoryContext old;
	int			natts = RelationGetDescr(rel)->natts;

	w->cxt = AllocSetContextCreate(parent, "rowcompress write buffer",
								   ALLOCSET_DEFAULT_SIZES);
	w->row_cxt = AllocSetContextCreate(parent, "rowcompress row",
									   ALLOCSET_DEFAULT_SIZES);
	/* outside w->cxt: these outlive every flush */
	old = MemoryContextSwitchTo(parent);
	w->tupdesc = CreateTupleDescCopy(RelationGetDescr(rel));
	rowcompress_options_get(RelationGetRelid(rel), &w->opts);
	if (w->opts.batch_size < 1)
		w->opts.batch_size = 1;
	w->values = palloc(sizeof(Datum) * Max(natts, 1));
	w->isnull = palloc(sizeof(bool) * Max(natts, 1));
	w->attrs = palloc(sizeof(RowBatchAttr) * Max(natts, 1));
	row_batch_attrs(w->tupdesc, w->attrs);
	MemoryContextSwitchTo(old);
	row_runs_init(&w->rows, w->cxt, (uint64) w->opts.batch_size);
	w->rows.on_reserve = storage_rows_reserved;
	return w;
}

int
row_writer_natts(const RowWriter *w)
{
	return w->tupdesc->natts;
}

uint64
row_writer_pending_rows(const RowWriter *w)
{
	return w->nrows;
}

void
row_writer_free(RowWriter *w)
{
	MemoryContextDelete(w->cxt);
	MemoryContextDelete(w->row_cxt);
	pfree(w->values);
	pfree(w->isnull);
	pfree(w->attrs);
	FreeTupleDesc(w->tupdesc);
	pfree(w);
}

static void
reset_buffer(RowWriter *w)
{
	MemoryContextReset(w->cxt);
	w->buf.data = NULL;
	w->buf.len = w->buf.maxlen = 0;
	w->nrows = 0;
	row_runs_reset(&w->rows);
}

/* Starts the batch buffer, unless it is started. */
static void
begin_batch(RowWriter *w)
{
	MemoryContext old;

	if (w->buf.data != NULL)
		return;
	old = MemoryContextSwitchTo(w->cxt);

	initStringInfo(&w->buf);
	row_batch_begin(&w->buf, w->tupdesc);
	MemoryContextSwitchTo(old);
}

/* The row just appended gets its row number, hence the slot its TID. */
static void
add_row(RowWriter *w, Relation rel, TupleTableSlot *slot, CommandId cid)
{
	uint64		rownum = row_runs_add(&w->rows, rel, cid);

	w->nrows++;
	row_number_to_tid(rownum, &slot->tts_tid);
	slot->tts_tableOid = RelationGetRelid(rel);
}

/*
 * Appends the slot's MinimalTuple as is when it is already a row of the
 * batch layout; false when it is not.  INSERT hands us minimal slots
 * holding a tuple that heap_form_minimal_tuple built, or that was copied
 * from a heap tuple: our row layout, unless it holds TOAST pointers or
 * compressed values or belongs to another column layout.  A heap tuple's
 * copy carries visibility hint bits and, in its padding, the heap TID,
 * which the row must not (they would also spoil compression): they are
 * cleared in the copy, and the copy is checked as a reader will check it.
 */
static bool
append_slot_tuple(RowWriter *w, Relation rel, TupleTableSlot *slot)
{
	MinimalTuple tup;
	MinimalTuple copy;
	int			start;
	uint64		len;
	bool		slow = false;

	if (!storage_slot_is_minimal(slot) || TTS_EMPTY(slot) ||
		slot->tts_tupleDescriptor->natts != w->tupdesc->natts)
		return false;
	tup = ((MinimalTupleTableSlot *) slot)->mintuple;
	if (tup == NULL || (tup->t_infomask & HEAP_HASEXTERNAL) != 0 ||
		tup->t_len < ROW_BATCH_MIN_ROW_SIZE)
		return false;

	if (w->nrows > 0 &&
		(w->nrows >= (uint32) w->opts.batch_size ||
		 (Size) w->buf.len + MAXALIGN(tup->t_len) > WRITER_BYTE_LIMIT))
		row_writer_flush(w, rel);
	if (w->nrows == 0)
		begin_batch(w);

	start = w->buf.len;
	row_batch_append_tuple(&w->buf, tup);
	copy = (MinimalTuple) (w->buf.data + start);
	memset(copy->mt_padding, 0, sizeof(copy->mt_padding));
	copy->t_infomask &= (HEAP_HASNULL | HEAP_HASVARWIDTH);
	copy->t_infomask2 &= HEAP_NATTS_MASK;
	if (row_batch_check_row((const char *) copy, copy->t_len,
							w->tupdesc->natts, w->attrs, &len, &slow) != NULL)
	{
		/* not our layout after all: take it back */
		w->buf.len = start;
		w->buf.data[start] = '\0';
		return false;
	}
	return true;
}

void
row_writer_insert(RowWriter *w, Relation rel, TupleTableSlot *slot,
				  CommandId cid)
{
	TupleDesc	desc = w->tupdesc;
	int			slot_natts = slot->tts_tupleDescriptor->natts;
	MemoryContext old;
	Size		row_size;
	Size		data_len;
	int			i;

	if (append_slot_tuple(w, rel, slot))
	{
		add_row(w, rel, slot, cid);
		return;
	}

	slot_getallattrs(slot);
	old = MemoryContextSwitchTo(w->row_cxt);
	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute attr = TupleDescAttr(desc, i);
		bool		null = i >= slot_natts || slot->tts_isnull[i] ||
			attr->attisdropped;

		w->isnull[i] = null;
		w->values[i] = null ? (Datum) 0 : slot->tts_values[i];
		if (!null && attr->attlen == -1)
		{
			struct varlena *v = (struct varlena *) DatumGetPointer(w->values[i]);

			/* stored values are never external or compressed */
			if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
				w->values[i] = PointerGetDatum(detoast_attr(v));
		}
	}
	row_size = row_batch_row_size(desc, w->values, w->isnull, &data_len);
	MemoryContextSwitchTo(old);

	if (w->nrows > 0 &&
		(w->nrows >= (uint32) w->opts.batch_size ||
		 (Size) w->buf.len + row_size > WRITER_BYTE_LIMIT))
		row_writer_flush(w, rel);
	if (w->nrows == 0)
		begin_batch(w);
	row_batch_append(&w->buf, desc, w->values, w->isnull, data_len);
	MemoryContextReset(w->row_cxt);
	add_row(w, rel, slot, cid);
}

/*
 * Rows in the frame that starts at row first (byte off of the buffer):
 * up to FRAME_MAX_ROWS rows or about target bytes, at most to row end.
 * Sets *next_off to the byte after them.
 */
static uint32
frame_rows(RowWriter *w, uint32 first, Size off, uint32 end, Size target,
		   Size *next_off)
{
	Size		start = off;
	uint32		n = 0;

	/* the rows were written here, so their lengths are trusted */
	while (first + n < end && n < FRAME_MAX_ROWS && off - start < target)
	{
		off += MAXALIGN(((MinimalTuple) (w->buf.data + off))->t_len);
		n++;
	}
	*next_off = off;
	return n;
}

/* Appends to raw the frame of rows [first, first + n) at [start, end). */
static void
encode_frame(RowWriter *w, Size start, Size end, uint32 n, StringInfo raw)
{
	row_batch_begin(raw, w->tupdesc);
	appendBinaryStringInfo(raw, w->buf.data + start, (int) (end - start));
	row_batch_finish(raw, n);
}

/*
 * Adds the rows from *first (at byte *off) up to row end to fw, in frames
 * of about target bytes; advances *first and *off.
 */
static void
add_frames(RowWriter *w, FrameWriter *fw, uint32 *first, Size *off,
		   uint32 end, Size target)
{
	StringInfoData raw;

	initStringInfo(&raw);
	while (*first < end)
	{
		Size		next;
		uint32		n = frame_rows(w, *first, *off, end, target, &next);

		resetStringInfo(&raw);
		encode_frame(w, *off, next, n, &raw);
		frames_add(fw, *first, raw.data, (uint32) raw.len);
		*first += n;
		*off = next;
	}
	pfree(raw.data);
}

/* Stored bytes a frame writer holds so far. */
static Size
frames_size(const FrameWriter *fw)
{
	return (Size) fw->entries.len + fw->data.len;
}

/*
 * A batch gets a dictionary only when it holds at least this many bytes of
 * rows: below that, long frames without one are smaller.  Choosing between
 * them encodes the batch's first few long frames both ways.
 */
#define DICT_MIN_BATCH_BYTES	(128 * 1024)

/*
 * A batch with a dictionary has frames of 6 kB, not colcompress's 16 kB: a
 * fetch by TID decompresses a frame of whole rows, every column, so the
 * frame's size is most of its cost.  On the benchmark's events table 8 kB
 * frames made fetches of 100 rows by key a quarter faster than 16 kB
 * frames and of a hundred users' rows a third, for 2% more bytes; 6 kB
 * frames made them 10-15% faster again for 0.8% more bytes, scans no
 * slower.  Shorter is not better: 5 kB frames fetched and scanned slower
 * than 6 kB, 4 kB scanned 45% slower (docs/rowcompress-format.md).
 * Judged on a batch's first frames, they look 6-8% larger than long frames
 * without a dictionary: they are kept up to 10%.
 */
#define ROW_FRAME_DICT_TARGET_RAW_BYTES	(6 * 1024)
#define ROW_DICT_MAX_GROWTH		1.10
#define DICT_TRIAL_FRAMES		3

/*
 * Frames with a dictionary store their literals (the bytes no match
 * covers) raw, not Huffman-coded, when that takes at most a fifth more
 * bytes on the batch's first frames: a 6 kB frame then decodes without
 * building a Huffman table and walking it byte by byte.  On the events
 * table: 16% more bytes (0.28 of heap), scans of every row a quarter
 * faster, fetches of 100 rows by key a quarter to a third
 * (docs/rowcompress-format.md).
 */
#define ROW_RAW_LITERALS_MAX_GROWTH	1.20

/*
 * Trains a dictionary on short frames sampled evenly across the buffered
 * batch; returns it loaded for compression (its bytes in *dict), or NULL.
 */
static const CodecDict *
train_dictionary(RowWriter *w, const Codec *codec, Size total, char **dict,
				 int32 *dictlen)
{
	uint32		nframes = (uint32) (total / FRAMES_DICT_SAMPLE_FRAME_BYTES) + 1;
	uint32		step = Max(1, (uint32) (total / FRAMES_DICT_SAMPLE_BYTES));
	StringInfoData samples;
	StringInfoData frame;
	size_t	   *sizes = palloc(sizeof(size_t) * (nframes / step + 2));
	uint32		nsamples = 0;
	uint32		first = 0;
	Size		off = ROW_BATCH_HEADER_SIZE;
	uint32		i = 0;
	const CodecDict *loaded;

	initStringInfo(&samples);
	initStringInfo(&frame);
	while (first < w->nrows)
	{
		Size		next;
		uint32		n = frame_rows(w, first, off, w->nrows,
								   FRAMES_DICT_SAMPLE_FRAME_BYTES, &next);

		if (i++ % step == 0 && nsamples < nframes / step + 2)
		{
			/* a frame is a batch of its own: encoded alone, then appended */
			int			kept;

			resetStringInfo(&frame);
			encode_frame(w, off, next, n, &frame);
			kept = Min(frame.len, FRAMES_DICT_SAMPLE_MAX_BYTES);
			appendBinaryStringInfo(&samples, frame.data, kept);
			sizes[nsamples++] = (size_t) kept;
		}
		first += n;
		off = next;
	}
	loaded = frames_dict_train(codec, w->opts.compression_level, total,
							   samples.data, sizes, nsamples, dict, dictlen);
	pfree(frame.data);
	pfree(samples.data);
	pfree(sizes);
	return loaded;
}

/*
 * Lays out the buffered batch as a framed unit (codec/frames.h) in stored:
 * each frame is a batch of its own (header and rows), so that fetching a
 * row by TID decompresses one frame.  Frames are short and share a
 * dictionary (*dict, *dictlen) when that costs little size
 * (frames_dict_pays, on the batch's first frames), otherwise up to
 * FRAME_MAX_ROWS rows or about FRAME_TARGET_RAW_BYTES and *dict is NULL.
 * Returns the frames' total uncompressed length.
 */
static uint64
frame_batch(RowWriter *w, const Codec *codec, StringInfo stored, char **dict,
			int32 *dictlen)
{
	int			level = w->opts.compression_level;
	Size		total = w->buf.len - ROW_BATCH_HEADER_SIZE;
	const CodecDict *loaded = NULL;
	FrameWriter fw;
	FrameWriter candidate;
	Size		target = FRAME_TARGET_RAW_BYTES;
	uint32		first = 0;
	Size		off = ROW_BATCH_HEADER_SIZE;
	uint32		trial_end = 0;
	Size		trial_off = ROW_BATCH_HEADER_SIZE;
	uint32		cfirst = 0;
	Size		coff = ROW_BATCH_HEADER_SIZE;
	int			k;

	*dict = NULL;
	/* rows as wide as a long frame make frames of one row either way */
	if (total >= DICT_MIN_BATCH_BYTES &&
		total < (Size) w->nrows * FRAME_TARGET_RAW_BYTES)
		loaded = train_dictionary(w, codec, total, dict, dictlen);
	frames_begin(&fw, codec, level, NULL);
	if (loaded == NULL)
	{
		add_frames(w, &fw, &first, &off, w->nrows, target);
		frames_finish(&fw, stored);
		return fw.raw_total;
	}

	/* the first long frames, both ways: the winner goes on */
	for (k = 0; k < DICT_TRIAL_FRAMES; k++)
		trial_end += frame_rows(w, trial_end, trial_off, w->nrows,
								FRAME_TARGET_RAW_BYTES, &trial_off);
	add_frames(w, &fw, &first, &off, trial_end, FRAME_TARGET_RAW_BYTES);
	frames_begin(&candidate, codec, level, loaded);
	add_frames(w, &candidate, &cfirst, &coff, trial_end,
			   ROW_FRAME_DICT_TARGET_RAW_BYTES);
	if (frames_dict_pays(frames_size(&candidate) +
						 (double) *dictlen * (off - ROW_BATCH_HEADER_SIZE) / total,
						 frames_size(&fw), ROW_DICT_MAX_GROWTH, 0))
	{
		FrameWriter fast;

		/* and again with raw literals */
		cfirst = 0;
		coff = ROW_BATCH_HEADER_SIZE;
		frames_begin(&fast, codec, level, loaded);
		fast.raw_literals = true;
		add_frames(w, &fast, &cfirst, &coff, trial_end,
				   ROW_FRAME_DICT_TARGET_RAW_BYTES);
		frames_discard(&fw);
		if (frames_size(&fast) <=
			frames_size(&candidate) * ROW_RAW_LITERALS_MAX_GROWTH)
		{
			frames_discard(&candidate);
			fw = fast;
		}
		else
		{
			frames_discard(&fast);
			fw = candidate;
		}
		target = ROW_FRAME_DICT_TARGET_RAW_BYTES;
	}
	else
	{
		frames_discard(&candidate);
		*dict = NULL;
	}
	add_frames(w, &fw, &first, &off, w->nrows, target);
	frames_finish(&fw, stored);
	return fw.raw_total;
}

/*
 * The buffered batch's zone map into b (allocated in CurrentMemoryContext):
 * per column with a btree ordering (catalog/zone_map.h) its minimum and
 * maximum, and every column's NULL count.  Rows are deformed two at a time
 * so that each pair costs three comparisons per column, not four.
 */
static void
batch_zone_map(RowWriter *w, BatchMeta *b)
{
	TupleDesc	desc = w->tupdesc;
	int			natts = desc->natts;
	SortSupportData *ssup = palloc(sizeof(SortSupportData) * Max(natts, 1));
	bool	   *ordered = palloc(sizeof(bool) * Max(natts, 1));
	bool	   *have = palloc0(sizeof(bool) * Max(natts, 1));
	Datum	   *min = palloc0(sizeof(Datum) * Max(natts, 1));
	Datum	   *max = palloc0(sizeof(Datum) * Max(natts, 1));
	Datum	   *values[2];
	bool	   *isnull[2];
	Size		off = ROW_BATCH_HEADER_SIZE;
	uint32		r;
	int			a;

	b->zone.min = palloc0(sizeof(bytea *) * Max(natts, 1));
	b->zone.max = palloc0(sizeof(bytea *) * Max(natts, 1));
	b->zone.null_count = palloc0(sizeof(uint64) * Max(natts, 1));
	b->zone.type = palloc(sizeof(Oid) * Max(natts, 1));
	b->zone.collation = palloc(sizeof(Oid) * Max(natts, 1));
	for (a = 0; a < natts; a++)
	{
		ordered[a] = zone_map_sortsupport(TupleDescAttr(desc, a), &ssup[a]);
		zone_bounds_signature(TupleDescAttr(desc, a), &b->zone.type[a],
							  &b->zone.collation[a]);
	}
	for (r = 0; r < 2; r++)
	{
		values[r] = palloc(sizeof(Datum) * Max(natts, 1));
		isnull[r] = palloc(sizeof(bool) * Max(natts, 1));
	}

	for (r = 0; r < w->nrows; r += 2)
	{
		int			n = Min(2, (int) (w->nrows - r));
		int			k;

		CHECK_FOR_INTERRUPTS();
		/* the rows were written here, so their lengths are trusted */
		for (k = 0; k < n; k++)
		{
			MinimalTuple tup = (MinimalTuple) (w->buf.data + off);
			HeapTupleData htup;

			htup.t_len = tup->t_len + MINIMAL_TUPLE_OFFSET;
			htup.t_data = (HeapTupleHeader) ((char *) tup - MINIMAL_TUPLE_OFFSET);
			heap_deform_tuple(&htup, desc, values[k], isnull[k]);
			off += MAXALIGN(tup->t_len);
		}
		for (a = 0; a < natts; a++)
		{
			Datum		lo;
			Datum		hi;

			for (k = 0; k < n; k++)
				b->zone.null_count[a] += isnull[k][a] ? 1 : 0;
			if (!ordered[a])
				continue;
			if (n == 2 && !isnull[0][a] && !isnull[1][a])
			{
				bool		swap = ApplySortComparator(values[0][a], false,
													   values[1][a], false,
													   &ssup[a]) > 0;

				lo = values[swap ? 1 : 0][a];
				hi = values[swap ? 0 : 1][a];
			}
			else if (!isnull[0][a])
				lo = hi = values[0][a];
			else if (n == 2 && !isnull[1][a])
				lo = hi = values[1][a];
			else
				continue;
			zone_bounds_widen(&ssup[a], lo, hi, &have[a], &min[a], &max[a]);
		}
		/* by-reference bounds point into the buffer, which stays */
	}

	for (a = 0; a < natts; a++)
	{
		if (have[a])
			zone_bounds_serialize_pair(min[a], max[a], TupleDescAttr(desc, a),
									   &b->zone.min[a], &b->zone.max[a]);
	}
}

void
row_writer_write(RowWriter *w, Relation rel)
{
	const Codec *codec = codec_by_id(w->opts.codec);
	MemoryContext flush_cxt;
	MemoryContext old;
	BatchMeta	batch;
	StorageMeta meta;
	StringInfoData stored;
	char	   *dict;
	int32		dictlen = 0;

	if (w->nrows == 0)
		return;
	if (codec == NULL || !codec->available)
		codec = codec_by_id(CODEC_NONE);

	flush_cxt = AllocSetContextCreate(CurrentMemoryContext,
									  "rowcompress batch flush",
									  ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(flush_cxt);
	row_batch_finish(&w->buf, w->nrows);

	memset(&batch, 0, sizeof(batch));
	batch.codec = codec->id;
	CHECK_FOR_INTERRUPTS();
	initStringInfo(&stored);
	batch.raw_length = frame_batch(w, codec, &stored, &dict, &dictlen);
	batch.checksum = checksum_bytes(stored.data, stored.len);
	/* the dictionary follows the frames, with a checksum of its own */
	batch.dict_offset = BATCH_NO_DICT;
	if (dict != NULL)
	{
		batch.dict_offset = stored.len;
		frames_dict_write(&stored, dict, (uint32) dictlen);
	}

	batch.storage_id = storage_ensure_meta(rel, &meta);
	batch.first_block = storage_am_write_stream(rel, batch.storage_id,
												stored.data, stored.len,
												&batch.batch_num);
	batch.data_length = stored.len;
	batch.row_count = w->nrows;
	batch.nruns = w->rows.nruns;
	batch.runs = w->rows.runs;
	batch.ncids = w->rows.ncids;
	batch.cids = w->rows.cids;
	row_runs_bounds(w->rows.runs, w->rows.nruns, &batch.first_row_number,
					&batch.last_row_number);
	batch.column_count = w->tupdesc->natts;
	batch_zone_map(w, &batch);
	batch_meta_insert(&batch);

	MemoryContextSwitchTo(old);
	MemoryContextDelete(flush_cxt);
}

void
row_writer_clear(RowWriter *w)
{
	reset_buffer(w);
}

void
row_writer_flush(RowWriter *w, Relation rel)
{
	row_writer_write(w, rel);
	reset_buffer(w);
}
