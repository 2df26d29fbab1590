/*-------------------------------------------------------------------------
 *
 * col_writer.c
 *	  Buffers inserted rows column by column and writes them as a stripe.
 *
 *	  A writer belongs to one relation and one (sub)transaction
 *	  (format/pending_writes.c keeps track of them).  Each row gets its final row
 *	  number, hence its TID, when it is buffered: the executor inserts
 *	  index entries right after tuple_insert returns.  Row numbers are
 *	  reserved from the metapage in growing runs (format/row_runs.c), so a
 *	  one-row transaction costs few numbers and a bulk load one reservation
 *	  per few thousand rows.
 *
 *	  With the orderby option, the rows of a stripe are sorted before it is
 *	  written, so even a load in arbitrary order gives tight zone maps.
 *	  Sorting moves rows to other row numbers (the stripe's reserved
 *	  numbers are handed out again in sorted order), which is only right
 *	  while nothing holds the TIDs given at insert: the stripe is sorted
 *	  only when the table has no index.  Rows of different commands of the
 *	  transaction are sorted separately, so each command still sees a
 *	  prefix of the stripe (see stripe_visible_rows).
 *
 *	  Memory: the writer's context holds at most one stripe of values; the
 *	  stripe is written when it reaches stripe_row_limit rows or the byte
 *	  budget, whichever comes first, so wide values cannot exhaust memory.
 *	  Encoding and compression use a per-chunk context reset after every
 *	  chunk.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/detoast.h"
#include "access/tupdesc.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "port/pg_crc32c.h"
#include "utils/datum.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/sortsupport.h"

#include "catalog/options.h"
#include "catalog/stripe_meta.h"
#include "catalog/zone_map.h"
#include "codec/chars_encoding.h"
#include "codec/codec.h"
#include "codec/delta.h"
#include "codec/dict_encoding.h"
#include "codec/frames.h"
#include "codec/packed_encoding.h"
#include "codec/value_encoding.h"
#include "colstore/col_writer.h"
#include "format/pending_writes.h"
#include "format/row_number.h"
#include "format/row_runs.h"
#include "format/storage.h"
#include "format/storage_am.h"
#include "guc.h"

/* Byte budget of one writer's buffered values. */
#define WRITER_BYTE_LIMIT	((Size) 256 * 1024 * 1024)

/*
 * A writer keeps its column arrays and value blocks from one stripe to the
 * next up to this many bytes: memory freed after a flush went back to the
 * operating system, and faulting it in again for every stripe took a
 * twelfth of a load.  A stripe of the events table's rows takes 66 MB.
 */
#define WRITER_KEEP_BYTES	((Size) 128 * 1024 * 1024)

/* A block of an arena: its size, then its bytes (at ARENA_DATA). */
typedef struct ArenaBlock
{
	struct ArenaBlock *next;
	Size		size;
} ArenaBlock;

#define ARENA_DATA(b)	((char *) (b) + MAXALIGN(sizeof(ArenaBlock)))

typedef struct ValueArena
{
	char	   *next;			/* free space of the current block */
	Size		left;
	Size		block;			/* size of the last block made */
	ArenaBlock *blocks;			/* every block, in the order filled */
	ArenaBlock *current;		/* the block being filled, or NULL */
} ValueArena;

struct ColWriter
{
	MemoryContext cxt;			/* values alone, row runs; reset after each flush */
	MemoryContext keep_cxt;		/* arrays and value blocks, kept for the next
								 * stripe up to WRITER_KEEP_BYTES */
	MemoryContext chunk_cxt;	/* per-chunk scratch */
	TupleDesc	tupdesc;		/* as of the writer's creation */
	ColcompressOptions opts;
	uint32		nrows;
	uint32		capacity;		/* allocated entries per column */
	Datum	  **values;			/* [natts][capacity] */
	bool	  **isnull;
	Size		bytes;
	ValueArena *arenas;			/* [natts], in keep_cxt */
	RowRunBuilder rows;			/* row numbers and command ids, in cxt */
};

/*
 * By-reference values are copied into blocks, one series of blocks per
 * column: a palloc per value cost more than the copy, and the flush goes
 * over a stripe column by column (framing, encoding, zone maps), which
 * missed the cache at nearly every value while a column's values were
 * spread among the other columns'.  Blocks grow from the first size to
 * the last, so a narrow load and a thousand-column table both stay
 * small; values above a quarter of the last size are allocated alone.
 */
#define ARENA_FIRST_BLOCK	((Size) 8 * 1024)
#define ARENA_LAST_BLOCK	((Size) 1024 * 1024)

void
col_writer_keep_order(ColWriter *w)
{
	w->opts.orderby = NULL;
}

static void *
ops_create(Relation rel, MemoryContext cxt)
{
	return col_writer_create(rel, cxt);
}

static void
ops_write(void *writer, Relation rel)
{
	col_writer_write(writer, rel);
}

static void
ops_clear(void *writer)
{
	col_writer_clear(writer);
}

static uint64
ops_pending_rows(const void *writer)
{
	return col_writer_pending_rows(writer);
}

static int
ops_natts(const void *writer)
{
	return col_writer_natts(writer);
}

static RowRunBuilder *
ops_rows(void *writer)
{
	return &((ColWriter *) writer)->rows;
}

static Size
ops_memory(const void *writer)
{
	const ColWriter *w = writer;

	return MemoryContextMemAllocated(w->cxt, true) +
		MemoryContextMemAllocated(w->keep_cxt, true);
}

static void
ops_free(void *writer)
{
	col_writer_free(writer);
}

const PendingWriterOps col_writer_ops = {
	.am_name = "colcompress",
	.create = ops_create,
	.write = ops_write,
	.clear = ops_clear,
	.pending_rows = ops_pending_rows,
	.natts = ops_natts,
	.rows = ops_rows,
	.memory = ops_memory,
	.free = ops_free,
};

ColWriter *
col_writer_for(Relation rel)
{
	return pending_writer(rel, &col_writer_ops);
}

ColWriter *
col_writer_create(Relation rel, MemoryContext parent)
{
	ColWriter  *w = MemoryContextAllocZero(parent, sizeof(ColWriter));

	w->cxt = AllocSetContextCreate(parent, "colcompress write buffer",
								   ALLOCSET_DEFAULT_SIZES);
	w->keep_cxt = AllocSetContextCreate(parent, "colcompress write arrays",
										ALLOCSET_DEFAULT_SIZES);
	w->chunk_cxt = AllocSetContextCreate(parent, "colcompress chunk encoding",
										 ALLOCSET_DEFAULT_SIZES);
	{
		/*
		 * outside w->cxt: these outlive every flush; in parent, not the
		 * caller's context, which may be a statement's (a writer replaced
		 * after ALTER TABLE ADD COLUMN is made in the inserting statement)
		 */
		MemoryContext old = MemoryContextSwitchTo(parent);

		w->tupdesc = CreateTupleDescCopy(RelationGetDescr(rel));
		colcompress_options_get(RelationGetRelid(rel), &w->opts);
		MemoryContextSwitchTo(old);
	}
	row_runs_init(&w->rows, w->cxt, (uint64) w->opts.stripe_row_limit);
	w->rows.on_reserve = storage_rows_reserved;
	return w;
}

int
col_writer_natts(const ColWriter *w)
{
	return w->tupdesc->natts;
}

uint64
col_writer_pending_rows(const ColWriter *w)
{
	return w->nrows;
}

void
col_writer_free(ColWriter *w)
{
	MemoryContextDelete(w->cxt);
	MemoryContextDelete(w->keep_cxt);
	MemoryContextDelete(w->chunk_cxt);
	pfree(w);
}

static void
reset_buffer(ColWriter *w)
{
	MemoryContextReset(w->cxt);
	if (MemoryContextMemAllocated(w->keep_cxt, false) > WRITER_KEEP_BYTES)
	{
		MemoryContextReset(w->keep_cxt);
		w->capacity = 0;
		w->values = NULL;
		w->isnull = NULL;
		w->arenas = NULL;
	}
	else if (w->arenas != NULL)
	{
		int			i;

		/* the blocks are filled again from the first */
		for (i = 0; i < w->tupdesc->natts; i++)
		{
			w->arenas[i].current = NULL;
			w->arenas[i].next = NULL;
			w->arenas[i].left = 0;
		}
	}
	w->nrows = 0;
	w->bytes = 0;
	row_runs_reset(&w->rows);
}

/*
 * The arena's next block with room for len bytes: the one after the
 * current block if it is large enough, else a new one put there.
 */
static void
arena_next_block(ColWriter *w, ValueArena *arena, Size len)
{
	ArenaBlock *after = arena->current != NULL ? arena->current->next :
		arena->blocks;
	ArenaBlock *b = after;

	if (b == NULL || b->size < len)
	{
		arena->block = arena->block == 0 ? ARENA_FIRST_BLOCK :
			Min(2 * arena->block, ARENA_LAST_BLOCK);
		arena->block = Max(arena->block, len);
		b = MemoryContextAlloc(w->keep_cxt,
							   MAXALIGN(sizeof(ArenaBlock)) + arena->block);
		b->size = arena->block;
		b->next = after;
		if (arena->current != NULL)
			arena->current->next = b;
		else
			arena->blocks = b;
	}
	arena->current = b;
	arena->next = ARENA_DATA(b);
	arena->left = b->size;
}

/*
 * Room for len bytes of a value in the writer's context.  Values with a
 * 4-byte header (and fixed-length ones) stay MAXALIGNed, as palloc would
 * give them; 1-byte-header varlenas need no alignment, as in a heap tuple.
 */
static char *
arena_alloc(ColWriter *w, int attno, Size len, bool aligned)
{
	ValueArena *arena = &w->arenas[attno];
	char	   *p;

	if (aligned)
	{
		Size		pad = (Size) (TYPEALIGN(MAXIMUM_ALIGNOF, (uintptr_t) arena->next) -
								  (uintptr_t) arena->next);

		if (pad > arena->left)
			arena->left = 0;
		else
		{
			arena->next += pad;
			arena->left -= pad;
		}
	}
	if (len > arena->left)
	{
		if (len > ARENA_LAST_BLOCK / 4)
			return MemoryContextAlloc(w->cxt, len);
		arena_next_block(w, arena, len);
	}
	p = arena->next;
	arena->next += len;
	arena->left -= len;
	return p;
}

static void
grow_columns(ColWriter *w)
{
	int			natts = w->tupdesc->natts;
	uint32		newcap = w->capacity == 0 ? 64 :
		Min(w->capacity * 2, (uint32) w->opts.stripe_row_limit);
	int			i;

	if (w->values == NULL)
	{
		w->arenas = MemoryContextAllocZero(w->keep_cxt, sizeof(ValueArena) * Max(natts, 1));
		w->values = MemoryContextAllocZero(w->keep_cxt, sizeof(Datum *) * Max(natts, 1));
		w->isnull = MemoryContextAllocZero(w->keep_cxt, sizeof(bool *) * Max(natts, 1));
		for (i = 0; i < natts; i++)
		{
			w->values[i] = MemoryContextAlloc(w->keep_cxt, sizeof(Datum) * newcap);
			w->isnull[i] = MemoryContextAlloc(w->keep_cxt, sizeof(bool) * newcap);
		}
	}
	else
	{
		for (i = 0; i < natts; i++)
		{
			w->values[i] = repalloc(w->values[i], sizeof(Datum) * newcap);
			w->isnull[i] = repalloc(w->isnull[i], sizeof(bool) * newcap);
		}
	}
	w->capacity = newcap;
}

void
col_writer_insert(ColWriter *w, Relation rel, TupleTableSlot *slot,
				  CommandId cid)
{
	int			natts = w->tupdesc->natts;
	MemoryContext old;
	uint64		rownum;
	int			i;

	if (w->nrows >= (uint32) w->opts.stripe_row_limit ||
		w->bytes >= WRITER_BYTE_LIMIT)
		col_writer_flush(w, rel);
	if (w->nrows == w->capacity)
		grow_columns(w);

	slot_getallattrs(slot);
	old = MemoryContextSwitchTo(w->cxt);	/* detoasted copies */
	for (i = 0; i < natts; i++)
	{
		Form_pg_attribute attr = TupleDescAttr(w->tupdesc, i);
		Datum		value = slot->tts_values[i];
		bool		null = slot->tts_isnull[i] || attr->attisdropped;

		w->isnull[i][w->nrows] = null;
		if (null)
		{
			w->values[i][w->nrows] = (Datum) 0;
			continue;
		}
		if (attr->attbyval)
			w->values[i][w->nrows] = value;
		else if (attr->attlen == -1)
		{
			struct varlena *v = (struct varlena *) DatumGetPointer(value);

			/* stored values are never external or compressed */
			if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
			{
				v = detoast_attr(v);
				w->values[i][w->nrows] = PointerGetDatum(v);
			}
			else
			{
				/* short headers stay short */
				Size		len = VARSIZE_ANY(v);
				char	   *copy = arena_alloc(w, i, len, !VARATT_IS_SHORT(v));

				memcpy(copy, v, len);
				w->values[i][w->nrows] = PointerGetDatum(copy);
			}
			w->bytes += VARSIZE_ANY(v);
		}
		else
		{
			Size		len = datumGetSize(value, false, attr->attlen);
			char	   *copy = arena_alloc(w, i, len, true);

			memcpy(copy, DatumGetPointer(value), len);
			w->values[i][w->nrows] = PointerGetDatum(copy);
			w->bytes += len;
		}
	}
	MemoryContextSwitchTo(old);

	rownum = row_runs_add(&w->rows, rel, cid);
	w->nrows++;
	row_number_to_tid(rownum, &slot->tts_tid);
	slot->tts_tableOid = RelationGetRelid(rel);
}

/*
 * Whether column attr orders by its bytes: text and varchar under a C
 * collation, whose comparator is a memcmp behind a function call and two
 * detoast calls per comparison (a tenth of a load's time went there).
 */
static bool
orders_by_bytes(Form_pg_attribute attr)
{
	return (attr->atttypid == TEXTOID || attr->atttypid == VARCHAROID) &&
		compat_collation_is_c(attr->attcollation);
}

/* varstr_cmp's order under a C collation; buffered values are inline. */
static inline int
bytes_cmp(Datum a, Datum b)
{
	const char *x = DatumGetPointer(a);
	const char *y = DatumGetPointer(b);
	Size		xlen = VARSIZE_ANY_EXHDR(x);
	Size		ylen = VARSIZE_ANY_EXHDR(y);
	int			c = memcmp(VARDATA_ANY(x), VARDATA_ANY(y), Min(xlen, ylen));

	return c != 0 ? c : (xlen > ylen) - (xlen < ylen);
}

/*
 * Min and max of rows [start, end) of column attno; false when the column
 * has no zone map or no non-NULL value there.  by_bytes: the column
 * orders_by_bytes, and ssup agrees with bytes_cmp.
 */
static bool
chunk_minmax(ColWriter *w, int attno, uint32 start, uint32 end,
			 SortSupport ssup, bool by_bytes, Datum *min, Datum *max)
{
	const bool *isnull = w->isnull[attno];
	const Datum *values = w->values[attno];
	bool		have = false;
	uint32		r = start;

	/*
	 * Values in pairs: the smaller one against the minimum, the larger
	 * against the maximum, three comparisons for two values.
	 */
	while (r < end)
	{
		Datum		lo;
		Datum		hi;

		if (isnull[r])
		{
			r++;
			continue;
		}
		lo = hi = values[r++];
		while (r < end && isnull[r])
			r++;
		if (r < end)
		{
			hi = values[r++];
			if ((by_bytes ? bytes_cmp(lo, hi) :
				 ApplySortComparator(lo, false, hi, false, ssup)) > 0)
			{
				Datum		swap = lo;

				lo = hi;
				hi = swap;
			}
		}
		if (by_bytes && have)
		{
			if (bytes_cmp(lo, *min) < 0)
				*min = lo;
			if (bytes_cmp(hi, *max) > 0)
				*max = hi;
		}
		else
			zone_bounds_widen(ssup, lo, hi, &have, min, max);
	}
	return have;
}

/* Bytes value v of attr takes in a chunk's value layout, roughly. */
static Size
encoded_size(Form_pg_attribute attr, Datum v)
{
	if (attr->attlen > 0)
		return attr->attlen;
	if (attr->attlen == -1)
		return VARSIZE_ANY(DatumGetPointer(v)) + 3;	/* up to 3 pad bytes */
	return strlen(DatumGetCString(v)) + 1;
}

/*
 * End of the frame of column a that starts at row first (< end): after
 * FRAME_MAX_ROWS rows or once its values reach target bytes.  Sets *nulls
 * to the frame's NULLs and *bytes to its values' size, roughly.
 */
static uint32
frame_end(ColWriter *w, int a, uint32 first, uint32 end, Size target,
		  uint32 *nulls, Size *bytes)
{
	Form_pg_attribute attr = TupleDescAttr(w->tupdesc, a);
	const bool *isnull = w->isnull[a];
	const Datum *values = w->values[a];
	uint32		limit = Min(end, first + FRAME_MAX_ROWS);
	uint32		last = first;
	uint32		n = 0;
	Size		size = 0;

	if (attr->attlen > 0)
	{
		/* fixed width: only the NULLs need counting */
		for (; last < limit && size < target; last++)
		{
			n += isnull[last];
			size += isnull[last] ? 0 : attr->attlen;
		}
	}
	else
	{
		for (; last < limit && size < target; last++)
		{
			if (isnull[last])
				n++;
			else
				size += encoded_size(attr, values[last]);
		}
	}
	*nulls = n;
	*bytes = size;
	return last;
}

/*
 * Appends the raw bytes of rows [first, last) of column a to raw; false
 * when encoding cannot take them: more distinct values than a dictionary
 * takes, strings not of one length and few symbols, numerics not of one
 * scale within 64 bits.  Chunks after a stripe's first are not checked
 * before (checking converted every numeric twice): a chunk with a frame
 * that fails is written plain (encode_chunk).
 */
static bool
encode_frame(ColWriter *w, int a, uint32 first, uint32 last, uint32 nulls,
			 int encoding, StringInfo raw)
{
	Form_pg_attribute attr = TupleDescAttr(w->tupdesc, a);
	ValueTypeInfo type = {attr->attlen, attr->attbyval, attr->attalign};
	int			start = raw->len;

	if (encoding == CHUNK_ENCODING_DICT)
		return dict_encode(raw, &type, w->values[a] + first,
						   w->isnull[a] + first, last - first);
	if (encoding == CHUNK_ENCODING_PACKED)
	{
		packed_encode(raw, &type, w->values[a] + first, w->isnull[a] + first,
					  last - first);
		return true;
	}
	if (encoding == CHUNK_ENCODING_CHARS)
		return chars_encode(raw, w->values[a] + first, w->isnull[a] + first,
							last - first);
#ifdef HAVE_SCALED_NUMERIC
	if (encoding == CHUNK_ENCODING_DECIMAL)
		return packed_decimal_encode(raw, w->values[a] + first,
									 w->isnull[a] + first, last - first);
#endif
	value_encode(raw, &type, w->values[a] + first, w->isnull[a] + first,
				 last - first);
	if (encoding == CHUNK_ENCODING_DELTA)
		delta_encode(raw->data + start + chunk_values_start(last - first, nulls),
					 last - first - nulls, attr->attlen);
	return true;
}

/*
 * How a column's chunks of a stripe are cut into frames: frames of about
 * target bytes, compressed with dict when it is not NULL.
 */
typedef struct ColumnFraming
{
	const CodecDict *dict;
	Size		target;
	/* the stripe's first chunk, when already encoded so: stored, raw length */
	StringInfo	first_chunk;
	uint32		first_raw_length;
	/* the last frame written did not compress: the next one is probed */
	bool		last_raw;
} ColumnFraming;

/*
 * Encodes rows [start, end) of column a as a framed chunk (codec/frames.h)
 * into stored; returns the frames' total uncompressed length.  A chunk
 * with a frame its encoding (*encoding) cannot take is written plain
 * instead, and *encoding says so.
 */
static uint32
encode_chunk(ColWriter *w, int a, uint32 start, uint32 end, int *encoding,
			 const Codec *codec, ColumnFraming *framing, StringInfo stored)
{
	Form_pg_attribute attr = TupleDescAttr(w->tupdesc, a);
	Size		target = framing->target;
	const CodecDict *dict = framing->dict;
	FrameWriter fw;
	StringInfoData raw;
	uint32		first = start;

	frames_begin(&fw, codec, w->opts.compression_level, dict);
	fw.last_raw = framing->last_raw;
	initStringInfo(&raw);
	while (first < end)
	{
		uint32		nulls;
		Size		bytes;
		uint32		last = frame_end(w, a, first, end, target, &nulls, &bytes);

		resetStringInfo(&raw);
		if (!encode_frame(w, a, first, last, nulls, *encoding, &raw))
		{
			/* the chunk again, plain */
			Assert(*encoding != CHUNK_ENCODING_PLAIN);
			*encoding = CHUNK_ENCODING_PLAIN;
			frames_discard(&fw);
			frames_begin(&fw, codec, w->opts.compression_level, dict);
			fw.last_raw = framing->last_raw;
			first = start;
			continue;
		}
		frames_add(&fw, first - start, raw.data, (uint32) raw.len);
		first = last;
	}
	if (fw.raw_total > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("column \"%s\" of a chunk group is too large: %llu bytes",
						NameStr(attr->attname), (unsigned long long) fw.raw_total),
				 errhint("Lower the table's chunk_group_row_limit.")));
	framing->last_raw = fw.last_raw;
	frames_finish(&fw, stored);
	return (uint32) fw.raw_total;
}

/*
 * A column gets a dictionary only when the stripe holds at least this much
 * of it: below that, long frames without one are smaller.
 */
#define DICT_MIN_COLUMN_BYTES	(128 * 1024)

/*
 * A column's short frames may take 5% more than its long ones, or a
 * quarter of a byte more a row: a fetch by TID decompresses one frame of
 * each column it returns, and a frame without a dictionary sets up its
 * own entropy tables, most of the cost of a short one.  The allowance per
 * row lets columns that compress to under a byte a row (the events
 * table's urls and arrays of tags: 0.66 and 0.25 bytes) take one for a
 * tenth to a quarter more of their little size: 100 rows by primary key,
 * tags 0.62 to 0.36 ms, urls 1.28 to 1.07 ms, the table 0.4% larger.
 */
#define COL_DICT_MAX_GROWTH		1.05
#define COL_DICT_SLACK_PER_ROW	0.25

/* Encodes the stripe's first chunk of column a into framing. */
static void
encode_first_chunk(ColWriter *w, int a, uint32 group_limit, int encoding,
				   const Codec *codec, ColumnFraming *framing)
{
	int			chosen PG_USED_FOR_ASSERTS_ONLY = encoding;

	framing->first_chunk = makeStringInfo();
	framing->first_raw_length =
		encode_chunk(w, a, 0, Min(group_limit, w->nrows), &encoding, codec,
					 framing, framing->first_chunk);
	/* the first group chose the encoding (column_encoding): it holds */
	Assert(encoding == chosen);
}

/*
 * How column a's chunks of the stripe (groups of group_limit rows) are
 * framed: with a dictionary trained for it, appended to stream at *offset,
 * or (and *offset STRIPE_NO_DICT) long frames without one.
 */
static ColumnFraming
column_framing(ColWriter *w, int a, uint32 group_limit, int encoding,
			   const Codec *codec, StringInfo stream, uint64 *offset)
{
	ColumnFraming framing = {NULL, FRAME_TARGET_RAW_BYTES, NULL, 0};
	ColumnFraming candidate = {NULL, 0, NULL, 0};
	uint32		wanted = FRAMES_DICT_SAMPLE_BYTES / FRAMES_DICT_SAMPLE_FRAME_BYTES;
	StringInfoData samples;
	StringInfoData frame;
	size_t	   *sizes;
	uint32		nsamples = 0;
	uint64		sample_rows = 0;
	uint64		sample_bytes = 0;
	uint32		sampled_to = 0;
	double		column_bytes;
	uint32		i;
	char	   *dict;
	int32		dictlen;
	const CodecDict *loaded;
	double		dict_share;
	double		slack;

	*offset = STRIPE_NO_DICT;
	/*
	 * A dictionary buys short frames, which only frames decoded whole need:
	 * packed values are read by arithmetic, in frames of any length.
	 */
	if (codec->dict_train == NULL || encoding == CHUNK_ENCODING_PACKED ||
		encoding == CHUNK_ENCODING_DECIMAL || encoding == CHUNK_ENCODING_CHARS)
		return framing;

	/*
	 * Samples: short frames starting at evenly spaced rows, each within its
	 * chunk group as encode_chunk cuts them (a stripe of few rows gives
	 * fewer: a frame is not sampled twice).  Their bytes per row also tell
	 * whether the column is big enough for a dictionary, without a pass over
	 * the whole stripe.  Of each, the first FRAMES_DICT_SAMPLE_MAX_BYTES
	 * are kept.
	 */
	initStringInfo(&samples);
	initStringInfo(&frame);
	sizes = palloc(sizeof(size_t) * wanted);
	for (i = 0; i < wanted; i++)
	{
		uint32		first = (uint32) ((uint64) i * w->nrows / wanted);
		uint32		end = Min((first / group_limit + 1) * group_limit, w->nrows);
		uint32		nulls;
		Size		bytes;
		uint32		last;
		int			kept;

		if (first < sampled_to)
			continue;
		last = frame_end(w, a, first, end, FRAMES_DICT_SAMPLE_FRAME_BYTES,
						 &nulls, &bytes);
		sampled_to = last;
		resetStringInfo(&frame);
		/* a later group of a dictionary column may have too many values */
		if (!encode_frame(w, a, first, last, nulls, encoding, &frame))
			encode_frame(w, a, first, last, nulls, CHUNK_ENCODING_PLAIN,
						 &frame);
		kept = Min(frame.len, FRAMES_DICT_SAMPLE_MAX_BYTES);
		appendBinaryStringInfo(&samples, frame.data, kept);
		sizes[nsamples++] = (size_t) kept;
		sample_bytes += frame.len;
		sample_rows += last - first;
	}
	pfree(frame.data);
	column_bytes = (double) sample_bytes * w->nrows / Max(sample_rows, 1);

	/*
	 * A dictionary buys frames shorter than long ones; rows as wide as a
	 * long frame make frames of one row with or without it.
	 */
	if (column_bytes < DICT_MIN_COLUMN_BYTES ||
		sample_bytes >= sample_rows * FRAME_TARGET_RAW_BYTES)
	{
		pfree(samples.data);
		pfree(sizes);
		return framing;
	}

	loaded = frames_dict_train(codec, w->opts.compression_level,
							   (uint64) column_bytes, samples.data,
							   sizes, nsamples, &dict, &dictlen);
	pfree(samples.data);
	pfree(sizes);
	if (loaded == NULL)
		return framing;
	/* the first chunk group both ways: the winner's encoding is kept */
	candidate.dict = loaded;
	candidate.target = FRAME_DICT_TARGET_RAW_BYTES;
	encode_first_chunk(w, a, group_limit, encoding, codec, &framing);
	encode_first_chunk(w, a, group_limit, encoding, codec, &candidate);
	dict_share = (double) dictlen * Min(group_limit, w->nrows) / w->nrows;
	slack = COL_DICT_SLACK_PER_ROW * Min(group_limit, w->nrows);
	if (!frames_dict_pays(candidate.first_chunk->len + dict_share,
						  framing.first_chunk->len, COL_DICT_MAX_GROWTH, slack))
		return framing;
	*offset = stream->len;
	frames_dict_write(stream, dict, (uint32) dictlen);

	/*
	 * Shorter frames still, as short as those the dictionary was trained on,
	 * one and a half or twice that, when they take at most
	 * COL_DICT_MAX_GROWTH times the bytes of these, plus the slack: a fetch
	 * then decodes a quarter to a half as much.  Entropy-bound data (hashes,
	 * random numbers) takes as much in any and decodes as fast per byte;
	 * data of a few bytes a row that compresses well (urls) takes a few
	 * bytes a frame more.  Wide data that compresses well (JSON) takes 15%
	 * more in 4 kB frames, 7% in 6 kB and 5% in 8 kB ones, where every scan,
	 * and a GIN bitmap scan of it, decodes each frame: its 4 kB frames
	 * slowed one by 8%, 6 kB ones by 1% (and fetch it 5% faster than 8 kB).
	 */
	for (i = 2; i <= 4; i++)
	{
		ColumnFraming shorter = {loaded, i * FRAMES_DICT_SAMPLE_FRAME_BYTES / 2,
		NULL, 0};

		encode_first_chunk(w, a, group_limit, encoding, codec, &shorter);
		if (frames_dict_pays(shorter.first_chunk->len,
							 candidate.first_chunk->len, COL_DICT_MAX_GROWTH, slack))
			return shorter;
	}
	return candidate;
}

/*
 * Whether rows [start, end) of column a are to be dictionary-encoded: a
 * variable-length column (text, arrays, numeric, jsonb) holding at most
 * DICT_MAX_ENTRIES distinct values there.
 */
static bool
dict_chunk(ColWriter *w, int a, uint32 start, uint32 end)
{
	Form_pg_attribute attr = TupleDescAttr(w->tupdesc, a);
	ValueTypeInfo type = {attr->attlen, attr->attbyval, attr->attalign};

	return storage_engine_enable_dictionary_encoding &&
		attr->attlen == -1 && !attr->attbyval &&
		dict_count_distinct(&type, w->values[a] + start, w->isnull[a] + start,
							end - start, DICT_MAX_ENTRIES) <= DICT_MAX_ENTRIES;
}

/*
 * Integer-like columns are stored as packed integers or as differences:
 * steadily growing values (ids, timestamps, dates) then take almost
 * nothing.
 */
static bool
integer_like(Form_pg_attribute attr)
{
	switch (attr->atttypid)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case OIDOID:
		case DATEOID:
		case TIMEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			return attr->attbyval && (attr->attlen == 2 || attr->attlen == 4 ||
									  attr->attlen == 8);
		default:
			return false;
	}
}

/*
 * Packed values may take this much more than the other encoding,
 * compressed: a fetch by TID reads a packed value by arithmetic, and a scan
 * unpacks it without an entropy decoder.  Differences win by far only on
 * values that wrap around in a pattern (a counter modulo something, ids of
 * rows sorted by such a counter), which the codec sees repeat and packing
 * does not; plain numerics on few distinct values.
 */
#define PACKED_MAX_GROWTH		1.25
#define PACKED_SLACK_BYTES		64

/*
 * Whether rows [start, end) of numeric column a can be packed decimals
 * (codec/packed_encoding.h).
 */
static bool
decimal_chunk(ColWriter *w, int a, uint32 start, uint32 end)
{
#ifdef HAVE_SCALED_NUMERIC
	return storage_engine_enable_packed_encoding &&
		TupleDescAttr(w->tupdesc, a)->atttypid == NUMERICOID &&
		packed_decimal_ok(w->values[a] + start, w->isnull[a] + start,
						  end - start);
#else
	return false;
#endif
}

/*
 * Whether rows [start, end) of column a can be packed characters
 * (codec/chars_encoding.h): strings of one length spelled with few
 * symbols, of a type whose values may carry a 1-byte header (not of plain
 * storage: their functions may not expect one).
 */
static bool
chars_chunk(ColWriter *w, int a, uint32 start, uint32 end)
{
	Form_pg_attribute attr = TupleDescAttr(w->tupdesc, a);

	return storage_engine_enable_packed_encoding &&
		attr->attlen == -1 && attr->attstorage != TYPSTORAGE_PLAIN &&
		chars_ok(w->values[a] + start, w->isnull[a] + start, end - start);
}

/*
 * Whether column a's first chunk group takes at most PACKED_MAX_GROWTH
 * times the bytes packed (integers, decimals or characters) as in the
 * other encoding, encoded as a column without a dictionary would be.
 */
static bool
packed_pays(ColWriter *w, int a, uint32 group_limit, const Codec *codec,
			int packed, int other)
{
	/* each encoded afresh: neither probes frames after the other's */
	ColumnFraming packed_framing = {NULL, FRAME_TARGET_RAW_BYTES, NULL, 0};
	ColumnFraming other_framing = packed_framing;
	uint32		end = Min(group_limit, w->nrows);
	StringInfoData packed_bytes;
	StringInfoData other_bytes;
	bool		pays;

	initStringInfo(&packed_bytes);
	initStringInfo(&other_bytes);
	encode_chunk(w, a, 0, end, &packed, codec, &packed_framing, &packed_bytes);
	encode_chunk(w, a, 0, end, &other, codec, &other_framing, &other_bytes);
	pays = packed_bytes.len <=
		other_bytes.len * PACKED_MAX_GROWTH + PACKED_SLACK_BYTES;
	pfree(packed_bytes.data);
	pfree(other_bytes.data);
	return pays;
}

/*
 * How column a's chunks of this stripe are encoded, as its first chunk
 * group decides: integer-like columns packed or as differences, numeric
 * ones packed decimals when they can be and pay, variable-length ones of
 * few distinct values with a dictionary, of one length and few symbols as
 * packed characters when they pay, the rest plain.  Chunks after the first
 * are checked again (dictionaries, decimals, characters) when written.
 */
static int
column_encoding(ColWriter *w, int a, uint32 group_limit, const Codec *codec)
{
	uint32		end = Min(group_limit, w->nrows);
	int			other;

	if (integer_like(TupleDescAttr(w->tupdesc, a)))
		return storage_engine_enable_packed_encoding &&
			packed_pays(w, a, group_limit, codec, CHUNK_ENCODING_PACKED,
						CHUNK_ENCODING_DELTA) ?
			CHUNK_ENCODING_PACKED : CHUNK_ENCODING_DELTA;
	other = dict_chunk(w, a, 0, end) ? CHUNK_ENCODING_DICT :
		CHUNK_ENCODING_PLAIN;
	if (decimal_chunk(w, a, 0, end) &&
		packed_pays(w, a, group_limit, codec, CHUNK_ENCODING_DECIMAL, other))
		return CHUNK_ENCODING_DECIMAL;
	if (other == CHUNK_ENCODING_PLAIN && chars_chunk(w, a, 0, end) &&
		packed_pays(w, a, group_limit, codec, CHUNK_ENCODING_CHARS, other))
		return CHUNK_ENCODING_CHARS;
	return other;
}

typedef struct StripeSortState
{
	ColWriter  *w;
	int			nkeys;
	AttrNumber *attnos;
	SortSupportData *ssup;
} StripeSortState;

static int
compare_rows(const void *a, const void *b, void *arg)
{
	StripeSortState  *st = arg;
	uint32		ra = *(const uint32 *) a;
	uint32		rb = *(const uint32 *) b;
	int			k;

	for (k = 0; k < st->nkeys; k++)
	{
		int			col = st->attnos[k] - 1;
		int			c = ApplySortComparator(st->w->values[col][ra], st->w->isnull[col][ra],
											st->w->values[col][rb], st->w->isnull[col][rb],
											&st->ssup[k]);

		if (c != 0)
			return c;
	}
	return (ra > rb) - (ra < rb);	/* stable */
}

/*
 * Sorts the buffered rows by the orderby option, each command's rows
 * separately, permuting the column arrays in place.
 */
static void
sort_buffer(ColWriter *w, Relation rel)
{
	ColcompressOrderbyKey *keys;
	StripeSortState	st;
	uint32	   *order;
	uint32		start = 0;
	int			natts = w->tupdesc->natts;
	Datum	   *values;
	bool	   *isnull;
	int			i;
	int			a;

	keys = colcompress_orderby_resolve(rel, w->opts.orderby, &st.nkeys);
	st.w = w;
	st.attnos = palloc(sizeof(AttrNumber) * st.nkeys);
	st.ssup = palloc0(sizeof(SortSupportData) * st.nkeys);
	for (i = 0; i < st.nkeys; i++)
	{
		st.attnos[i] = keys[i].attnum;
		st.ssup[i].ssup_cxt = CurrentMemoryContext;
		st.ssup[i].ssup_collation = keys[i].collation;
		st.ssup[i].ssup_nulls_first = keys[i].nulls_first;
		PrepareSortSupportFromOrderingOp(keys[i].sortop, &st.ssup[i]);
	}

	order = palloc(sizeof(uint32) * w->nrows);
	for (i = 0; i < (int) w->nrows; i++)
		order[i] = i;
	for (i = 0; i < w->rows.ncids; i++)
	{
		uint32		end = (uint32) w->rows.cids[i].rows_end;

		qsort_arg(order + start, end - start, sizeof(uint32), compare_rows, &st);
		start = end;
	}

	/*
	 * Through one scratch pair, not new arrays per column: a second set of
	 * every column's arrays was 23 MB more at the flush's peak on the
	 * events table (a stripe of 150,000 rows of 17 columns).
	 */
	values = palloc(sizeof(Datum) * Max(w->nrows, 1));
	isnull = palloc(sizeof(bool) * Max(w->nrows, 1));
	for (a = 0; a < natts; a++)
	{
		uint32		r;

		for (r = 0; r < w->nrows; r++)
		{
			values[r] = w->values[a][order[r]];
			isnull[r] = w->isnull[a][order[r]];
		}
		memcpy(w->values[a], values, sizeof(Datum) * w->nrows);
		memcpy(w->isnull[a], isnull, sizeof(bool) * w->nrows);
	}
	pfree(values);
	pfree(isnull);
}

void
col_writer_write(ColWriter *w, Relation rel)
{
	int			natts = w->tupdesc->natts;
	uint32		group_limit = (uint32) w->opts.chunk_group_row_limit;
	uint32		ngroups;
	StripeMeta	stripe;
	ChunkMeta  *chunks;
	uint32	   *group_rows;
	StringInfoData stream;
	const Codec *codec = codec_by_id(w->opts.codec);
	MemoryContext flush_cxt;
	MemoryContext old;
	SortSupportData *cmps;
	bool	   *has_cmp;
	bool	   *by_bytes;
	int		   *encodings;
	ColumnFraming *framings;
	bool	   *have_stripe_bounds;
	Datum	   *stripe_min;
	Datum	   *stripe_max;
	uint32		g;
	int			a;

	if (w->nrows == 0)
		return;
	if (codec == NULL || !codec->available)
		codec = codec_by_id(CODEC_NONE);

	flush_cxt = AllocSetContextCreate(CurrentMemoryContext,
									  "colcompress stripe flush",
									  ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(flush_cxt);

	memset(&stripe, 0, sizeof(stripe));
	stripe.columns_loaded = true;	/* its arrays are filled in below */
	if (w->opts.orderby != NULL && RelationGetIndexList(rel) == NIL)
	{
		sort_buffer(w, rel);
		/* only one command's rows: the whole stripe is in order */
		if (w->rows.ncids == 1)
			stripe.sorted_by = w->opts.orderby;
	}

	ngroups = (w->nrows + group_limit - 1) / group_limit;
	chunks = palloc0(sizeof(ChunkMeta) * ngroups * Max(natts, 1));
	cmps = palloc(sizeof(SortSupportData) * Max(natts, 1));
	has_cmp = palloc(sizeof(bool) * Max(natts, 1));
	by_bytes = palloc(sizeof(bool) * Max(natts, 1));
	have_stripe_bounds = palloc0(sizeof(bool) * Max(natts, 1));
	stripe_min = palloc0(sizeof(Datum) * Max(natts, 1));
	stripe_max = palloc0(sizeof(Datum) * Max(natts, 1));
	stripe.zone.min = palloc0(sizeof(bytea *) * Max(natts, 1));
	stripe.zone.max = palloc0(sizeof(bytea *) * Max(natts, 1));
	stripe.zone.null_count = palloc0(sizeof(uint64) * Max(natts, 1));
	stripe.zone.type = palloc(sizeof(Oid) * Max(natts, 1));
	stripe.zone.collation = palloc(sizeof(Oid) * Max(natts, 1));
	for (a = 0; a < natts; a++)
		zone_bounds_signature(TupleDescAttr(w->tupdesc, a), &stripe.zone.type[a],
							  &stripe.zone.collation[a]);
	for (a = 0; a < natts; a++)
	{
		has_cmp[a] = zone_map_sortsupport(TupleDescAttr(w->tupdesc, a), &cmps[a]);
		by_bytes[a] = has_cmp[a] && orders_by_bytes(TupleDescAttr(w->tupdesc, a));
	}
	group_rows = palloc(sizeof(uint32) * ngroups);
	initStringInfo(&stream);

	/* dictionaries first, at the start of the stripe's data */
	encodings = palloc(sizeof(int) * Max(natts, 1));
	framings = palloc(sizeof(ColumnFraming) * Max(natts, 1));
	stripe.attr_dict_offset = palloc(sizeof(uint64) * Max(natts, 1));
	for (a = 0; a < natts; a++)
	{
		CHECK_FOR_INTERRUPTS();
		encodings[a] = column_encoding(w, a, group_limit, codec);
		framings[a] = column_framing(w, a, group_limit, encodings[a], codec,
									 &stream, &stripe.attr_dict_offset[a]);
	}

	for (g = 0; g < ngroups; g++)
	{
		uint32		start = g * group_limit;
		uint32		end = Min(start + group_limit, w->nrows);

		group_rows[g] = end - start;
		for (a = 0; a < natts; a++)
		{
			Form_pg_attribute attr = TupleDescAttr(w->tupdesc, a);
			ChunkMeta  *c = &chunks[g * natts + a];
			StringInfoData stored;
			pg_crc32c	crc;
			uint32		r;

			CHECK_FOR_INTERRUPTS();
			MemoryContextSwitchTo(w->chunk_cxt);
			c->null_count = 0;
			for (r = start; r < end; r++)
				c->null_count += w->isnull[a][r] ? 1 : 0;
			/* a chunk with a frame its encoding cannot take is written plain */
			c->encoding = encodings[a];
			c->codec = codec->id;
			if (g == 0 && framings[a].first_chunk != NULL)
			{
				/* encoded while choosing the column's framing */
				stored = *framings[a].first_chunk;
				c->raw_length = framings[a].first_raw_length;
			}
			else
			{
				int			encoding = c->encoding;

				initStringInfo(&stored);
				c->raw_length = encode_chunk(w, a, start, end, &encoding,
											 codec, &framings[a], &stored);
				c->encoding = (int16) encoding;
			}
			INIT_CRC32C(crc);
			COMP_CRC32C(crc, stored.data, stored.len);
			FIN_CRC32C(crc);

			c->stored_offset = stream.len;
			c->stored_length = stored.len;
			c->value_count = end - start;
			c->checksum = crc;

			MemoryContextSwitchTo(flush_cxt);
			appendBinaryStringInfo(&stream, stored.data, stored.len);
			MemoryContextReset(w->chunk_cxt);

			stripe.zone.null_count[a] += c->null_count;
			if (has_cmp[a])
			{
				Datum		min = 0;
				Datum		max = 0;

				if (chunk_minmax(w, a, start, end, &cmps[a], by_bytes[a], &min,
								 &max))
				{
					zone_bounds_serialize_pair(min, max, attr, &c->min_value,
											   &c->max_value);
					zone_bounds_widen(&cmps[a], min, max, &have_stripe_bounds[a],
									  &stripe_min[a], &stripe_max[a]);
				}
			}
		}
	}

	for (a = 0; a < natts; a++)
	{
		if (!have_stripe_bounds[a])
			continue;
		zone_bounds_serialize_pair(stripe_min[a], stripe_max[a],
								   TupleDescAttr(w->tupdesc, a),
								   &stripe.zone.min[a], &stripe.zone.max[a]);
	}
	{
		StorageMeta meta;

		stripe.storage_id = storage_ensure_meta(rel, &meta);
	}
	stripe.first_block = storage_am_write_stream(rel, stripe.storage_id,
												 stream.data, stream.len,
												 &stripe.stripe_num);
	stripe.data_length = stream.len;
	stripe.row_count = w->nrows;
	stripe.nruns = w->rows.nruns;
	stripe.runs = w->rows.runs;
	stripe.ncids = w->rows.ncids;
	stripe.cids = w->rows.cids;
	row_runs_bounds(w->rows.runs, w->rows.nruns, &stripe.first_row_number,
					&stripe.last_row_number);
	stripe.chunk_group_count = ngroups;
	stripe.chunk_group_row_limit = group_limit;
	stripe.column_count = natts;
	stripe_meta_insert(&stripe, group_rows, chunks);

	MemoryContextSwitchTo(old);
	MemoryContextDelete(flush_cxt);
}

void
col_writer_clear(ColWriter *w)
{
	reset_buffer(w);
}

void
col_writer_flush(ColWriter *w, Relation rel)
{
	col_writer_write(w, rel);
	reset_buffer(w);
}
