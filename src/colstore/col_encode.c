/*-------------------------------------------------------------------------
 *
 * col_encode.c
 *	  Encodes one column of a stripe (layout in docs/storage-format.md).
 *
 *	  The first chunk group decides the column's encoding for the stripe
 *	  (packed integers or differences, packed decimals or characters, a
 *	  dictionary of values, plain values) and whether its frames share a
 *	  compression dictionary trained on the stripe; every chunk group is
 *	  then encoded, framed and compressed, and its min and max kept for the
 *	  zone maps.  A column's encoding depends on nothing but its own values,
 *	  which is what lets a stripe's columns be encoded side by side
 *	  (col_encode_parallel.c).
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/sortsupport.h"

#include "catalog/zone_map.h"
#include "codec/chars_encoding.h"
#include "codec/checksum.h"
#include "codec/delta.h"
#include "codec/dict_encoding.h"
#include "codec/frames.h"
#include "codec/packed_encoding.h"
#include "codec/value_encoding.h"
#include "colstore/col_encode.h"
#include "guc.h"

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
 * Min and max of rows [start, end) of the column; false when the column
 * has no zone map or no non-NULL value there.  by_bytes: the column
 * orders_by_bytes, and ssup agrees with bytes_cmp.
 */
static bool
chunk_minmax(const ColumnSource *src, uint32 start, uint32 end,
			 SortSupport ssup, bool by_bytes, Datum *min, Datum *max)
{
	const bool *isnull = src->isnull;
	const Datum *values = src->values;
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
 * End of the frame of the column that starts at row first (< end): after
 * FRAME_MAX_ROWS rows or once its values reach target bytes.  Sets *nulls
 * to the frame's NULLs and *bytes to its values' size, roughly.
 */
static uint32
frame_end(const ColumnSource *src, uint32 first, uint32 end, Size target,
		  uint32 *nulls, Size *bytes)
{
	Form_pg_attribute attr = src->attr;
	const bool *isnull = src->isnull;
	const Datum *values = src->values;
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
 * Appends the raw bytes of rows [first, last) of the column to raw; false
 * when encoding cannot take them: more distinct values than a dictionary
 * takes, strings not of one length and few symbols, numerics not of one
 * scale within 64 bits.  Chunks after a stripe's first are not checked
 * before (checking converted every numeric twice): a chunk with a frame
 * that fails is written plain (encode_chunk).
 */
static bool
encode_frame(const ColumnSource *src, uint32 first, uint32 last, uint32 nulls,
			 int encoding, StringInfo raw)
{
	Form_pg_attribute attr = src->attr;
	ValueTypeInfo type = {attr->attlen, attr->attbyval, attr->attalign};
	int			start = raw->len;

	if (encoding == CHUNK_ENCODING_DICT)
		return dict_encode(raw, &type, src->values + first,
						   src->isnull + first, last - first);
	if (encoding == CHUNK_ENCODING_PACKED)
	{
		packed_encode(raw, &type, src->values + first, src->isnull + first,
					  last - first);
		return true;
	}
	if (encoding == CHUNK_ENCODING_CHARS)
		return chars_encode(raw, src->values + first, src->isnull + first,
							last - first);
#ifdef HAVE_SCALED_NUMERIC
	if (encoding == CHUNK_ENCODING_DECIMAL)
		return packed_decimal_encode(raw, src->values + first,
									 src->isnull + first, last - first);
#endif
	value_encode(raw, &type, src->values + first, src->isnull + first,
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
 * Encodes rows [start, end) of the column as a framed chunk (codec/frames.h)
 * into stored; returns the frames' total uncompressed length.  A chunk
 * with a frame its encoding (*encoding) cannot take is written plain
 * instead, and *encoding says so.
 */
static uint32
encode_chunk(const ColumnSource *src, uint32 start, uint32 end, int *encoding,
			 ColumnFraming *framing, StringInfo stored)
{
	Form_pg_attribute attr = src->attr;
	Size		target = framing->target;
	const CodecDict *dict = framing->dict;
	FrameWriter fw;
	StringInfoData raw;
	uint32		first = start;

	frames_begin(&fw, src->codec, src->level, dict);
	fw.last_raw = framing->last_raw;
	initStringInfo(&raw);
	while (first < end)
	{
		uint32		nulls;
		Size		bytes;
		uint32		last = frame_end(src, first, end, target, &nulls, &bytes);

		resetStringInfo(&raw);
		if (!encode_frame(src, first, last, nulls, *encoding, &raw))
		{
			/* the chunk again, plain */
			Assert(*encoding != CHUNK_ENCODING_PLAIN);
			*encoding = CHUNK_ENCODING_PLAIN;
			frames_discard(&fw);
			frames_begin(&fw, src->codec, src->level, dict);
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

/* Encodes the column's first chunk into framing. */
static void
encode_first_chunk(const ColumnSource *src, int encoding,
				   ColumnFraming *framing)
{
	int			chosen PG_USED_FOR_ASSERTS_ONLY = encoding;

	framing->first_chunk = makeStringInfo();
	framing->first_raw_length =
		encode_chunk(src, 0, Min(src->group_limit, src->nrows), &encoding,
					 framing, framing->first_chunk);
	/* the first group chose the encoding (column_encoding): it holds */
	Assert(encoding == chosen);
}

/*
 * How the column's chunks are framed: with a dictionary trained for it,
 * its bytes in *dict_out (palloc'd), or (*dict_out NULL) long frames
 * without one.
 */
static ColumnFraming
column_framing(const ColumnSource *src, int encoding, char **dict_out,
			   int32 *dictlen_out)
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

	*dict_out = NULL;
	*dictlen_out = 0;
	/*
	 * A dictionary buys short frames, which only frames decoded whole need:
	 * packed values are read by arithmetic, in frames of any length.
	 */
	if (src->codec->dict_train == NULL || encoding == CHUNK_ENCODING_PACKED ||
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
		uint32		first = (uint32) ((uint64) i * src->nrows / wanted);
		uint32		end = Min((first / src->group_limit + 1) * src->group_limit,
								src->nrows);
		uint32		nulls;
		Size		bytes;
		uint32		last;
		int			kept;

		if (first < sampled_to)
			continue;
		last = frame_end(src, first, end, FRAMES_DICT_SAMPLE_FRAME_BYTES,
						 &nulls, &bytes);
		sampled_to = last;
		resetStringInfo(&frame);
		/* a later group of a dictionary column may have too many values */
		if (!encode_frame(src, first, last, nulls, encoding, &frame))
			encode_frame(src, first, last, nulls, CHUNK_ENCODING_PLAIN,
						 &frame);
		kept = Min(frame.len, FRAMES_DICT_SAMPLE_MAX_BYTES);
		appendBinaryStringInfo(&samples, frame.data, kept);
		sizes[nsamples++] = (size_t) kept;
		sample_bytes += frame.len;
		sample_rows += last - first;
	}
	pfree(frame.data);
	column_bytes = (double) sample_bytes * src->nrows / Max(sample_rows, 1);

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

	loaded = frames_dict_train(src->codec, src->level,
							   (uint64) column_bytes, samples.data,
							   sizes, nsamples, &dict, &dictlen);
	pfree(samples.data);
	pfree(sizes);
	if (loaded == NULL)
		return framing;
	/* the first chunk group both ways: the winner's encoding is kept */
	candidate.dict = loaded;
	candidate.target = FRAME_DICT_TARGET_RAW_BYTES;
	encode_first_chunk(src, encoding, &framing);
	encode_first_chunk(src, encoding, &candidate);
	dict_share = (double) dictlen * Min(src->group_limit, src->nrows) /
		src->nrows;
	slack = COL_DICT_SLACK_PER_ROW * Min(src->group_limit, src->nrows);
	if (!frames_dict_pays(candidate.first_chunk->len + dict_share,
						  framing.first_chunk->len, COL_DICT_MAX_GROWTH, slack))
		return framing;
	*dict_out = dict;
	*dictlen_out = dictlen;

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

		encode_first_chunk(src, encoding, &shorter);
		if (frames_dict_pays(shorter.first_chunk->len,
							 candidate.first_chunk->len, COL_DICT_MAX_GROWTH, slack))
			return shorter;
	}
	return candidate;
}

/*
 * Whether rows [start, end) of the column are to be dictionary-encoded: a
 * variable-length column (text, arrays, numeric, jsonb) holding at most
 * DICT_MAX_ENTRIES distinct values there.
 */
static bool
dict_chunk(const ColumnSource *src, uint32 start, uint32 end)
{
	Form_pg_attribute attr = src->attr;
	ValueTypeInfo type = {attr->attlen, attr->attbyval, attr->attalign};

	return storage_engine_enable_dictionary_encoding &&
		attr->attlen == -1 && !attr->attbyval &&
		dict_count_distinct(&type, src->values + start, src->isnull + start,
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
 * Whether rows [start, end) of a numeric column can be packed decimals
 * (codec/packed_encoding.h).
 */
static bool
decimal_chunk(const ColumnSource *src, uint32 start, uint32 end)
{
#ifdef HAVE_SCALED_NUMERIC
	return storage_engine_enable_packed_encoding &&
		src->attr->atttypid == NUMERICOID &&
		packed_decimal_ok(src->values + start, src->isnull + start,
						  end - start);
#else
	return false;
#endif
}

/*
 * Whether rows [start, end) of the column can be packed characters
 * (codec/chars_encoding.h): strings of one length spelled with few
 * symbols, of a type whose values may carry a 1-byte header (not of plain
 * storage: their functions may not expect one).
 */
static bool
chars_chunk(const ColumnSource *src, uint32 start, uint32 end)
{
	Form_pg_attribute attr = src->attr;

	return storage_engine_enable_packed_encoding &&
		attr->attlen == -1 && attr->attstorage != TYPSTORAGE_PLAIN &&
		chars_ok(src->values + start, src->isnull + start, end - start);
}

/*
 * Whether the column's first chunk group takes at most PACKED_MAX_GROWTH
 * times the bytes packed (integers, decimals or characters) as in the
 * other encoding, encoded as a column without a dictionary would be.
 */
static bool
packed_pays(const ColumnSource *src,
			int packed, int other)
{
	/* each encoded afresh: neither probes frames after the other's */
	ColumnFraming packed_framing = {NULL, FRAME_TARGET_RAW_BYTES, NULL, 0};
	ColumnFraming other_framing = packed_framing;
	uint32		end = Min(src->group_limit, src->nrows);
	StringInfoData packed_bytes;
	StringInfoData other_bytes;
	bool		pays;

	initStringInfo(&packed_bytes);
	initStringInfo(&other_bytes);
	encode_chunk(src, 0, end, &packed, &packed_framing, &packed_bytes);
	encode_chunk(src, 0, end, &other, &other_framing, &other_bytes);
	pays = packed_bytes.len <=
		other_bytes.len * PACKED_MAX_GROWTH + PACKED_SLACK_BYTES;
	pfree(packed_bytes.data);
	pfree(other_bytes.data);
	return pays;
}

/*
 * How the column's chunks are encoded, as its first chunk
 * group decides: integer-like columns packed or as differences, numeric
 * ones packed decimals when they can be and pay, variable-length ones of
 * few distinct values with a dictionary, of one length and few symbols as
 * packed characters when they pay, the rest plain.  Chunks after the first
 * are checked again (dictionaries, decimals, characters) when written.
 */
static int
column_encoding(const ColumnSource *src)
{
	uint32		end = Min(src->group_limit, src->nrows);
	int			other;

	if (integer_like(src->attr))
		return storage_engine_enable_packed_encoding &&
			packed_pays(src, CHUNK_ENCODING_PACKED,
						CHUNK_ENCODING_DELTA) ?
			CHUNK_ENCODING_PACKED : CHUNK_ENCODING_DELTA;
	other = dict_chunk(src, 0, end) ? CHUNK_ENCODING_DICT :
		CHUNK_ENCODING_PLAIN;
	if (decimal_chunk(src, 0, end) &&
		packed_pays(src, CHUNK_ENCODING_DECIMAL, other))
		return CHUNK_ENCODING_DECIMAL;
	if (other == CHUNK_ENCODING_PLAIN && chars_chunk(src, 0, end) &&
		packed_pays(src, CHUNK_ENCODING_CHARS, other))
		return CHUNK_ENCODING_CHARS;
	return other;
}
void
col_encode_column(const ColumnSource *src, EncodedColumn *out)
{
	uint32		ngroups = col_chunk_groups(src->nrows, src->group_limit);
	MemoryContext out_cxt = CurrentMemoryContext;
	MemoryContext chunk_cxt;
	SortSupportData cmp;
	bool		has_cmp;
	bool		by_bytes;
	bool		have_bounds = false;
	Datum		stripe_min = 0;
	Datum		stripe_max = 0;
	int			encoding;
	ColumnFraming framing;
	uint32		g;

	memset(out, 0, sizeof(*out));
	out->chunks = palloc0(sizeof(ChunkMeta) * Max(ngroups, 1));
	out->stored = palloc0(sizeof(char *) * Max(ngroups, 1));
	has_cmp = zone_map_sortsupport(src->attr, &cmp);
	by_bytes = has_cmp && orders_by_bytes(src->attr);
	chunk_cxt = AllocSetContextCreate(out_cxt, "colcompress chunk encoding",
									  ALLOCSET_DEFAULT_SIZES);

	CHECK_FOR_INTERRUPTS();
	encoding = column_encoding(src);
	framing = column_framing(src, encoding, &out->dict, &out->dict_length);

	for (g = 0; g < ngroups; g++)
	{
		uint32		start = g * src->group_limit;
		uint32		end = Min(start + src->group_limit, src->nrows);
		ChunkMeta  *c = &out->chunks[g];
		StringInfoData stored;
		uint32		r;

		CHECK_FOR_INTERRUPTS();
		for (r = start; r < end; r++)
			c->null_count += src->isnull[r] ? 1 : 0;
		c->encoding = encoding;
		c->codec = src->codec->id;
		if (g == 0 && framing.first_chunk != NULL)
		{
			/* encoded while choosing the column's framing */
			stored = *framing.first_chunk;
			c->raw_length = framing.first_raw_length;
		}
		else
		{
			int			chunk_encoding = encoding;

			/* the stored bytes outlive the chunk's scratch memory */
			initStringInfo(&stored);
			MemoryContextSwitchTo(chunk_cxt);
			c->raw_length = encode_chunk(src, start, end, &chunk_encoding,
										 &framing, &stored);
			MemoryContextSwitchTo(out_cxt);
			MemoryContextReset(chunk_cxt);
			c->encoding = (int16) chunk_encoding;
		}
		c->stored_length = stored.len;
		c->value_count = end - start;
		c->checksum = checksum_bytes(stored.data, stored.len);
		out->stored[g] = stored.data;
		out->null_count += c->null_count;

		if (has_cmp)
		{
			Datum		min = 0;
			Datum		max = 0;

			if (chunk_minmax(src, start, end, &cmp, by_bytes, &min, &max))
			{
				zone_bounds_serialize_pair(min, max, src->attr, &c->min_value,
										   &c->max_value);
				zone_bounds_widen(&cmp, min, max, &have_bounds, &stripe_min,
								  &stripe_max);
			}
		}
	}
	if (have_bounds)
		zone_bounds_serialize_pair(stripe_min, stripe_max, src->attr,
								   &out->min, &out->max);
	MemoryContextDelete(chunk_cxt);
}
