/*-------------------------------------------------------------------------
 *
 * col_chunk.c
 *	  Decoding one column chunk: its metadata checked against its stripe,
 *	  its frame directory (codec/frames.h) checked against the chunk, then
 *	  each frame decompressed, delta-decoded when the chunk is, and its
 *	  values decoded (codec/value_encoding.h, codec/dict_encoding.h,
 *	  codec/packed_encoding.h or codec/chars_encoding.h, as the chunk's
 *	  encoding says).
 *
 *	  A scan reads the whole chunk and checks its CRC-32C once; a fetch by
 *	  TID reads the directory and one frame, and checks that frame's CRC.
 *	  Every failure raises ERRCODE_DATA_CORRUPTED naming the table,
 *	  stripe, chunk group and column.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "codec/chars_encoding.h"
#include "codec/checksum.h"
#include "codec/codec.h"
#include "codec/delta.h"
#include "codec/dict_encoding.h"
#include "codec/packed_encoding.h"
#include "codec/value_encoding.h"
#include "colstore/col_chunk.h"
#include "format/frame_cache.h"
#include "format/storage.h"
#include "format/stream_dict.h"

void
col_chunk_corrupted(const ColChunkRef *ref, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("data of table \"%s\" is damaged",
					RelationGetRelationName(ref->rel)),
			 errdetail("Stripe " UINT64_FORMAT ", chunk group %d, column \"%s\": %s.",
					   ref->stripe->stripe_num, ref->group,
					   NameStr(ref->attr->attname), what),
			 errhint("Check the table with engine.colcompress_verify() and restore it from a backup.")));
}

/* What the metadata says must be possible before anything is read. */
static const Codec *
check_chunk(const ColChunkRef *ref)
{
	const ChunkMeta *c = ref->chunk;
	const Codec *codec;

	if (c->value_count != ref->rows)
		col_chunk_corrupted(ref, "value count differs from the chunk group's row count");
	if (c->stored_offset > ref->stripe->data_length ||
		c->stored_length > ref->stripe->data_length - c->stored_offset)
		col_chunk_corrupted(ref, "chunk lies outside its stripe");
	codec = codec_by_id(c->codec);
	if (codec == NULL)
		col_chunk_corrupted(ref, "unknown codec");
	if (!codec->available)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" has data compressed with %s, which this build of storage_engine does not support",
						RelationGetRelationName(ref->rel), codec->name),
				 errhint("Rebuild storage_engine with the %s library.", codec->name)));
	if (c->value_count == 0 || c->null_count > c->value_count)
		col_chunk_corrupted(ref, "impossible value count");
	if (c->raw_length < VALUE_CHUNK_HEADER_SIZE || c->raw_length > MaxAllocSize)
		col_chunk_corrupted(ref, "impossible uncompressed length");
	return codec;
}

/* What storage_read_stream names in an error about the chunk's pages. */
static StreamPlace
chunk_place(const ColChunkRef *ref)
{
	StreamPlace place = {"stripe", ref->stripe->stripe_num,
	NameStr(ref->attr->attname)};

	return place;
}

static void
read_bytes(const ColChunkRef *ref, uint64 offset, char *buf, uint64 len)
{
	StreamPlace place = chunk_place(ref);

	storage_read_stream_pinned(ref->rel, ref->stripe->first_block,
							   ref->chunk->stored_offset + offset, buf, len,
							   ref->strategy, &place, ref->pin);
}

/* The dictionary the chunk's column keeps in its stripe, or NULL. */
static const CodecDict *
column_dict(const ColChunkRef *ref, const Codec *codec)
{
	const StripeMeta *s = ref->stripe;
	int			a = ref->attr->attnum - 1;
	StreamDictRef where;
	StreamPlace place = chunk_place(ref);
	const CodecDict *dict;
	const char *problem;

	if (!s->columns_loaded)
		elog(ERROR, "stripe " UINT64_FORMAT " read without its columns' metadata",
			 s->stripe_num);
	if (a < 0 || a >= s->column_count || s->attr_dict_offset[a] == STRIPE_NO_DICT)
		return NULL;
	where.rel = ref->rel;
	where.first_block = s->first_block;
	where.stream_num = s->stripe_num;
	where.stream_length = s->data_length;
	where.part = a;
	where.offset = s->attr_dict_offset[a];
	where.strategy = ref->strategy;
	where.place = &place;
	dict = stream_dict_get(&where, codec, ref->dict_hint, &problem);
	if (dict == NULL)
		col_chunk_corrupted(ref, problem);
	return dict;
}

static void frame_undelta(const ColChunkRef *ref, const FrameEntry *e,
						  uint32 nrows, char *raw);

/*
 * Produces a frame's raw bytes (its value layout) in raw, room for
 * e->raw_length, from its stored bytes: decompressed (with the column's
 * dictionary in the stripe, when it has one), then delta-decoded when the
 * chunk is.
 */
static void
frame_raw(const ColChunkRef *ref, const Codec *codec, const CodecDict *dict,
		  const FrameEntry *e, const char *stored, bool check_crc,
		  uint32 nrows, char *raw)
{
	const char *problem;

	problem = frames_decode(e, stored, codec, dict, check_crc, raw);
	if (problem != NULL)
		col_chunk_corrupted(ref, problem);
	frame_undelta(ref, e, nrows, raw);
}

/* The second step of frame_raw: delta-decodes the frame if its chunk is. */
static void
frame_undelta(const ColChunkRef *ref, const FrameEntry *e, uint32 nrows,
			  char *raw)
{
	Form_pg_attribute attr = ref->attr;

	if (ref->chunk->encoding == CHUNK_ENCODING_DELTA)
	{
		uint32		null_count;
		Size		start;

		if (e->raw_length < VALUE_CHUNK_HEADER_SIZE)
			col_chunk_corrupted(ref, "frame shorter than its header");
		memcpy(&null_count, raw + sizeof(uint32), sizeof(uint32));
		start = chunk_values_start(nrows, null_count);
		if (!attr->attbyval || (attr->attlen != 2 && attr->attlen != 4 && attr->attlen != 8) ||
			null_count > nrows || start > e->raw_length ||
			e->raw_length - start != (Size) (nrows - null_count) * attr->attlen)
			col_chunk_corrupted(ref, "delta-encoded frame has an impossible layout");
		delta_decode(raw + start, nrows - null_count, attr->attlen);
	}
	else if (ref->chunk->encoding != CHUNK_ENCODING_PLAIN &&
			 ref->chunk->encoding != CHUNK_ENCODING_DICT &&
			 ref->chunk->encoding != CHUNK_ENCODING_PACKED &&
			 ref->chunk->encoding != CHUNK_ENCODING_DECIMAL &&
			 ref->chunk->encoding != CHUNK_ENCODING_CHARS)
		col_chunk_corrupted(ref, "unknown encoding");
}

/*
 * Room one value the decoder makes takes (packed decimals are written back
 * as numerics, packed characters as strings); 0 for layouts whose values
 * point into the layout itself.
 */
static Size
made_room(const ColChunkRef *ref)
{
#ifdef HAVE_SCALED_NUMERIC
	if (ref->chunk->encoding == CHUNK_ENCODING_DECIMAL)
		return PACKED_DECIMAL_SIZE;
#endif
	if (ref->chunk->encoding == CHUNK_ENCODING_CHARS)
		return CHARS_VALUE_ROOM;
	return 0;
}

/*
 * Bytes a frame of nrows rows takes decoded: its value layout, MAXALIGNed,
 * then room for the values the decoder makes, which by-reference values
 * point into like the rest.
 */
static Size
frame_room(const ColChunkRef *ref, uint32 raw_length, uint32 nrows)
{
	return MAXALIGN(raw_length) + (Size) nrows * made_room(ref);
}

static ValueTypeInfo
value_type(const ColChunkRef *ref)
{
	ValueTypeInfo type = {ref->attr->attlen, ref->attr->attbyval,
	ref->attr->attalign};

	return type;
}

bool
col_chunk_decode(const ColChunkRef *ref, ColBuffer *stored_buf,
				 ColBuffer *raw_buf, Datum *values, bool *isnull,
				 ScaledNumeric *scaled)
{
	const ChunkMeta *c = ref->chunk;
	const Codec *codec = check_chunk(ref);
	const CodecDict *dict;
	FrameDirectory frames;
	char	   *stored;
	char	   *raw;
	uint64		raw_size = 0;
	const char *problem;
	uint32		i;

#ifdef HAVE_SCALED_NUMERIC
	if (c->encoding != CHUNK_ENCODING_DECIMAL)
		scaled = NULL;
#else
	scaled = NULL;
#endif
	stored = col_buffer(stored_buf, c->stored_length);
	read_bytes(ref, 0, stored, c->stored_length);
	if (checksum_bytes(stored, c->stored_length) != c->checksum)
		col_chunk_corrupted(ref, "checksum mismatch");

	problem = frames_parse(stored, c->stored_length, c->value_count,
						   c->raw_length, &frames);
	if (problem != NULL)
		col_chunk_corrupted(ref, problem);

	/*
	 * One buffer for the frames' values (by-reference values point into
	 * it), reused from chunk group to chunk group: a palloc per short frame
	 * made resetting the chunk group's memory cost more than decoding it.
	 */
	for (i = 0; i < frames.nframes; i++)
		raw_size += frame_room(ref, frames.entries[i].raw_length,
							   frames_rows(frames.entries, frames.nframes, i,
										   c->value_count));
	if (raw_size > MaxAllocSize)
		col_chunk_corrupted(ref, "impossible uncompressed length");
	raw = col_buffer(raw_buf, raw_size);

	/* the whole chunk's CRC covered every frame */
	dict = column_dict(ref, codec);
	raw_size = 0;
	for (i = 0; i < frames.nframes; i++)
	{
		const FrameEntry *e = &frames.entries[i];
		uint32		nrows = frames_rows(frames.entries, frames.nframes, i,
										c->value_count);

		CHECK_FOR_INTERRUPTS();
		frame_raw(ref, codec, dict, e, stored + frames.offsets[i], false, nrows,
				  raw + raw_size);
#ifdef HAVE_SCALED_NUMERIC
		if (scaled != NULL)
		{
			problem = packed_decimal_decode_scaled(raw + raw_size,
												   e->raw_length, nrows,
												   scaled + e->first_row,
												   isnull + e->first_row);
			if (problem != NULL)
				col_chunk_corrupted(ref, problem);
		}
		else
#endif
			col_chunk_decode_values(ref, raw + raw_size, e->raw_length, nrows,
									values + e->first_row,
									isnull + e->first_row);
		raw_size += frame_room(ref, e->raw_length, nrows);
	}
	pfree(frames.entries);
	pfree(frames.offsets);
	return scaled != NULL;
}

void
col_chunk_find_frame(const ColChunkRef *ref, uint32 row, FrameSpot *spot)
{
	const ChunkMeta *c = ref->chunk;
	StreamPlace place = chunk_place(ref);
	const char *problem;

	check_chunk(ref);
	problem = storage_find_frame(ref->rel, ref->stripe->first_block,
								 c->stored_offset, c->stored_length,
								 c->value_count, c->raw_length, c->checksum,
								 ref->strategy, &place, row, ref->dir_hint,
								 spot);
	if (problem != NULL)
		col_chunk_corrupted(ref, problem);
}

char *
col_buffer(ColBuffer *buf, Size size)
{
	size = Max(size, 1);
	if (buf->cap < size)
	{
		/* grow by doubling, within what one palloc may take */
		Size		cap = Max(size, Min(2 * buf->cap, MaxAllocSize));

		if (buf->data != NULL)
			pfree(buf->data);
		buf->data = NULL;
		buf->cap = 0;
		buf->data = MemoryContextAlloc(buf->cxt, cap);
		buf->cap = cap;
	}
	return buf->data;
}

/*
 * Whether a row of the chunk's frames is decoded where the frame lies in
 * the frame cache, a value it makes written elsewhere.  A delta-encoded
 * frame is kept with its deltas undone (FRAME_CACHE_DECODED), a plain
 * layout.
 */
static bool
decodes_in_place(const ColChunkRef *ref)
{
	switch (ref->chunk->encoding)
	{
		case CHUNK_ENCODING_PLAIN:
		case CHUNK_ENCODING_DICT:
		case CHUNK_ENCODING_PACKED:
		case CHUNK_ENCODING_DELTA:
		case CHUNK_ENCODING_CHARS:
#ifdef HAVE_SCALED_NUMERIC
		case CHUNK_ENCODING_DECIMAL:
#endif
			return true;
		default:
			return false;
	}
}

/* Names spot's frame in the frame cache, as a fetch keeps it. */
static void
frame_key(FrameCacheKey *key, const ColChunkRef *ref, const FrameSpot *spot)
{
	frame_cache_key(key, ref->rel, ref->stripe->first_block,
					ref->chunk->stored_offset + spot->offset,
					ref->chunk->checksum, &spot->entry);
	if (ref->chunk->encoding == CHUNK_ENCODING_DELTA)
		key->kind = FRAME_CACHE_DECODED;
}

uint32
col_chunk_read_frame(const ColChunkRef *ref, const FrameSpot *spot,
					 ColBuffer *stored, ColBuffer *raw)
{
	const FrameEntry *e = &spot->entry;
	const Codec *codec = check_chunk(ref);
	const CodecDict *dict = column_dict(ref, codec);
	uint32		nrows = spot->nrows;
	char	   *out = col_buffer(raw, frame_room(ref, e->raw_length, nrows));
	StreamPlace place = chunk_place(ref);
	bool		delta = ref->chunk->encoding == CHUNK_ENCODING_DELTA;
	FrameKeep	keep = FRAME_KEEP_NONE;
	FrameCacheKey key;
	const char *problem;

	if (ref->keep_frames)
		keep = decodes_in_place(ref) ? FRAME_KEEP_ALL : FRAME_KEEP_COMPRESSED;
	else if (ref->share_frames)
		keep = FRAME_KEEP_SHARED;
	/* a fetch keeps a delta-encoded frame decoded, below */
	if (delta && keep != FRAME_KEEP_NONE)
	{
		frame_key(&key, ref, spot);
		if (frame_cache_get(&key, out))
			return e->raw_length;
	}
	problem = storage_decode_frame(ref->rel, ref->stripe->first_block,
								   ref->chunk->stored_offset + spot->offset,
								   ref->chunk->checksum, e, codec, dict,
								   col_buffer(stored, e->stored_length), out,
								   delta ? FRAME_KEEP_NONE : keep,
								   ref->strategy, &place, ref->pin);
	if (problem != NULL)
		col_chunk_corrupted(ref, problem);
	frame_undelta(ref, e, nrows, out);
	if (delta && keep != FRAME_KEEP_NONE)
		frame_cache_offer(&key, out, e->raw_length, keep);
	return e->raw_length;
}

bool
col_chunk_reads_rows(const ColChunkRef *ref, const FrameEntry *e)
{
	ValueTypeInfo type = value_type(ref);

	if (e->stored_length != e->raw_length)
		return false;
	switch (ref->chunk->encoding)
	{
		case CHUNK_ENCODING_PLAIN:
			return value_spans_rows(&type);
		case CHUNK_ENCODING_PACKED:
		case CHUNK_ENCODING_CHARS:
#ifdef HAVE_SCALED_NUMERIC
		case CHUNK_ENCODING_DECIMAL:
#endif
			return true;
		default:
			return false;
	}
}

/*
 * What fetches read of a frame stored raw, row by row, is kept in the frame
 * cache (FRAME_CACHE_ROWS): the frame's first bytes and each row's bytes,
 * as spans of the frame.  A later fetch copies them from there instead of
 * reading two pages a row, the frame's start and the row's bytes.  Whole,
 * such frames find no room where lookups want more frames than the cache
 * holds: 2,000 rows of 100 users (K7) want two rows of each of their raw
 * frames, and read those pages for a quarter of their time.
 *
 * The kept value: a KeptRows, its spans, then their bytes in that order
 * (the first span the frame's start).  A row read from the pages makes a
 * new value with its span added.
 */
typedef struct KeptSpan
{
	uint32		start;
	uint32		len;
} KeptSpan;

typedef struct KeptRows
{
	uint32		nspans;
	KeptSpan	spans[FLEXIBLE_ARRAY_MEMBER];
} KeptRows;

/* Rows a frame keeps at most: past that, reading it whole pays. */
#define KEPT_ROWS_MAX	16

/*
 * What spot's frame keeps of the rows read of it, named by *key, for a
 * fetch that keeps frames; NULL when none (or the fetch keeps none).
 */
static const KeptRows *
kept_rows(const ColChunkRef *ref, const FrameSpot *spot, FrameCacheKey *key)
{
	if (!ref->keep_frames)
		return NULL;
	frame_key(key, ref, spot);
	key->kind = FRAME_CACHE_ROWS;
	return (const KeptRows *) frame_cache_peek(key);
}

/* Where the bytes of kept's spans start, the first span's first. */
static const char *
kept_bytes(const KeptRows *kept)
{
	return (const char *) &kept->spans[kept->nspans];
}

/*
 * Keeps span [start, start + len) of raw with what key keeps (NULL: a
 * frame's start, its first span).
 */
static void
keep_span(const FrameCacheKey *key, const KeptRows *kept, const char *raw,
		  uint32 start, uint32 len)
{
	uint32		n = kept != NULL ? kept->nspans : 0;
	Size		old_bytes = 0;
	Size		size;
	KeptRows   *made;
	char	   *p;
	uint32		k;

	if (n >= KEPT_ROWS_MAX + 1)
		return;
	for (k = 0; k < n; k++)
		old_bytes += kept->spans[k].len;
	size = offsetof(KeptRows, spans) + sizeof(KeptSpan) * (n + 1) +
		old_bytes + len;
	made = palloc(size);
	made->nspans = n + 1;
	if (n > 0)
		memcpy(made->spans, kept->spans, sizeof(KeptSpan) * n);
	made->spans[n].start = start;
	made->spans[n].len = len;
	p = (char *) &made->spans[n + 1];
	if (n > 0)
		memcpy(p, kept_bytes(kept), old_bytes);
	memcpy(p + old_bytes, raw + start, len);
	frame_cache_put(key, made, size);
	pfree(made);
}

/* Copies the span of kept holding [start, start + len) to raw; or false. */
static bool
copy_kept(const KeptRows *kept, uint32 start, uint32 len, char *raw)
{
	const char *bytes;
	uint32		k;

	if (kept == NULL)
		return false;
	bytes = kept_bytes(kept);
	for (k = 0; k < kept->nspans; bytes += kept->spans[k++].len)
		if (kept->spans[k].start <= start &&
			start - kept->spans[k].start <= kept->spans[k].len &&
			len <= kept->spans[k].len - (start - kept->spans[k].start))
		{
			memcpy(raw + start, bytes + (start - kept->spans[k].start), len);
			return true;
		}
	return false;
}

uint32
col_chunk_read_frame_start(const ColChunkRef *ref, const FrameSpot *spot,
						   ColBuffer *raw)
{
	const FrameEntry *e = &spot->entry;
	uint32		nrows = spot->nrows;
	uint32		len = Min(e->raw_length, VALUE_PREFIX_BYTES(nrows));
	char	   *bytes;
	FrameCacheKey key;
	const KeptRows *kept;

	check_chunk(ref);
	Assert(col_chunk_reads_rows(ref, e));
	bytes = col_buffer(raw, frame_room(ref, e->raw_length, nrows));
	kept = kept_rows(ref, spot, &key);
	if (copy_kept(kept, 0, len, bytes))
		return e->raw_length;
	read_bytes(ref, spot->offset, bytes, len);
	if (ref->keep_frames && kept == NULL)
		keep_span(&key, NULL, bytes, 0, len);
	return e->raw_length;
}

void
col_chunk_read_row(const ColChunkRef *ref, const FrameSpot *spot, char *raw,
				   uint32 row)
{
	const FrameEntry *e = &spot->entry;
	uint32		nrows = spot->nrows;
	ValueTypeInfo type = value_type(ref);
	uint32		start;
	uint32		len;
	FrameCacheKey key;
	const KeptRows *kept;
	const char *problem;

	switch (ref->chunk->encoding)
	{
		case CHUNK_ENCODING_PACKED:
			problem = packed_row_span(raw, e->raw_length, &type, nrows, row,
									  &start, &len);
			break;
#ifdef HAVE_SCALED_NUMERIC
		case CHUNK_ENCODING_DECIMAL:
			problem = packed_decimal_row_span(raw, e->raw_length, nrows, row,
											  &start, &len);
			break;
#endif
		case CHUNK_ENCODING_CHARS:
			problem = chars_row_span(raw, e->raw_length, nrows, row, &start,
									 &len);
			break;
		default:
			problem = value_row_span(raw, e->raw_length, &type, nrows, row,
									 &start, &len);
			break;
	}
	if (problem != NULL)
		col_chunk_corrupted(ref, problem);
	if (len == 0)
		return;
	kept = kept_rows(ref, spot, &key);
	if (copy_kept(kept, start, len, raw))
		return;
	read_bytes(ref, spot->offset + start, raw + start, len);
	/* added to what the frame keeps: its start was kept first */
	if (kept != NULL)
		keep_span(&key, kept, raw, start, len);
}

/* As col_chunk_decode_value, a value the layout makes written at made. */
static void
decode_row(const ColChunkRef *ref, char *raw, uint32 rawlen, uint32 nrows,
		   uint32 row, ValueWalk *walk, char *made, Datum *value,
		   bool *isnull)
{
	ValueTypeInfo type = value_type(ref);
	const char *problem;

	switch (ref->chunk->encoding)
	{
		case CHUNK_ENCODING_DICT:
			problem = dict_decode_row(raw, rawlen, &type, nrows, row, value,
									  isnull);
			break;
		case CHUNK_ENCODING_PACKED:
			problem = packed_decode_row(raw, rawlen, &type, nrows, row, value,
										isnull);
			break;
#ifdef HAVE_SCALED_NUMERIC
		case CHUNK_ENCODING_DECIMAL:
			problem = packed_decimal_decode_row(raw, rawlen, nrows, row, made,
												value, isnull);
			break;
#endif
		case CHUNK_ENCODING_CHARS:
			problem = chars_decode_row(raw, rawlen, nrows, row, made, value,
									   isnull);
			break;
		default:
			problem = value_decode_row(raw, rawlen, &type, nrows, row, walk,
									   value, isnull);
			break;
	}

	if (problem != NULL)
		col_chunk_corrupted(ref, problem);
}

/*
 * The marks kept beside the cached frame of key (whose bytes are *raw), made
 * now if there were none.  Keeping them may drop the frame's bytes: *raw is
 * then found again, NULL if gone.  NULL when no marks are kept.
 */
static ValueWalk *
cached_marks(const FrameCacheKey *key, uint32 nrows, const char **raw)
{
	FrameCacheKey marks_key = *key;
	ValueWalk  *marks;

	marks_key.kind = FRAME_CACHE_MARKS;
	marks = (ValueWalk *) frame_cache_peek(&marks_key);
	if (marks != NULL)
		return marks;
	marks = frame_cache_put(&marks_key, NULL,
							sizeof(ValueWalk) * VALUE_MARKS(nrows));
	*raw = frame_cache_peek(key);
	return *raw != NULL ? marks : NULL;
}

bool
col_chunk_frame_wanted(const ColChunkRef *ref, const FrameSpot *spot)
{
	FrameCacheKey key;

	if (!decodes_in_place(ref))
		return false;
	frame_key(&key, ref, spot);
	return frame_cache_wants(&key);
}

bool
col_chunk_decode_cached(const ColChunkRef *ref, const FrameSpot *spot,
						uint32 row, ColBuffer *made, Datum *value,
						bool *isnull)
{
	const FrameEntry *e = &spot->entry;
	ValueTypeInfo type = value_type(ref);
	FrameCacheKey key;
	const char *raw;
	const char *problem;

	if (!decodes_in_place(ref))
		return false;
	frame_key(&key, ref, spot);
	raw = frame_cache_peek(&key);
	if (raw == NULL)
		return false;
	if (ref->chunk->encoding == CHUNK_ENCODING_PLAIN && type.typlen < 0 &&
		spot->nrows > VALUE_MARK_ROWS)
	{
		ValueWalk  *marks = cached_marks(&key, spot->nrows, &raw);

		if (marks != NULL)
		{
			problem = value_decode_row_marked(raw, e->raw_length, &type,
											  spot->nrows, row, marks,
											  value, isnull);
			if (problem != NULL)
				col_chunk_corrupted(ref, problem);
			return true;
		}
		if (raw == NULL)
			return false;
	}
	/* the layouts let through above are read without being written to */
	decode_row(ref, unconstify(char *, raw), e->raw_length, spot->nrows, row,
			   NULL, col_buffer(made, made_room(ref)), value, isnull);
	return true;
}

void
col_chunk_decode_values(const ColChunkRef *ref, char *raw,
						uint32 rawlen, uint32 nrows, Datum *values,
						bool *isnull)
{
	ValueTypeInfo type = value_type(ref);
	const char *problem;

	switch (ref->chunk->encoding)
	{
		case CHUNK_ENCODING_DICT:
			problem = dict_decode(raw, rawlen, &type, nrows, values, isnull);
			break;
		case CHUNK_ENCODING_PACKED:
			problem = packed_decode(raw, rawlen, &type, nrows, values, isnull);
			break;
#ifdef HAVE_SCALED_NUMERIC
		case CHUNK_ENCODING_DECIMAL:
			problem = packed_decimal_decode(raw, rawlen, nrows,
											raw + MAXALIGN(rawlen),
											values, isnull);
			break;
#endif
		case CHUNK_ENCODING_CHARS:
			problem = chars_decode(raw, rawlen, nrows, raw + MAXALIGN(rawlen),
								   values, isnull);
			break;
		default:
			problem = value_decode(raw, rawlen, &type, nrows, values, isnull);
			break;
	}

	if (problem != NULL)
		col_chunk_corrupted(ref, problem);
}

void
col_chunk_decode_value(const ColChunkRef *ref, char *raw,
					   uint32 rawlen, uint32 nrows, uint32 row,
					   ValueWalk *walk, Datum *value, bool *isnull)
{
	decode_row(ref, raw, rawlen, nrows, row, walk, raw + MAXALIGN(rawlen),
			   value, isnull);
}
