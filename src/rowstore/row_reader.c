/*-------------------------------------------------------------------------
 *
 * row_reader.c
 *	  Reads a rowcompress relation batch by batch.
 *
 *	  The batch list is read once, at the start, with the scan's snapshot
 *	  (plus this transaction's own batches, see meta_snapshot_for); every
 *	  participant of a parallel scan builds the same list from the same
 *	  snapshot and claims batches from a shared counter.
 *
 *	  Every stored byte is checked before use: the batch's lengths against
 *	  each other and what a batch can hold, a CRC-32C of the stored bytes,
 *	  the codec id, the decompressed length, then every row of the batch
 *	  against the column layout it will be deformed with (row_batch_check).
 *	  Damage raises ERRCODE_DATA_CORRUPTED naming the table and batch.
 *	  Rows are handed to PostgreSQL as MinimalTuples pointing into the
 *	  decompressed batch; PostgreSQL deforms only the columns it needs.
 *
 *	  Memory: batch_cxt holds one batch (compressed while it is read,
 *	  then decompressed) and is reset when the reader moves to another.  A
 *	  listed batch's zone map is read only to test it, and freed after
 *	  (batch_meta_zone_map).
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/htup_details.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "codec/checksum.h"
#include "codec/codec.h"
#include "codec/frames.h"
#include "format/frame_cache.h"
#include "format/row_cache.h"
#include "format/row_number.h"
#include "format/storage.h"
#include "format/storage_am.h"
#include "format/storage_slots.h"
#include "format/stream_dict.h"
#include "rowstore/row_reader.h"

static void
batch_corrupted(RowReader *r, const BatchMeta *b, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("data of table \"%s\" is damaged",
					RelationGetRelationName(r->rel)),
			 errdetail("Batch " UINT64_FORMAT ": %s.", b->batch_num, what),
			 errhint("Check the table with engine.rowcompress_verify() and restore it from a backup.")));
}

static void
set_desc(RowReader *r, TupleDesc desc)
{
	MemoryContext old = MemoryContextSwitchTo(r->cxt);

	r->desc = desc;
	/* a fetch cursor's layout is its reader's (row_reader_cursor) */
	if (r->attrs != NULL && r->shared == NULL)
		pfree(r->attrs);
	r->attrs = palloc(sizeof(RowBatchAttr) * Max(desc->natts, 1));
	row_batch_attrs(desc, r->attrs);
	if (r->masks != NULL && r->shared == NULL)
		pfree(r->masks);
	r->masks = palloc(Max(desc->natts, 1));
	/* a bad layout is reported when a batch is checked with it */
	r->layout_checked = row_batch_layout(r->attrs, desc->natts,
										 r->masks) == NULL;
	MemoryContextSwitchTo(old);
}

static void *
get_batch(uint64 storage_id, uint64 num, Snapshot snapshot,
		  ItemPointer tid)
{
	return batch_meta_get(storage_id, num, snapshot, tid);
}

static void *
fetch_batch_at(uint64 storage_id, uint64 num, Snapshot snapshot,
			   ItemPointer tid)
{
	return batch_meta_fetch(storage_id, num, snapshot, tid);
}

static void
describe_batch(const void *stream, uint64 *num, StreamLookupEntry *entry)
{
	const BatchMeta *b = stream;

	*num = b->batch_num;
	entry->first = b->first_row_number;
	entry->last = b->last_row_number;
	entry->runs = b->runs;
	entry->nruns = b->nruns;
}

static const StreamFinderOps batch_finder_ops = {
	.get = get_batch,
	.fetch = fetch_batch_at,
	.list = batch_meta_list,
	.describe = describe_batch,
	.kind = "batch",
	.verify_function = "engine.rowcompress_verify()",
};

static RowReader *reader_create(Relation rel, Snapshot snapshot,
								RowParallelScanDescData *parallel,
								bool list_batches);
static BatchMeta *fetch_batch_meta(RowReader *r, int index);

RowReader *
row_reader_begin(Relation rel, Snapshot snapshot,
				 RowParallelScanDescData *parallel)
{
	return reader_create(rel, snapshot, parallel, true);
}

RowReader *
row_reader_begin_fetch(Relation rel, Snapshot snapshot)
{
	return reader_create(rel, snapshot, NULL, false);
}

static RowReader *
reader_create(Relation rel, Snapshot snapshot,
			  RowParallelScanDescData *parallel, bool list_batches)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "rowcompress reader",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	RowReader  *r = palloc0(sizeof(RowReader));
	StorageMeta meta;

	r->cxt = cxt;
	r->rel = rel;
	r->snapshot = snapshot;
	r->parallel = parallel;
	r->strategy = storage_scan_strategy(rel);
	r->batch_cxt = AllocSetContextCreate(cxt, "rowcompress batch",
										 ALLOCSET_DEFAULT_SIZES);
	set_desc(r, RelationGetDescr(rel));
	if (!storage_read_meta(rel, &meta))
		;
	else if (list_batches)
		r->batches = batch_meta_list(meta.storage_id, snapshot);
	else
	{
		r->finder = palloc(sizeof(StreamFinder));
		stream_finder_init(r->finder, &batch_finder_ops, rel, meta.storage_id,
						   snapshot, cxt);
	}
	r->nbatches = list_length(r->batches);
	r->batch_index = -1;
	r->frame = -1;
	r->position = -1;
	MemoryContextSwitchTo(old);
	return r;
}

void
row_reader_no_columns(RowReader *r)
{
	r->no_columns = true;
}

void
row_reader_set_filter(RowReader *r, ZoneFilterFn filter, void *arg)
{
	r->filter = filter;
	r->filter_arg = arg;
}

/* zone: the reader, whose zone_batch is the batch under test */
static bool
batch_stats(void *zone, AttrNumber attno, ZoneStats *stats)
{
	RowReader  *r = zone;
	BatchMeta  *b = r->zone_batch;

	/* bounds in another ordering than the column's (ALTER COLUMN TYPE) */
	if (attno > b->column_count ||
		!zone_bounds_apply(TupleDescAttr(r->desc, attno - 1),
						   b->zone.type[attno - 1], b->zone.collation[attno - 1]))
		return false;
	stats->min = b->zone.min[attno - 1];
	stats->max = b->zone.max[attno - 1];
	stats->null_count = b->zone.null_count[attno - 1];
	stats->row_count = b->row_count;
	return true;
}

/*
 * Makes batch b's zone map present, for a test of its bounds that is
 * followed by batch_meta_release_zone_map.  The scan's snapshot still sees
 * every batch it listed: an MVCC one by definition, and the others scans
 * use (an index build's) under locks that keep batches in place.
 */
static void
zone_map(RowReader *r, BatchMeta *b)
{
	if (!batch_meta_zone_map(b))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("batch " UINT64_FORMAT " of table \"%s\" disappeared during a scan",
						b->batch_num, RelationGetRelationName(r->rel))));
	r->zone_batch = b;
}

bool
row_reader_zones_all(RowReader *r, ZoneTestFn test, void *arg)
{
	ListCell   *lc;

	foreach(lc, r->batches)
	{
		BatchMeta  *b = lfirst(lc);
		bool		passed;

		zone_map(r, b);
		passed = test(arg, batch_stats, r);
		batch_meta_release_zone_map(b);
		if (!passed)
			return false;
	}
	return true;
}

RowReader *
row_reader_cursor(RowReader *shared)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "rowcompress fetch cursor",
											  ALLOCSET_SMALL_SIZES);
	RowReader  *r = MemoryContextAllocZero(cxt, sizeof(RowReader));

	r->cxt = cxt;
	r->rel = shared->rel;
	r->snapshot = shared->snapshot;
	r->batch_cxt = AllocSetContextCreate(cxt, "rowcompress fetch frame",
										 ALLOCSET_DEFAULT_SIZES);
	r->frame = -1;
	r->desc = shared->desc;
	r->attrs = shared->attrs;
	r->masks = shared->masks;
	r->layout_checked = shared->layout_checked;
	r->batches = shared->batches;
	r->nbatches = shared->nbatches;
	r->shared = shared;
	r->batch_index = -1;
	r->position = -1;
	r->keep_deleted = true;
	return r;
}

void
row_reader_end(RowReader *r)
{
	FreeAccessStrategy(r->strategy);
	MemoryContextDelete(r->cxt);
}

void
row_reader_use_desc(RowReader *r, TupleDesc desc)
{
	int			loaded = r->batch_index;

	set_desc(r, desc);
	/* the loaded batch was checked against the other layout */
	if (loaded >= 0)
	{
		r->batch_index = -1;
		row_reader_load_batch(r, loaded);
	}
}

uint64
row_reader_total_rows(RowReader *r)
{
	uint64		total = 0;
	ListCell   *lc;

	foreach(lc, r->batches)
		total += batch_visible_rows(lfirst(lc), r->snapshot);
	return total;
}

/* Removes the rows the snapshot sees deleted from the loaded batch. */
static void
drop_deleted_rows(RowReader *r)
{
	int			ndeleted;
	uint64	   *deleted = storage_deleted_rows(r->batch->storage_id,
											   r->batch->first_row_number,
											   r->batch->last_row_number,
											   r->snapshot, &ndeleted);
	uint32		i;
	uint32		k = 0;

	if (deleted == NULL)
		return;
	for (i = 0; i < r->nrows; i++)
	{
		if (row_number_in(deleted, ndeleted, r->rownums[i]))
			continue;
		if (r->row_offsets != NULL)
			r->row_offsets[k] = r->row_offsets[i];
		r->rownums[k] = r->rownums[i];
		k++;
	}
	r->nrows = k;
}

/* What the metadata says must be possible before anything is read. */
static const Codec *
check_batch(RowReader *r, const BatchMeta *b)
{
	const Codec *codec = codec_by_id(b->codec);

	if (codec == NULL)
		batch_corrupted(r, b, "unknown codec");
	if (!codec->available)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" has data compressed with %s, which this build of storage_engine does not support",
						RelationGetRelationName(r->rel), codec->name),
				 errhint("Rebuild storage_engine with the %s library.", codec->name)));
	if (b->raw_length < ROW_BATCH_HEADER_SIZE || b->raw_length > MaxAllocSize)
		batch_corrupted(r, b, "impossible uncompressed length");
	if (b->data_length > MaxAllocSize)
		batch_corrupted(r, b, "impossible stored length");
	if (b->row_count == 0 ||
		b->row_count > (b->raw_length - ROW_BATCH_HEADER_SIZE) / ROW_BATCH_MIN_ROW_SIZE)
		batch_corrupted(r, b, "impossible row count");
	if (b->column_count < 0 || b->column_count > r->desc->natts)
		batch_corrupted(r, b, "more columns than the table has");
	return codec;
}

/* What storage_read_stream names in an error about the batch's pages. */
static StreamPlace
batch_place(const BatchMeta *b)
{
	StreamPlace place = {"Batch", b->batch_num, NULL};

	return place;
}

/* The dictionary the batch's frames were compressed with, or NULL. */
static const CodecDict *
batch_dict(RowReader *r, const BatchMeta *b, const Codec *codec,
		   BufferAccessStrategy strategy)
{
	StreamDictRef where;
	StreamPlace place;
	const CodecDict *dict;
	const char *problem;

	if (b->dict_offset == BATCH_NO_DICT)
		return NULL;
	place = batch_place(b);
	where.rel = r->rel;
	where.first_block = b->first_block;
	where.stream_num = b->batch_num;
	where.stream_length = b->data_length;
	where.part = 0;
	where.offset = b->dict_offset;
	where.strategy = strategy;
	where.place = &place;
	dict = stream_dict_get(&where, codec, &r->dict_hint, &problem);
	if (dict == NULL)
		batch_corrupted(r, b, problem);
	return dict;
}

static void index_frame(RowReader *r, const BatchMeta *b, const FrameEntry *e,
						bool check_whole, uint32 nrows, char *raw,
						uint32 base, uint32 *offsets);

/*
 * Decodes frame e (nrows rows) of a batch whose CRC was checked from its
 * stored bytes into raw (room for e->raw_length, MAXALIGNed) and indexes its
 * rows (index_frame).
 */
static void
decode_frame(RowReader *r, const BatchMeta *b, const Codec *codec,
			 const CodecDict *dict, const FrameEntry *e, const char *stored,
			 bool check_whole, uint32 nrows, char *raw, uint32 base,
			 uint32 *offsets)
{
	const char *problem;

	CHECK_FOR_INTERRUPTS();
	problem = frames_decode(e, stored, codec, dict, false, raw);
	if (problem != NULL)
		batch_corrupted(r, b, problem);
	index_frame(r, b, e, check_whole, nrows, raw, base, offsets);
}

/*
 * Finds the rows of the frame e decoded in raw: offsets[i] gets row i's
 * offset from base (the frame's place in the reader's raw buffer), with
 * ROW_BATCH_SLOW_ROW kept.  Unless check_whole, the rows are checked only
 * as far as their lengths and flagged ROW_BATCH_UNCHECKED: a fetch by TID
 * uses one or a few of them, each checked fully before use (store_tuple),
 * and a scan reading read_upto columns checks each as it reads it.
 */
static void
index_frame(RowReader *r, const BatchMeta *b, const FrameEntry *e,
			bool check_whole, uint32 nrows, char *raw, uint32 base,
			uint32 *offsets)
{
	const char *problem;
	uint32		i;

	problem = check_whole ?
		row_batch_check(raw, e->raw_length, r->attrs, r->desc->natts,
						nrows, offsets) :
		row_batch_index(raw, e->raw_length, r->attrs, r->desc->natts,
						nrows, offsets);
	if (problem != NULL)
		batch_corrupted(r, b, problem);
	for (i = 0; i < nrows; i++)
		offsets[i] += base;
}

/*
 * A scan decompresses every frame of every batch it reads, and a table read
 * whole again and again (a dashboard's queries) pays that every time, where
 * heap reads its cached pages: on the benchmark's events, half of a scan's
 * time.  So a scan keeps the batches it meets a second time in the shared
 * frame cache (format/shared_frames.c), rows decoded and checked, with
 * their offsets, and copies them from there; but only of a table whose rows
 * take at most SHARED_TABLE_SHARE of that cache: the batches of a larger
 * one would push each other out, and the frames of lookups, run after run.
 */
#define SHARED_TABLE_SHARE 2

/* Whether r's scan keeps and finds its batches in the shared frame cache. */
static bool
shares_batches(RowReader *r)
{
	if (!r->share_decided)
	{
		Size		room = frame_cache_shared_size() / SHARED_TABLE_SHARE;
		uint64		raw = 0;
		ListCell   *lc;

		foreach(lc, r->batches)
			raw += ((BatchMeta *) lfirst(lc))->raw_length;
		r->share_batches = room > 0 && raw <= room;
		r->share_decided = true;
	}
	return r->share_batches;
}

/*
 * Names batch b's rows as r's scan keeps them: the rows' flags follow the
 * column layout they were checked against, which ALTER TABLE may change
 * without rewriting the batch (SET NOT NULL, ADD COLUMN).
 */
static void
batch_key(RowReader *r, const BatchMeta *b, FrameCacheKey *key)
{
	FrameEntry	layout;

	memset(&layout, 0, sizeof(layout));
	layout.first_row = (uint32) r->desc->natts;
	layout.checksum = hash_bytes((const unsigned char *) r->attrs,
								 sizeof(RowBatchAttr) * r->desc->natts);
	frame_cache_key(key, r->rel, b->first_block, 0, b->checksum, &layout);
	key->kind = FRAME_CACHE_BATCH;
}

/*
 * A batch kept whole: its raw length, its rows' offsets (with their flags),
 * then its raw bytes.
 */
static Size
kept_batch_header(const BatchMeta *b)
{
	return MAXALIGN(sizeof(uint64) + sizeof(uint32) * b->row_count);
}

/*
 * Loads batch b as kept under key, if it is; false when not.  The rows are
 * read in place, pinned until the batch's memory is reset; the offsets are
 * copied, as dropping deleted rows rewrites them.
 */
static bool
load_kept_batch(RowReader *r, const BatchMeta *b, const FrameCacheKey *key)
{
	Size		header = kept_batch_header(b);
	Size		size;
	const char *kept = frame_cache_shared_pin(key, &size, r->batch_cxt);

	if (kept == NULL)
		return false;
	if (size < header || *(const uint64 *) kept != size - header)
		elog(ERROR, "shared frame cache entry of a rowcompress batch has the wrong length");
	r->row_offsets = palloc(sizeof(uint32) * b->row_count);
	memcpy(r->row_offsets, kept + sizeof(uint64), sizeof(uint32) * b->row_count);
	r->raw = kept + header;
	r->raw_length = size - header;
	return true;
}

/* Reads and decodes every frame of batch b into r->raw and r->row_offsets. */
static void
read_batch_rows(RowReader *r, const BatchMeta *b, const Codec *codec)
{
	char	   *stored;
	StreamPlace place;
	const char *problem;
	FrameDirectory dir;
	uint64		unit_length = batch_unit_length(b);
	const CodecDict *dict;
	uint64		raw_size = 0;
	uint64		base = 0;
	uint32		i;
	FrameCacheKey key;
	bool		keep = false;
	char	   *block;
	Size		header = kept_batch_header(b);

	if (shares_batches(r))
	{
		batch_key(r, b, &key);
		if (load_kept_batch(r, b, &key))
			return;
		keep = frame_cache_share_wanted(&key, header + b->raw_length);
	}
	place = batch_place(b);
	stored = palloc(Max(unit_length, 1));
	storage_read_stream(r->rel, b->first_block, 0, stored, unit_length,
						r->strategy, &place);
	if (checksum_bytes(stored, unit_length) != b->checksum)
		batch_corrupted(r, b, "checksum mismatch");

	problem = frames_parse(stored, unit_length, (uint32) b->row_count,
						   b->raw_length, &dir);
	if (problem != NULL)
		batch_corrupted(r, b, problem);

	/* every frame at a MAXALIGNed place of one buffer (below 1 GB) */
	for (i = 0; i < dir.nframes; i++)
		raw_size += MAXALIGN(dir.entries[i].raw_length);
	if (raw_size > MaxAllocSize - header)
		batch_corrupted(r, b, "impossible uncompressed length");
	/* laid out as kept: the offsets, then the rows */
	block = palloc(header + Max(raw_size, 1));
	r->row_offsets = (uint32 *) (block + sizeof(uint64));
	r->raw = block + header;
	dict = batch_dict(r, b, codec, r->strategy);
	for (i = 0; i < dir.nframes; i++)
	{
		const FrameEntry *e = &dir.entries[i];

		/*
		 * the whole batch's CRC covered every frame; rows kept are checked
		 * whole, for readers of any columns
		 */
		decode_frame(r, b, codec, dict, e, stored + dir.offsets[i],
					 keep || r->read_upto == 0,
					 frames_rows(dir.entries, dir.nframes, i, (uint32) b->row_count),
					 block + header + base, (uint32) base,
					 r->row_offsets + e->first_row);
		base += MAXALIGN(e->raw_length);
	}
	r->raw_length = base;
	*(uint64 *) block = base;
	if (keep)
		frame_cache_share(&key, block, header + base);
	pfree(stored);
}

void
row_reader_load_batch(RowReader *r, int index)
{
	BatchMeta  *b = list_nth(r->batches, index);
	MemoryContext old;
	const Codec *codec;
	uint64		idx;
	int			run;

	if (r->batch_index == index && r->frame < 0)
		return;
	MemoryContextReset(r->batch_cxt);
	r->batch_index = -1;
	r->batch = NULL;
	r->nrows = 0;
	old = MemoryContextSwitchTo(r->batch_cxt);

	codec = check_batch(r, b);
	r->raw = NULL;
	r->row_offsets = NULL;
	r->prefetched = 0;
	if (!r->no_columns)
		read_batch_rows(r, b, codec);

	/* row numbers: the batch's runs, in row order */
	r->rownums = palloc(sizeof(uint64) * b->row_count);
	idx = 0;
	for (run = 0; run < b->nruns; run++)
	{
		uint64		k;

		if (b->runs[run].count > b->row_count - idx)
			batch_corrupted(r, b, "row runs cover more rows than the batch has");
		for (k = 0; k < b->runs[run].count; k++)
			r->rownums[idx++] = b->runs[run].first + k;
	}
	if (idx != b->row_count)
		batch_corrupted(r, b, "row runs cover fewer rows than the batch has");

	r->batch = b;
	r->batch_index = index;
	r->frame = -1;
	r->nrows = (uint32) batch_visible_rows(b, r->snapshot);
	if (!r->keep_deleted)
		drop_deleted_rows(r);
	MemoryContextSwitchTo(old);
}

/*
 * A cursor's row: makes the frame of batch index holding row pos the
 * loaded one and returns where the row's offset in r->raw (with its flags)
 * is kept.
 */
static uint32 *
load_frame(RowReader *r, int index, uint32 pos)
{
	BatchMeta  *b = fetch_batch_meta(r, index);
	const Codec *codec = check_batch(r, b);
	FrameSpot  *spot = &r->spot;

	if (r->batch_index != index || r->frame < 0 ||
		pos < spot->entry.first_row ||
		pos - spot->entry.first_row >= spot->nrows)
	{
		StreamPlace place = batch_place(b);
		const char *problem;
		MemoryContext old;
		char	   *stored;
		char	   *raw;
		const CodecDict *dict;

		MemoryContextReset(r->batch_cxt);
		r->batch_index = -1;
		r->batch = NULL;
		r->frame = -1;
		problem = storage_find_frame(r->rel, b->first_block, 0,
									 batch_unit_length(b),
									 (uint32) b->row_count, b->raw_length,
									 b->checksum, NULL, &place, pos,
									 &r->dir_hint, spot);
		if (problem != NULL)
			batch_corrupted(r, b, problem);
		old = MemoryContextSwitchTo(r->batch_cxt);
		dict = batch_dict(r, b, codec, NULL);
		stored = palloc(Max(spot->entry.stored_length, 1));
		raw = palloc(Max(spot->entry.raw_length, 1));
		r->raw = raw;
		r->prefetched = 0;
		r->raw_length = spot->entry.raw_length;
		r->row_offsets = palloc(sizeof(uint32) * spot->nrows);
		CHECK_FOR_INTERRUPTS();

		/*
		 * A cursor scanning many rows (keeps_rows) keeps frames too: run
		 * again, a bitmap scan over a twentieth of the rows (Q8) finds a
		 * third of its frames there, within the statement's share; without
		 * them it took 40% longer.
		 */
		problem = storage_decode_frame(r->rel, b->first_block, spot->offset,
									   b->checksum, &spot->entry, codec, dict,
									   stored, raw, FRAME_KEEP_COMPRESSED,
									   NULL, &place, NULL);
		if (problem != NULL)
			batch_corrupted(r, b, problem);
		index_frame(r, b, &spot->entry, false, spot->nrows, raw, 0,
					r->row_offsets);
		MemoryContextSwitchTo(old);
		r->batch_index = index;
		r->batch = b;
		r->frame = (int) spot->index;
	}
	return &r->row_offsets[pos - spot->entry.first_row];
}

static int
claim_batch(RowReader *r)
{
	uint64		next = pg_atomic_fetch_add_u64(&r->parallel->next_batch, 1);

	return next < (uint64) r->nbatches ? (int) next : -1;
}

bool
row_reader_next_batch(RowReader *r, bool forward)
{
	int			next = r->position;

	for (;;)
	{
		if (r->parallel != NULL)
		{
			next = claim_batch(r);
			if (next < 0)
				return false;
		}
		else if (forward)
		{
			if (++next >= r->nbatches)
				return false;
		}
		else
		{
			/* from before the first batch, backward starts at the last */
			next = next < 0 ? r->nbatches - 1 : next - 1;
			if (next < 0)
				return false;
		}

		/* a batch none of whose rows are visible is not even read */
		if (batch_visible_rows(list_nth(r->batches, next), r->snapshot) == 0)
			continue;
		/* nor one whose zone map excludes the filter */
		if (r->filter != NULL)
		{
			BatchMeta  *b = list_nth(r->batches, next);
			bool		excluded;

			zone_map(r, b);
			excluded = r->filter(r->filter_arg, batch_stats, r);
			batch_meta_release_zone_map(b);
			if (excluded)
			{
				r->batches_pruned++;
				continue;
			}
		}
		r->batches_read++;
		row_reader_load_batch(r, next);
		r->position = next;
		return true;
	}
}

bool
row_reader_next_slot(RowReader *r, bool forward, TupleTableSlot *slot)
{
	if (r->desc != slot->tts_tupleDescriptor)
		row_reader_use_desc(r, slot->tts_tupleDescriptor);
	for (;;)
	{
		if (r->have_batch)
		{
			int64		next = r->pos + (forward ? 1 : -1);

			if (next >= 0 && next < (int64) r->nrows)
			{
				r->pos = next;
				row_reader_store_row(r, (uint32) next, slot);
				return true;
			}
		}
		if (!row_reader_next_batch(r, forward))
		{
			/* stay past the end, so the opposite direction resumes */
			if (r->have_batch)
				r->pos = forward ? (int64) r->nrows : -1;
			ExecClearTuple(slot);
			return false;
		}
		r->have_batch = true;
		r->pos = forward ? -1 : (int64) r->nrows;
	}
}

void
row_reader_reset(RowReader *r)
{
	r->have_batch = false;
	r->position = -1;
	r->batch_index = -1;
	r->batch = NULL;
	r->nrows = 0;
	MemoryContextReset(r->batch_cxt);
}

/*
 * The first upto columns of the row at offset (with its flags) of r->raw
 * into values/isnull, each checked as it is read; false when the row lacks
 * some of them.
 */
static bool
read_columns(RowReader *r, uint32 offset, int upto, Datum *values,
			 bool *isnull)
{
	bool		lacks;
	const char *problem;

	problem = row_batch_read_columns(r->raw, r->raw_length, r->attrs,
									 r->masks, offset, upto, values, isnull,
									 &lacks);
	if (problem != NULL)
		batch_corrupted(r, r->batch, problem);
	return !lacks;
}

/*
 * Stores the first read_upto columns of the row at offset of r->raw in
 * slot, a virtual tuple; false, storing nothing, when the row lacks some
 * of them (added by ALTER TABLE since it was written: a slot given the
 * row supplies their values).
 */
static bool
store_columns(RowReader *r, uint32 offset, uint64 rownum, TupleTableSlot *slot)
{
	int			natts = slot->tts_tupleDescriptor->natts;
	int			upto = Min(r->read_upto, natts);

	ExecClearTuple(slot);
	if (!read_columns(r, offset, upto, slot->tts_values, slot->tts_isnull))
		return false;
	/* the plan reads none of the others */
	memset(slot->tts_isnull + upto, true, natts - upto);
	ExecStoreVirtualTuple(slot);
	row_number_to_tid(rownum, &slot->tts_tid);
	slot->tts_tableOid = RelationGetRelid(r->rel);
	return true;
}

/* Checks the row at *row_offset (with its flags) of r->raw whole, once. */
static void
check_row(RowReader *r, uint32 *row_offset)
{
	if (*row_offset & ROW_BATCH_UNCHECKED)
	{
		const char *problem = row_batch_check_one(r->raw, r->raw_length,
												  r->attrs,
												  r->layout_checked ?
												  r->masks : NULL,
												  r->desc->natts,
												  row_offset);

		if (problem != NULL)
			batch_corrupted(r, r->batch, problem);
	}
}

/*
 * Stores the row at *offset (with its flags) of r->raw in slot: as far as
 * the reader reads rows, or whole, checking it first when it is not yet.
 */
static void
store_tuple(RowReader *r, uint32 *row_offset, uint64 rownum,
			TupleTableSlot *slot)
{
	MinimalTuple tup;
	uint32		offset;

	if (r->read_upto > 0 && store_columns(r, *row_offset, rownum, slot))
		return;

	check_row(r, row_offset);
	offset = *row_offset;
	tup = (MinimalTuple) (r->raw + ROW_BATCH_OFFSET(offset));

	if (offset & ROW_BATCH_SLOW_ROW)
	{
		HeapTupleData htup;

		/*
		 * The row has a NULL where the slot's descriptor promises NOT NULL
		 * (ALTER TABLE checking a new constraint reads such rows, and
		 * raises its own error): deform it here, following the null
		 * bitmap, so that no deformer trusting the promise reads it.
		 */
		ExecClearTuple(slot);
		htup.t_len = tup->t_len + MINIMAL_TUPLE_OFFSET;
		htup.t_data = (HeapTupleHeader) ((char *) tup - MINIMAL_TUPLE_OFFSET);
		ItemPointerSetInvalid(&htup.t_self);
		htup.t_tableOid = RelationGetRelid(r->rel);
		heap_deform_tuple(&htup, slot->tts_tupleDescriptor, slot->tts_values,
						  slot->tts_isnull);
		ExecStoreVirtualTuple(slot);
	}
	else if (storage_slot_is_minimal(slot))
		storage_slot_store_minimal(tup, slot);
	else
		ExecForceStoreMinimalTuple(tup, slot, false);
	row_number_to_tid(rownum, &slot->tts_tid);
	slot->tts_tableOid = RelationGetRelid(r->rel);
}

/*
 * A scan reading row i of the loaded batch asks for the batch's next
 * ROW_PREFETCH_AHEAD bytes.  A batch read in place from the shared frame
 * cache comes from memory, not the processor's caches, and reading a few
 * lines of each row stalled on every row: in place, the benchmark's Q2 on
 * rowcompress took 40% longer than copying each batch first (a copy
 * streams).  Asked for ahead, it took a quarter less than with the copy.
 * Rows are read in order, skipping some (deleted, filtered out): past the
 * bytes asked for, the asking starts again at the row.
 */
#define ROW_PREFETCH_AHEAD 2048
#define ROW_PREFETCH_LINE 64

#if defined(__GNUC__) || defined(__clang__)
#define prefetch_line(p) __builtin_prefetch(p)
#else
#define prefetch_line(p) ((void) (p))
#endif

static inline void
prefetch_rows(RowReader *r, uint32 i)
{
	uint64		at = ROW_BATCH_OFFSET(r->row_offsets[i]);
	uint64		end = Min(at + ROW_PREFETCH_AHEAD, r->raw_length);

	if (r->prefetched < at || r->prefetched > end)
		r->prefetched = at;
	for (; r->prefetched < end; r->prefetched += ROW_PREFETCH_LINE)
		prefetch_line(r->raw + r->prefetched);
}

bool
row_reader_read_columns(RowReader *r, uint32 i, int upto, Datum *values,
						bool *isnull)
{
	if (r->no_columns || upto > r->read_upto)
		elog(ERROR, "rowcompress reader asked for columns it does not read");
	prefetch_rows(r, i);
	return read_columns(r, r->row_offsets[i], upto, values, isnull);
}

void
row_reader_store_row(RowReader *r, uint32 i, TupleTableSlot *slot)
{
	if (r->no_columns)
	{
		ExecClearTuple(slot);
		memset(slot->tts_isnull, true,
			   sizeof(bool) * slot->tts_tupleDescriptor->natts);
		ExecStoreVirtualTuple(slot);
		row_number_to_tid(r->rownums[i], &slot->tts_tid);
		slot->tts_tableOid = RelationGetRelid(r->rel);
		return;
	}
	prefetch_rows(r, i);
	store_tuple(r, &r->row_offsets[i], r->rownums[i], slot);
}

/* A fetch's batch index (from fetch_batch) */
static BatchMeta *
fetch_batch_meta(RowReader *r, int index)
{
	RowReader  *owner = r->shared != NULL ? r->shared : r;

	return owner->finder != NULL ? owner->finder->streams[index] :
		list_nth(owner->batches, index);
}

/* Index of the batch holding rownum, or -1; *pos its row. */
static int
fetch_batch(RowReader *r, uint64 rownum, uint64 *pos)
{
	RowReader  *owner = r->shared != NULL ? r->shared : r;

	if (owner->finder == NULL)
	{
		/* a scan's reader: every batch is known */
		owner->finder = MemoryContextAlloc(owner->cxt, sizeof(StreamFinder));
		stream_finder_init(owner->finder, &batch_finder_ops, owner->rel, 0,
						   owner->snapshot, owner->cxt);
		stream_finder_known(owner->finder, owner->batches);
	}
	return stream_finder_find(owner->finder, rownum, pos);
}

/*
 * Whether a cursor's next fetch looks for its row kept whole, and keeps it:
 * while the rows it returned would fit in the room the frame cache gives
 * rows (a kept row takes about twice its bytes: its allocation rounded up
 * to a power of 2, its key and bookkeeping), and while the rows it will
 * return would fit at all, at the density it met them so far across the
 * row numbers it spanned (reltuples -1, never counted: no estimate).  A
 * row missed costs a 6 kB frame decompressed.  A bitmap scan over a
 * twentieth of the table (the benchmark's Q8, 16 MB of rows) run again
 * finds them all, in a seventh of the time.  One over a fifth (Q6, 64 MB)
 * cannot keep its rows: it kept the first 16 MB, the same ones each run,
 * 4% slower than keeping none, and they filled the room a following Q8
 * needed (Q8 run six times after Q6: 188 down to 72 ms, against 17 alone;
 * now 240, 260, then 31-43).  A bitmap scan meets its rows in row-number
 * order, so the density tells early; lookups in random order soon span
 * the table, and then only what they returned counts.
 */
static bool
keeps_rows(RowReader *r)
{
	Size		room = frame_cache_rows_room();
	double		rows;
	uint64		spanned;

	if (r->reads_storage || r->fetched_bytes * 2 >= room)
		return false;
	/* a sixteenth of the room before the density tells */
	if (r->fetched_bytes < room / 16)
		return true;
	/* the rows VACUUM or ANALYZE counted: row numbers may have gaps */
	rows = RelationGetForm(r->rel)->reltuples;
	spanned = r->fetched_highest - r->fetched_lowest + 1;
	return rows <= (double) spanned ||
		r->fetched_bytes * rows / spanned <= room;
}

/* Counts a row a fetch returned, of bytes, for keeps_rows. */
static void
count_fetched(RowReader *r, uint64 rownum, uint32 bytes)
{
	r->fetched_bytes += bytes;
	if (r->fetched_lowest == 0 || rownum < r->fetched_lowest)
		r->fetched_lowest = rownum;
	if (rownum > r->fetched_highest)
		r->fetched_highest = rownum;
}

/* Stores rownum's row, kept whole for key, in slot; false when not kept. */
static bool
cached_row(RowReader *r, const FrameCacheKey *key, uint64 rownum,
		   TupleTableSlot *slot)
{
	MinimalTuple kept = row_cache_peek(key, slot->tts_tupleDescriptor, 0,
									   NULL);

	if (kept == NULL)
		return false;
	/* the cache may drop it while the values are in the slot */
	if (r->row_copy_size < kept->t_len)
	{
		if (r->row_copy != NULL)
			pfree(r->row_copy);
		r->row_copy = MemoryContextAlloc(r->cxt, kept->t_len);
		r->row_copy_size = kept->t_len;
	}
	memcpy(r->row_copy, kept, kept->t_len);
	count_fetched(r, rownum, kept->t_len);
	/* following the null bitmap, as for a slow row (store_tuple) */
	ExecClearTuple(slot);
	row_cache_deform((MinimalTuple) r->row_copy, slot->tts_tupleDescriptor,
					 slot->tts_values, slot->tts_isnull);
	ExecStoreVirtualTuple(slot);
	row_number_to_tid(rownum, &slot->tts_tid);
	slot->tts_tableOid = RelationGetRelid(r->rel);
	return true;
}

bool
row_fetch(RowReader *r, uint64 rownum, TupleTableSlot *slot, bool *later_own)
{
	BatchMeta  *b;
	FrameCacheKey row_key;
	bool		keeps;
	uint32	   *row_offset;
	uint64		pos;
	int			index;

	if (r->batch != NULL &&
		rownum >= r->batch->first_row_number &&
		rownum <= r->batch->last_row_number &&
		row_runs_find(r->batch->runs, r->batch->nruns, rownum, &pos))
		index = r->batch_index;
	else
		index = fetch_batch(r, rownum, &pos);
	if (index < 0)
		return false;
	/* rows of this transaction's later commands are not visible */
	if (pos >= batch_visible_rows(fetch_batch_meta(r, index), r->snapshot))
	{
		if (later_own)
			*later_own = true;
		return false;
	}
	if (slot == NULL)
		return true;
	keeps = keeps_rows(r);
	if (keeps)
	{
		b = fetch_batch_meta(r, index);
		row_cache_key(&row_key, r->rel, b->first_block, b->checksum, pos);
		if (cached_row(r, &row_key, rownum, slot))
			return true;
	}
	row_offset = load_frame(r, index, (uint32) pos);
	store_tuple(r, row_offset, rownum, slot);
	if (keeps)
	{
		MinimalTuple tuple;

		check_row(r, row_offset);
		tuple = (MinimalTuple) (r->raw + ROW_BATCH_OFFSET(*row_offset));
		count_fetched(r, rownum, tuple->t_len);
		row_cache_put_tuple(&row_key, tuple);
	}
	return true;
}
