/*-------------------------------------------------------------------------
 *
 * col_fetch.c
 *	  Fetching colcompress rows by row number.
 *
 *	  A ColFetch is what a snapshot sees of the stripes: those its fetches
 *	  met, each found through engine.row_run and read alone, or all of
 *	  them once many were (catalog/stream_runs.c).  Reading every stripe's
 *	  metadata for a lookup of a few rows made its cost grow with the
 *	  table.  Stripes are
 *	  immutable once written, so a ColFetch can serve every fetch of a
 *	  transaction with that snapshot, and every cursor over it.
 *
 *	  A cursor decodes.  A row's chunk group follows from its position
 *	  (groups are chunk_group_row_limit rows), so the cursor reads that
 *	  group's chunk metadata, then, per column, the chunk's frame
 *	  directory and the one frame holding the row (col_chunk.c), and
 *	  decodes only the row's value: an index lookup decompresses a few kB
 *	  per column, not a chunk group's ten thousand values.  Each column
 *	  keeps its last frame, so rows near each other cost no further
 *	  decompression, and where decoding stopped in it, so rows asked in
 *	  order cost one walk through the frame's values.  A frame stored
 *	  uncompressed whose values have one width (random floats, hex
 *	  digests, packed integers) is not read whole for its first row: the
 *	  row's own bytes and the frame's header are, a few bytes of a 16 kB
 *	  frame (col_chunk_read_row), until rows come in a run or the frame
 *	  is met again by a later lookup: then it is read whole, and in the
 *	  second case kept in the frame cache, where lookups after that decode
 *	  their row in place instead of reading two pages.  Where the cache has
 *	  no room for the frame, it keeps the bytes read of it row by row
 *	  (col_chunk_read_row).  A scan that knows
 *	  the columns its plan reads (scan/fetch_columns.c) has the
 *	  cursor leave the others NULL, undecoded.  The values stored in a
 *	  slot point into those frames: they stay valid until the cursor's
 *	  next fetch, which is why every scan has a cursor of its own.
 *
 *	  Memory: the ColFetch's context holds the stripe list; a cursor's
 *	  group_cxt the current group's chunk metadata (reset when the group
 *	  changes; frame directories are kept per backend, format/storage.h),
 *	  and the cursor's context a buffer per column for its frame, reused
 *	  from frame to frame (no allocation per fetched row).
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/htup_details.h"
#include "common/hashfn.h"
#include "utils/datum.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "catalog/stream_runs.h"
#include "catalog/stripe_meta.h"
#include "colstore/col_chunk.h"
#include "colstore/col_fetch.h"
#include "format/row_cache.h"
#include "format/row_number.h"
#include "format/row_runs.h"
#include "format/storage.h"

struct ColFetch
{
	Relation	rel;
	Snapshot	snapshot;
	MemoryContext cxt;
	bool		have_storage;	/* the relation has a metapage */
	StreamFinder stripes;		/* the stripes met, StripeMeta */
};

/*
 * A column's current frame in the cursor's current chunk group: its value
 * layout, where decoding its rows one by one stopped, and once a row before
 * that is asked for, all its values decoded.
 */
typedef struct ColumnFrame
{
	bool		have_frame;		/* a frame of the current group is in raw */
	FrameSpot	spot;			/* that frame; its rows within the group */
	ColBuffer	raw;			/* its value layout */
	uint32		rawlen;
	bool		partial;		/* raw holds only the rows read so far */
	uint32		served;			/* rows it gave */
	bool		dense;			/* the frame before gave many rows */
	uint32		partial_reads;	/* rows read one by one */
	uint32		last_partial;	/* the last of them, within the frame */
	uint32		alone;			/* the last rows decoded in the frame cache */
	uint32		alone_frame;	/* from that frame (index in the group) */
	ColBuffer	value_copy;		/* that row's value, by reference */
	StreamDictHint dict_hint;	/* the column's dictionary, found last */
	FrameDirectoryHint dir_hint;	/* its chunk's frame directory, found last */
	ValueWalk	walk;			/* where decoding its rows one by one stopped */
	bool		decoded;		/* values/isnull hold its rows */
	Datum	   *values;			/* [nrows], in values_buffer */
	bool	   *isnull;			/* [nrows], in isnull_buffer */
	ColBuffer	values_buffer;
	ColBuffer	isnull_buffer;
} ColumnFrame;

struct ColFetchCursor
{
	ColFetch   *fetch;
	MemoryContext cxt;

	/* the chunk group whose metadata is loaded (stripe, group) */
	StripeMeta *stripe;
	int			group;
	ChunkMeta  *chunks;			/* [column_count] */
	MemoryContext group_cxt;
	uint32		group_checksum; /* its chunks' checksums, combined */
	uint32		group_served;	/* rows fetched of it */
	bool		dense;			/* rows kept whole: not of this group */
	ColBuffer	row_copy;		/* a row kept whole, copied out */

	int			natts;
	ColumnFrame *cols;			/* [natts] */
	ColBuffer stored;		/* a frame's stored bytes, scratch */
	StoragePin pin;				/* the page last read, while a row is read */
	bool	   *skipped;		/* [natts] columns left NULL; NULL: none */
	bool		skips_all;		/* every column: no chunk is read */
};

static void *
get_stripe(uint64 storage_id, uint64 num, Snapshot snapshot,
		   ItemPointer tid)
{
	return stripe_meta_get(storage_id, num, snapshot, tid);
}

static void *
fetch_stripe_at(uint64 storage_id, uint64 num, Snapshot snapshot,
				ItemPointer tid)
{
	return stripe_meta_fetch(storage_id, num, snapshot, tid);
}

static void
describe_stripe(const void *stream, uint64 *num, StreamLookupEntry *entry)
{
	const StripeMeta *s = stream;

	*num = s->stripe_num;
	entry->first = s->first_row_number;
	entry->last = s->last_row_number;
	entry->runs = s->runs;
	entry->nruns = s->nruns;
}

static const StreamFinderOps stripe_finder_ops = {
	.get = get_stripe,
	.fetch = fetch_stripe_at,
	.list = stripe_meta_list,
	.describe = describe_stripe,
	.kind = "stripe",
	.verify_function = "engine.colcompress_verify()",
};

ColFetch *
col_fetch_begin(Relation rel, Snapshot snapshot)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "colcompress fetch",
											  ALLOCSET_DEFAULT_SIZES);
	ColFetch   *f = MemoryContextAllocZero(cxt, sizeof(ColFetch));
	StorageMeta meta;

	f->rel = rel;
	f->snapshot = snapshot;
	f->cxt = cxt;
	f->have_storage = storage_read_meta(rel, &meta);
	stream_finder_init(&f->stripes, &stripe_finder_ops, rel,
					   f->have_storage ? meta.storage_id : 0, snapshot, cxt);
	return f;
}

void
col_fetch_end(ColFetch *f)
{
	MemoryContextDelete(f->cxt);
}

ColFetchCursor *
col_fetch_cursor(ColFetch *f)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "colcompress fetch cursor",
											  ALLOCSET_SMALL_SIZES);
	ColFetchCursor *c = MemoryContextAllocZero(cxt, sizeof(ColFetchCursor));
	int			a;

	c->fetch = f;
	c->cxt = cxt;
	c->stripe = NULL;
	c->group = -1;
	c->group_cxt = AllocSetContextCreate(cxt, "colcompress fetch group",
										 ALLOCSET_SMALL_SIZES);
	c->natts = RelationGetDescr(f->rel)->natts;
	c->cols = MemoryContextAllocZero(cxt, sizeof(ColumnFrame) * Max(c->natts, 1));
	for (a = 0; a < c->natts; a++)
	{
		c->cols[a].raw.cxt = cxt;
		c->cols[a].values_buffer.cxt = cxt;
		c->cols[a].isnull_buffer.cxt = cxt;
		c->cols[a].value_copy.cxt = cxt;
	}
	c->stored.cxt = cxt;
	c->row_copy.cxt = cxt;
	return c;
}

void
col_fetch_cursor_columns(ColFetchCursor *c, const Bitmapset *columns)
{
	int			a;

	if (c->skipped == NULL)
		c->skipped = MemoryContextAlloc(c->cxt, sizeof(bool) * Max(c->natts, 1));
	c->skips_all = true;
	for (a = 0; a < c->natts; a++)
	{
		c->skipped[a] = !bms_is_member(a + 1, columns);
		c->skips_all &= c->skipped[a];
	}
}

void
col_fetch_cursor_end(ColFetchCursor *c)
{
	MemoryContextDelete(c->cxt);
}

static void
metadata_corrupted(ColFetchCursor *c, const StripeMeta *s, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("metadata of table \"%s\" is damaged",
					RelationGetRelationName(c->fetch->rel)),
			 errdetail("Stripe " UINT64_FORMAT ": %s.", s->stripe_num, what)));
}

/*
 * A cursor that fetched at least one in ROW_CACHE_SHARE rows of a chunk
 * group is scanning it (a bitmap heap scan over a fifth of the table), not
 * looking rows up: it neither looks for its rows in the frame cache nor
 * offers them, there or in the next group, until a group gives fewer.
 * Lookups of 1,000 users fetch one row in fifty of each group.
 */
#define ROW_CACHE_SHARE		32

/*
 * Makes chunk group group of stripe s the cursor's current group; false if
 * the fetch's snapshot, not an MVCC one, no longer sees the stripe.
 */
static bool
use_group(ColFetchCursor *c, StripeMeta *s, int group)
{
	MemoryContext old;
	ChunkMeta  *chunks;
	int			a;

	if (c->stripe == s && c->group == group)
		return true;
	if (c->stripe != NULL)
		c->dense = (uint64) c->group_served * ROW_CACHE_SHARE >=
			(uint64) c->stripe->chunk_group_row_limit;
	c->group_served = 0;
	MemoryContextReset(c->group_cxt);
	c->stripe = NULL;
	c->group = -1;
	for (a = 0; a < c->natts; a++)
	{
		c->cols[a].have_frame = false;
		c->cols[a].alone = 0;
	}
	/* a stripe listed with the others decodes its columns' metadata now */
	if (!stripe_meta_columns(s))
		return false;
	old = MemoryContextSwitchTo(c->group_cxt);
	chunks = stripe_meta_group_chunks(s, c->fetch->snapshot, group);
	MemoryContextSwitchTo(old);
	if (chunks == NULL)
		return false;
	c->chunks = chunks;
	c->stripe = s;
	c->group = group;
	/* names the group's rows in the frame cache (row_cache_key) */
	c->group_checksum = (uint32) s->stripe_num;
	for (a = 0; a < s->column_count; a++)
		c->group_checksum = hash_combine(c->group_checksum, chunks[a].checksum);
	return true;
}

/*
 * Fills slot's column a when the stripe's chunks do not give its value: a
 * dropped column, one the cursor leaves undecoded (both NULL), or one
 * added since the stripe was written (its default); false when they do.
 */
static bool
column_not_stored(ColFetchCursor *c, const StripeMeta *s, TupleDesc desc,
				  int a, TupleTableSlot *slot)
{
	if (TupleDescAttr(desc, a)->attisdropped)
	{
		slot->tts_values[a] = (Datum) 0;
		slot->tts_isnull[a] = true;
	}
	else if (a >= s->column_count)
		slot->tts_values[a] = getmissingattr(desc, a + 1,
											 &slot->tts_isnull[a]);
	else if (c->skipped != NULL && c->skipped[a])
	{
		slot->tts_values[a] = (Datum) 0;
		slot->tts_isnull[a] = true;
	}
	else
		return false;
	return true;
}

/*
 * Fills slot's values with row pos of the current group's stripe, kept
 * whole in the frame cache; false when it is not, or lacks a column wanted.
 */
static bool
cached_row(ColFetchCursor *c, const FrameCacheKey *key, TupleTableSlot *slot)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	int			stored = Min(desc->natts, c->stripe->column_count);
	MinimalTuple kept = row_cache_peek(key, desc, stored, c->skipped);
	MinimalTuple copy;
	int			a;

	if (kept == NULL)
		return false;
	/* the cache may drop it while the values are in the slot */
	copy = (MinimalTuple) col_buffer(&c->row_copy, kept->t_len);
	memcpy(copy, kept, kept->t_len);
	row_cache_deform(copy, desc, slot->tts_values, slot->tts_isnull);
	/* the others as a row decoded from frames has them */
	for (a = 0; a < desc->natts; a++)
		(void) column_not_stored(c, c->stripe, desc, a, slot);
	return true;
}

/* Decodes all the values of col's frame (its value layout in col->raw). */
static void
decode_frame_values(ColumnFrame *col, const ColChunkRef *ref)
{
	col->values = (Datum *) col_buffer(&col->values_buffer,
									   sizeof(Datum) * col->spot.nrows);
	col->isnull = (bool *) col_buffer(&col->isnull_buffer,
									  sizeof(bool) * col->spot.nrows);
	col_chunk_decode_values(ref, col->raw.data, col->rawlen, col->spot.nrows,
							col->values, col->isnull);
	col->decoded = true;
}

/*
 * A column whose last frame gave at least DENSE_FRAME_ROWS rows, and at
 * least one in DENSE_FRAME_SHARE of its rows, is being scanned (a bitmap
 * heap scan over a fifth of the table), not looked up: its frames are not
 * offered to the frame cache, where they would only push out the frames of
 * lookups (format/frame_cache.c).  Lookups of a hundred users take twenty
 * rows of a chunk group's one frame of tags, not one in sixteen.
 */
#define DENSE_FRAME_ROWS	8
#define DENSE_FRAME_SHARE	16

/* Makes the frame at spot (of the current group) col's frame. */
static void
load_frame(ColFetchCursor *c, ColumnFrame *col, const ColChunkRef *ref,
		   const FrameSpot *spot)
{
	ColChunkRef keeping;

	col->have_frame = false;
	col->dense = col->served >= DENSE_FRAME_ROWS &&
		(uint64) col->served * DENSE_FRAME_SHARE >= col->spot.nrows;
	col->served = 0;
	col->spot = *spot;
	col->partial = col_chunk_reads_rows(ref, &col->spot.entry) &&
		(col->dense || !col_chunk_frame_wanted(ref, &col->spot));
	col->partial_reads = 0;
	keeping = *ref;
	keeping.keep_frames = !col->dense;
	keeping.share_frames = col->dense && frame_cache_shares();
	if (col->partial)
		col->rawlen = col_chunk_read_frame_start(&keeping, &col->spot,
												 &col->raw);
	else
		col->rawlen = col_chunk_read_frame(&keeping, &col->spot, &c->stored,
										   &col->raw);
	col->decoded = false;
	memset(&col->walk, 0, sizeof(ValueWalk));
	col->have_frame = true;
}

/*
 * Whether a frame read row by row (col->partial) is read whole for row
 * (within the frame): when rows come in a run (a bitmap heap scan over
 * many rows), or once the rows read one by one have cost about what
 * reading and checking the frame's stored bytes does.  Rows far apart (an
 * index lookup of scattered keys: two rows of a user 500 rows apart) keep
 * reading a few bytes each.
 */
#define PARTIAL_ROW_COST_BYTES	1024
#define PARTIAL_RUN_ROWS		8

static bool
reads_whole(const ColumnFrame *col, uint32 row)
{
	if (col->partial_reads == 0)
		return false;
	if (row > col->last_partial && row - col->last_partial <= PARTIAL_RUN_ROWS)
		return true;
	return (uint64) col->partial_reads * PARTIAL_ROW_COST_BYTES >=
		col->spot.entry.stored_length;
}

/*
 * A value decoded in the frame cache, copied to col: the cache may drop the
 * frame while the value is still in the slot.
 */
static void
keep_value(ColumnFrame *col, Form_pg_attribute attr, Datum *value,
		   bool isnull)
{
	Size		len;
	char	   *copy;

	/* a value made by the decoder is there already */
	if (isnull || attr->attbyval ||
		DatumGetPointer(*value) == col->value_copy.data)
		return;
	len = datumGetSize(*value, false, attr->attlen);
	copy = col_buffer(&col->value_copy, len);
	memcpy(copy, DatumGetPointer(*value), len);
	*value = PointerGetDatum(copy);
}

/*
 * Rows of one frame decoded in the frame cache before the frame is copied
 * out.  Each costs a probe of the cache; a copy, of up to 64 kB, pays when
 * many rows of the frame are wanted (a bitmap heap scan over many rows).
 */
#define CACHED_ROWS		4

/*
 * Value of column a (of attr's type) at row row of the current group.  The
 * first rows asked of a frame the backend's frame cache holds are decoded
 * there, without copying the frame; a fifth loads it.  Rows
 * asked in order (a bitmap's TID order: an index lookup of scattered keys,
 * or a bitmap heap scan over many rows) are decoded one at a time, each
 * going on from where the last one stopped in the frame, so a frame costs
 * at most one walk through its values.  A row before the last one asked (an
 * index scan returns rows in key order) has the frame decoded whole, once,
 * unless only some of its rows were read (their values, of one width, are
 * found by arithmetic).
 */
static void
column_value(ColFetchCursor *c, int a, Form_pg_attribute attr, uint32 row,
			 uint32 group_rows, Datum *value, bool *isnull)
{
	ColumnFrame *col = &c->cols[a];
	ColChunkRef ref;

	ref.rel = c->fetch->rel;
	ref.stripe = c->stripe;
	ref.group = c->group;
	ref.attr = attr;
	ref.chunk = &c->chunks[a];
	ref.rows = group_rows;
	ref.strategy = NULL;
	ref.pin = &c->pin;
	ref.dict_hint = &col->dict_hint;
	ref.dir_hint = &col->dir_hint;
	ref.keep_frames = false;	/* but by load_frame */
	ref.share_frames = false;

	if (!col->have_frame || row < col->spot.entry.first_row ||
		row - col->spot.entry.first_row >= col->spot.nrows)
	{
		FrameSpot	spot;

		col_chunk_find_frame(&ref, row, &spot);
		if (col->alone > 0 && col->alone_frame != spot.index)
			col->alone = 0;
		if (col->alone < CACHED_ROWS &&
			col_chunk_decode_cached(&ref, &spot, row - spot.entry.first_row,
									&col->value_copy, value, isnull))
		{
			keep_value(col, attr, value, *isnull);
			col->alone++;
			col->alone_frame = spot.index;
			return;
		}
		load_frame(c, col, &ref, &spot);
	}
	col->alone = 0;
	col->served++;
	row -= col->spot.entry.first_row;
	if (col->partial && reads_whole(col, row))
	{
		col->rawlen = col_chunk_read_frame(&ref, &col->spot, &c->stored,
										   &col->raw);
		col->partial = false;
	}
	if (col->partial)
	{
		ref.keep_frames = !col->dense;
		col_chunk_read_row(&ref, &col->spot, col->raw.data, row);
		col->partial_reads++;
		col->last_partial = row;
	}
	else if (!col->decoded && row < col->walk.next_row)
		decode_frame_values(col, &ref);
	if (col->decoded)
	{
		*value = col->values[row];
		*isnull = col->isnull[row];
	}
	else
		col_chunk_decode_value(&ref, col->raw.data, col->rawlen, col->spot.nrows,
							   row, &col->walk, value, isnull);
}

/* Decodes row of the current group (of stripe s) into slot's values. */
static void
decode_row(ColFetchCursor *c, StripeMeta *s, uint32 row, uint32 group_rows,
		   TupleTableSlot *slot)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	int			a;

	/*
	 * Columns' frames share pages: each is pinned once for the row.  A pin
	 * left by a fetch that failed went with its resource owner.
	 */
	c->pin.buffer = InvalidBuffer;
	c->pin.viewing = false;
	for (a = 0; a < desc->natts; a++)
		if (!column_not_stored(c, s, desc, a, slot))
			column_value(c, a, TupleDescAttr(desc, a), row, group_rows,
						 &slot->tts_values[a], &slot->tts_isnull[a]);
	storage_pin_release(&c->pin);
}

bool
col_fetch_row(ColFetchCursor *c, uint64 rownum, TupleTableSlot *slot,
			  bool *later_own)
{
	ColFetch   *f = c->fetch;
	TupleDesc	desc = slot ? slot->tts_tupleDescriptor : NULL;
	StripeMeta *s;
	uint64		pos;
	uint64		group;
	uint32		row;
	uint32		group_rows;
	bool		keeps_row;
	FrameCacheKey row_key;

	/* fewer: ALTER TABLE reading the rows it adds columns to */
	if (desc != NULL && desc->natts > c->natts)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("fetch from \"%s\" asked for %d columns, the table has %d",
						RelationGetRelationName(f->rel), desc->natts, c->natts)));

	s = c->stripe;
	if (s == NULL || rownum < s->first_row_number ||
		rownum > s->last_row_number ||
		!row_runs_find(s->runs, s->nruns, rownum, &pos))
	{
		int			si;

		if (!f->have_storage ||
			(si = stream_finder_find(&f->stripes, rownum, &pos)) < 0)
			return false;
		s = f->stripes.streams[si];
	}
	/* rows of this transaction's later commands are not visible */
	if (pos >= stripe_visible_rows(s, f->snapshot))
	{
		if (later_own)
			*later_own = true;
		return false;
	}
	if (slot == NULL)
		return true;

	if (s->chunk_group_row_limit <= 0)
		metadata_corrupted(c, s, "impossible chunk group row limit");
	group = pos / (uint64) s->chunk_group_row_limit;
	if (group >= (uint64) s->chunk_group_count)
		metadata_corrupted(c, s, "a row lies past the last chunk group");
	row = (uint32) (pos - group * s->chunk_group_row_limit);
	group_rows = (uint32) Min((uint64) s->chunk_group_row_limit,
							  s->row_count - group * s->chunk_group_row_limit);
	if (!c->skips_all && !use_group(c, s, (int) group))
		return false;

	ExecClearTuple(slot);
	keeps_row = !c->skips_all && !c->dense &&
		c->group_served * ROW_CACHE_SHARE < (uint32) s->chunk_group_row_limit;
	c->group_served++;
	if (keeps_row)
		row_cache_key(&row_key, f->rel, s->first_block, c->group_checksum, pos);
	if (!keeps_row || !cached_row(c, &row_key, slot))
	{
		decode_row(c, s, row, group_rows, slot);
		if (keeps_row)
			row_cache_put(&row_key, desc, Min(desc->natts, s->column_count),
						  c->skipped, slot->tts_values, slot->tts_isnull);
	}
	ExecStoreVirtualTuple(slot);
	row_number_to_tid(rownum, &slot->tts_tid);
	slot->tts_tableOid = RelationGetRelid(f->rel);
	return true;
}
