/*-------------------------------------------------------------------------
 *
 * row_cache.c
 *	  Rows fetched by row number, kept whole in the frame cache.
 *
 *	  The frame cache keeps the frames lookups decompressed, but a lookup of
 *	  scattered keys uses one row or two of a frame of a thousand: SELECT *
 *	  of 2,000 rows of 100 users by a foreign key meets nearly every frame
 *	  of every column, 64 to 96 MB of them, and one probe of the cache per
 *	  value returned.  The rows themselves are 700 kB.  So a row met again
 *	  is kept as well, as a minimal tuple (colcompress: of the columns its
 *	  fetch decoded; rowcompress: as stored), and a fetch that finds it
 *	  there copies it out and is done: one probe a row instead of one a
 *	  column, and room for the rows of a thousand users where the frames of
 *	  a hundred did not fit.  Which fetches offer their rows, and look for
 *	  them, the readers decide (colstore/col_fetch.c, rowstore/row_reader.c).
 *
 *	  Rows live beside frames, in the same cache, in up to half of it, and
 *	  under the same rules (format/frame_cache.c): kept when met a second
 *	  time, within the statement's share, never by parallel workers.  A row
 *	  is named like a frame, by where its unit lies and the checksum of the
 *	  unit's stored bytes, so that stored bytes never changing in place is
 *	  again all that keeps an entry true; whether the row is visible to a
 *	  snapshot is for the caller, before or after, as it is for a row
 *	  decoded from frames.
 *
 *	  A row holds the values of stored columns only: columns added later
 *	  (with a default, not stored in the unit) and dropped ones are the
 *	  caller's, and a column its fetch did not decode is marked absent, so
 *	  a later fetch wanting it decodes the row again.  The tuple is formed
 *	  with the descriptor of the fetch that kept it and read with that of
 *	  the fetch that finds it: ALTER TABLE changes column types only by
 *	  rewriting the table (a new file, new names) or for a type stored
 *	  alike, as heap's tuples rely on too.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/htup_details.h"
#include "utils/memutils.h"

#include "format/row_cache.h"

/* A kept row: which columns it holds, then the tuple, at tuple_offset. */
typedef struct RowCacheEntry
{
	int32		natts;			/* the first natts columns are its own */
	uint32		tuple_offset;	/* 0 until the tuple is there */
	bits8		held[FLEXIBLE_ARRAY_MEMBER];	/* of those, the decoded */
} RowCacheEntry;

/* A put's nulls, the row's and the columns it does not hold. */
static bool *put_isnull = NULL;
static int	put_isnull_size = 0;

void
row_cache_key(FrameCacheKey *key, Relation rel, uint64 first_block,
			  uint32 unit_checksum, uint64 row)
{
	static const FrameEntry no_entry;

	/* a frame's name, the row's place for the frame's, and another kind */
	frame_cache_key(key, rel, first_block, row, unit_checksum, &no_entry);
	key->kind = FRAME_CACHE_ROW_VALUES;
}

static inline bool
wanted(TupleDesc desc, const bool *skipped, int a)
{
	return !TupleDescAttr(desc, a)->attisdropped &&
		(skipped == NULL || !skipped[a]);
}

MinimalTuple
row_cache_peek(const FrameCacheKey *key, TupleDesc desc, int natts,
			   const bool *skipped)
{
	const RowCacheEntry *e = (const RowCacheEntry *) frame_cache_peek(key);
	int			a;

	/* an entry an error left before it was filled in has no tuple */
	if (e == NULL || e->tuple_offset == 0)
		return NULL;
	for (a = 0; a < natts; a++)
		if (wanted(desc, skipped, a) &&
			(a >= e->natts || (e->held[a / 8] & (1 << (a % 8))) == 0))
			return NULL;
	return (MinimalTuple) ((char *) e + e->tuple_offset);
}

void
row_cache_deform(MinimalTuple tuple, TupleDesc desc, Datum *values,
				 bool *isnull)
{
	HeapTupleData htup;

	htup.t_len = tuple->t_len + MINIMAL_TUPLE_OFFSET;
	htup.t_data = (HeapTupleHeader) ((char *) tuple - MINIMAL_TUPLE_OFFSET);
	heap_deform_tuple(&htup, desc, values, isnull);
}

void
row_cache_put(const FrameCacheKey *key, TupleDesc desc, int natts,
			  const bool *skipped, const Datum *values, const bool *isnull)
{
	bool		hasnull = false;
	Size		header;
	Size		hoff;
	Size		data_len;
	RowCacheEntry *e;
	MinimalTuple tuple;
	int			a;

	Assert(natts <= desc->natts);
	if (put_isnull_size < desc->natts)
	{
		if (put_isnull != NULL)
			pfree(put_isnull);
		put_isnull = MemoryContextAlloc(TopMemoryContext,
										sizeof(bool) * desc->natts);
		put_isnull_size = desc->natts;
	}
	for (a = 0; a < desc->natts; a++)
	{
		put_isnull[a] = a >= natts || !wanted(desc, skipped, a) || isnull[a];
		hasnull |= put_isnull[a];
	}

	header = MAXALIGN(offsetof(RowCacheEntry, held) + BITMAPLEN(natts));
	hoff = MAXALIGN(SizeofMinimalTupleHeader +
					(hasnull ? BITMAPLEN(desc->natts) : 0));
	data_len = heap_compute_data_size(desc, (Datum *) values, put_isnull);
	e = frame_cache_put(key, NULL, header + hoff + data_len);
	if (e == NULL)
		return;

	/* zeroed by frame_cache_put */
	e->natts = natts;
	for (a = 0; a < natts; a++)
		if (wanted(desc, skipped, a))
			e->held[a / 8] |= 1 << (a % 8);
	tuple = (MinimalTuple) ((char *) e + header);
	tuple->t_len = hoff + data_len;
	HeapTupleHeaderSetNatts(tuple, desc->natts);
	tuple->t_hoff = hoff + MINIMAL_TUPLE_OFFSET;
	heap_fill_tuple(desc, (Datum *) values, put_isnull, (char *) tuple + hoff,
					data_len, &tuple->t_infomask,
					hasnull ? tuple->t_bits : NULL);
	e->tuple_offset = header;
}

void
row_cache_put_tuple(const FrameCacheKey *key, MinimalTuple tuple)
{
	int			natts = HeapTupleHeaderGetNatts(tuple);
	Size		header = MAXALIGN(offsetof(RowCacheEntry, held) +
								  BITMAPLEN(natts));
	RowCacheEntry *e = frame_cache_put(key, NULL, header + tuple->t_len);

	if (e == NULL)
		return;
	e->natts = natts;
	memset(e->held, 0xff, BITMAPLEN(natts));
	memcpy((char *) e + header, tuple, tuple->t_len);
	e->tuple_offset = header;
}
