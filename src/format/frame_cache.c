/*-------------------------------------------------------------------------
 *
 * frame_cache.c
 *	  Decompressed frames kept by each backend for fetches by row number.
 *
 *	  A fetch by TID decompresses one frame per column (a rowcompress
 *	  batch: one frame of rows) to return one row, and shared buffers keep
 *	  only the compressed pages: an index lookup that heap answers from a
 *	  cached page pays a read, a CRC and a decompression of kilobytes per
 *	  column every time it runs (SELECT * of 100 rows by primary key:
 *	  38% of the time in zstd).  Lookups of the same rows come back (hot
 *	  keys, a join's inner side, a dashboard's query), so the backend keeps
 *	  the frames it decompressed, as ClickHouse's "uncompressed cache" does
 *	  for short queries, within storage_engine.frame_cache_size, least
 *	  recently used dropped first.  A frame stored raw is kept for a reader
 *	  that decodes rows in place (FrameKeep): a lookup of a row's value
 *	  then costs one probe here instead of two page reads, its frame's
 *	  header and its bytes; but only in room the decompressed frames leave
 *	  (raw_frame): lookups of more frames than the cache holds (SELECT * of
 *	  2,000 rows by a foreign key) took 20% longer reading raw frames whole
 *	  to keep them for a moment.  Scans decompress every frame and do not
 *	  come here.  Beside a frame's bytes, a reader may keep what it learnt
 *	  of them (where its rows' values start, FrameCacheKind; the values of
 *	  a delta-encoded frame with its deltas undone).
 *
 *	  A frame is named by where it lies (file, unit, offset) and by what
 *	  it holds (its directory entry with the CRC-32C of its stored bytes,
 *	  and the CRC of its whole unit): stored bytes never change in place,
 *	  and a unit written later in blocks VACUUM freed, or in a file reused
 *	  after DROP, differs in both checksums (as frame directories are named,
 *	  format/storage.c).  Nothing needs invalidating, and a hit is exactly
 *	  the bytes a decompression would give.
 *
 *	  A statement that fetches more frames than the cache holds (a bitmap
 *	  heap scan over a fifth of a table) would only push out every frame
 *	  before it came back, paying a copy and an allocation per frame for
 *	  nothing: the JSONB @> query of the benchmark took 80% longer.  So a
 *	  frame is kept only when it is met a second time (met_before): one
 *	  scan over many frames keeps none, and left alone it
 *	  would fill the cache with frames no lookup wants.  And a statement may
 *	  push out at most a quarter of the cache; past that its frames are not
 *	  kept, so a scan repeated does not push out everything either, and a
 *	  repeated lookup keeps a quarter more each time until it fits.
 *	  Parallel workers keep nothing: their process ends with the query.
 *
 *	  Rows fetched are kept here too, whole (format/row_cache.c), in up to
 *	  half of the size, and frames in the room rows leave: under the same
 *	  rules, met twice and within the statement's share.
 *
 *	  Frames decompressed or decoded, which a lookup copies out whole, are
 *	  kept in the shared cache too when there is one (format/shared_frames.c,
 *	  storage_engine.shared_frame_cache_size), under the same rules but
 *	  within its own size: a lookup that misses here copies them from there.
 *	  A session's cache stays small, as every backend has one; that one holds
 *	  what a bitmap scan over a fifth of a table meets, for every session.
 *
 *	  Memory: LruCaches (format/lru_cache.c) under TopMemoryContext, one
 *	  for rows, one for raw frames, one for the rest, within the size
 *	  together, and the table of keys met once beside them; setting the
 *	  size to 0 frees them at the next fetch that would keep something.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "format/frame_cache.h"
#include "format/lru_cache.h"
#include "format/shared_frames.h"
#include "guc.h"

static LruCache *rows_kept = NULL;	/* rows, whole: format/row_cache.c */
static LruCache *frame_cache = NULL;	/* decompressed frames, and marks */
static LruCache *raw_frames = NULL; /* frames stored raw, in the room left */

/*
 * Rows may take this share of the cache (1/ROWS_SHARE), frames the room
 * rows leave: a row is worth more than its bytes' share of a frame (a
 * lookup that finds it needs nothing else), and frames, a thousand rows
 * each, would push out every row kept by a lookup of more rows than fit
 * with them (SELECT * of 20,000 rows by a foreign key).
 */
#define ROWS_SHARE	2

/*
 * Frames and rows met once, as a table of their keys' hashes, a slot per
 * MET_ONCE_BYTES of the cache (64 MB: 262,144 slots, 1 MB).  A slot per
 * kilobyte, sized for frames, forgot most rows: a bitmap scan over 50,000
 * rowcompress rows (the benchmark's Q8, 16 MB of rows, which fit) met its
 * rows a second time as if for the first, and took five runs instead of
 * two to keep them all (266, 153, 97, 49, 30 ms).
 * A frame met again is kept: a frame that falls where others are forgets
 * one of them, and now and then one takes another for itself, and either
 * only decides what is kept.  A table of keys in recency order
 * cost a bitmap scan over a whole rowcompress table (53,000 frames, more
 * than it held) three hash probes, an allocation and a free per frame to
 * remember nothing: a tenth of the scan.
 */
#define MET_ONCE_BYTES	256

static uint32 *met_once = NULL;
static uint32 met_once_slots = 0;	/* a power of 2 */

/* What the current statement has pushed out of the cache, and the shared one. */
static TimestampTz budget_statement = 0;
static Size budget_dropped = 0;
static Size budget_dropped_shared = 0;

/* A statement may push out this share of the cache (1/STATEMENT_SHARE). */
#define STATEMENT_SHARE 4

/* Sizes met_once for a cache of limit bytes: it forgets when resized. */
static void
size_met_once(Size limit)
{
	uint32		slots = limit == 0 ? 0 :
		(uint32) pg_nextpower2_64(Max(limit / MET_ONCE_BYTES, 1024));

	if (slots == met_once_slots)
		return;
	if (met_once != NULL)
		pfree(met_once);
	met_once = slots == 0 ? NULL :
		MemoryContextAllocZero(TopMemoryContext, sizeof(uint32) * slots);
	met_once_slots = slots;
}

/* Frames take the room rows leave, raw frames the room the others leave. */
static void
set_frame_limits(Size limit)
{
	lru_cache_set_limit(frame_cache,
						limit - Min(limit, lru_cache_used(rows_kept)));
	lru_cache_set_limit(raw_frames, lru_cache_unused(frame_cache));
}

/*
 * The cache's bytes now, 0 when off; a smaller setting takes effect at the
 * next put, 0 at once.
 */
static Size
cache_limit(void)
{
	Size		limit = (Size) storage_engine_frame_cache_size * 1024;

	if (frame_cache != NULL)
	{
		if (limit == 0)
		{
			lru_cache_reset(rows_kept);
			lru_cache_reset(frame_cache);
			lru_cache_reset(raw_frames);
		}
		lru_cache_set_limit(rows_kept, limit / ROWS_SHARE);
		set_frame_limits(limit);
		size_met_once(limit);
	}
	return limit;
}

Size
frame_cache_rows_room(void)
{
	if (IsParallelWorker())
		return 0;
	return (Size) storage_engine_frame_cache_size * 1024 / ROWS_SHARE;
}

/* Makes the caches at limit bytes. */
static void
create_caches(Size limit)
{
	if (frame_cache != NULL)
		return;
	rows_kept = lru_cache_create("storage_engine rows",
								 sizeof(FrameCacheKey), limit / ROWS_SHARE);
	frame_cache = lru_cache_create("storage_engine frames",
								   sizeof(FrameCacheKey), limit);
	raw_frames = lru_cache_create("storage_engine frames stored raw",
								  sizeof(FrameCacheKey), limit);
	size_met_once(limit);
}

/*
 * Whether key names the bytes of a frame stored raw.  Those are kept only in
 * room the decompressed frames do not use, and are the first to go when
 * these need it: keeping one saves a reader a few page reads, keeping a
 * compressed one a decompression.  Where lookups need more frames than the
 * cache holds, none is kept, and raw frames cost no lookup at all.
 */
static bool
raw_frame(const FrameCacheKey *key)
{
	return key->kind == FRAME_CACHE_BYTES &&
		key->entry.stored_length == key->entry.raw_length;
}

/*
 * met_once's slots are read in sets of MET_ONCE_WAYS, one set per key: two
 * frames a lookup needs that fell in one slot would push each other out
 * every time and never be kept (K6, SELECT * of 200 rows: a fifth of them).
 */
#define MET_ONCE_WAYS	4

/* The set of met_once's slots for key, and what it holds there when met. */
static uint32 *
met_once_set(const FrameCacheKey *key, uint32 *mark)
{
	uint32		hash = lru_cache_hash(key, sizeof(*key));

	*mark = hash != 0 ? hash : 1;	/* 0 is an empty slot */
	return &met_once[(hash & (met_once_slots / MET_ONCE_WAYS - 1)) *
					 MET_ONCE_WAYS];
}

/* Whether key's frame was met before; it is, from now on. */
static bool
met_before(const FrameCacheKey *key)
{
	static uint32 turn = 0;
	uint32		mark;
	uint32	   *set;
	int			i;

	if (met_once == NULL)
		return false;
	set = met_once_set(key, &mark);
	for (i = 0; i < MET_ONCE_WAYS; i++)
		if (set[i] == mark)
			return true;
	for (i = 0; i < MET_ONCE_WAYS; i++)
		if (set[i] == 0)
			break;
	/* a full set forgets one in turn */
	set[i < MET_ONCE_WAYS ? i : turn++ % MET_ONCE_WAYS] = mark;
	return false;
}

/* Forgets that key's frame was met: it is kept now. */
static void
forget_met(const FrameCacheKey *key)
{
	uint32		mark;
	uint32	   *set;
	int			i;

	if (met_once == NULL)
		return;
	set = met_once_set(key, &mark);
	for (i = 0; i < MET_ONCE_WAYS; i++)
		if (set[i] == mark)
			set[i] = 0;
}

/* The cache that keeps key's value (once the caches exist). */
static LruCache *
cache_of(const FrameCacheKey *key)
{
	if (key->kind == FRAME_CACHE_ROW_VALUES)
		return rows_kept;
	return raw_frame(key) ? raw_frames : frame_cache;
}

/* Starts the budgets of a statement that did not keep anything yet. */
static void
new_statement(void)
{
	TimestampTz statement = GetCurrentStatementStartTimestamp();

	if (statement != budget_statement)
	{
		budget_statement = statement;
		budget_dropped = 0;
		budget_dropped_shared = 0;
	}
}

/*
 * Whether key's value goes to the shared cache too (format/shared_frames.c):
 * frames decompressed or decoded, which a lookup copies out whole; not
 * frames stored raw, which it would copy from their pages as fast, nor what
 * readers read or add to in place.  A session with its own cache off keeps
 * nothing and looks nowhere.
 */
static bool
shares(const FrameCacheKey *key)
{
	if (!frame_cache_shares())
		return false;
	return key->kind == FRAME_CACHE_DECODED || key->kind == FRAME_CACHE_BATCH ||
		(key->kind == FRAME_CACHE_BYTES && !raw_frame(key));
}

Size
frame_cache_shared_size(void)
{
	return frame_cache_shares() ? shared_frames_size() : 0;
}

bool
frame_cache_shares(void)
{
	return storage_engine_frame_cache_size > 0 && shared_frames_size() > 0;
}

/*
 * Whether the current statement may keep size bytes more for key in the
 * shared cache: within its share of that cache, as in the session's.
 */
static bool
shared_room_for(const FrameCacheKey *key, Size size)
{
	/* parallel workers keep nothing: they would only meet frames once */
	if (!shares(key) || !shared_frames_fits(size) || IsParallelWorker())
		return false;
	/* a session that only scans has not made its table of frames met */
	if (met_once == NULL)
		size_met_once((Size) storage_engine_frame_cache_size * 1024);
	new_statement();
	/* what a frame kept now may push out: at most its size */
	return budget_dropped_shared + size <=
		shared_frames_size() / STATEMENT_SHARE;
}

/*
 * Whether the current statement may keep size bytes more for key, pushing
 * out *dropping bytes of decompressed frames or of rows to make room; the
 * caches exist when it may.
 */
static bool
room_for(const FrameCacheKey *key, Size size, Size *dropping)
{
	Size		limit = cache_limit();
	LruCache   *cache;
	Size		unused;

	*dropping = 0;
	/* a frame over a sixteenth of the cache would push out too much */
	if (size > limit / 16 || IsParallelWorker())
		return false;
	create_caches(limit);
	new_statement();
	cache = cache_of(key);
	if (cache == raw_frames)
	{
		unused = lru_cache_unused(frame_cache);
		return size <= unused - Min(unused, lru_cache_used(raw_frames));
	}
	/* raw frames in that room go first, and do not count; nor do frames */
	unused = lru_cache_unused(cache);
	*dropping = size > unused ? size - unused : 0;
	return budget_dropped + *dropping <= limit / STATEMENT_SHARE;
}

bool
frame_cache_wants(const FrameCacheKey *key)
{
	Size		dropping;

	/* a frame refused for room is not read whole for nothing */
	return (room_for(key, key->entry.raw_length, &dropping) ||
			shared_room_for(key, key->entry.raw_length)) &&
		met_before(key);
}

void
frame_cache_key(FrameCacheKey *key, Relation rel, uint64 first_block,
				uint64 offset, uint32 unit_checksum, const FrameEntry *entry)
{
	memset(key, 0, sizeof(*key));
	key->file = RelationPhysicalId(rel);
	key->unit_checksum = unit_checksum;
	key->first_block = first_block;
	key->offset = offset;
	key->entry = *entry;
}

const char *
frame_cache_peek(const FrameCacheKey *key)
{
	/* a lookup per value a fetch returns: the limits are set by puts */
	LruCache   *cache;

	if (frame_cache == NULL || storage_engine_frame_cache_size == 0)
		return NULL;
	cache = cache_of(key);
	/* no hash of the key where nothing is kept */
	return lru_cache_used(cache) == 0 ? NULL : lru_cache_get(cache, key);
}

bool
frame_cache_get(const FrameCacheKey *key, char *raw)
{
	const char *cached = frame_cache_peek(key);

	if (cached == NULL)
		return shares(key) && shared_frames_get(key, raw);
	memcpy(raw, cached, key->entry.raw_length);
	return true;
}

static void
put_shared(const FrameCacheKey *key, const void *bytes, Size size)
{
	Size		dropped;

	if (shared_frames_put(key, bytes, size, &dropped))
		budget_dropped_shared += dropped;
}

bool
frame_cache_share_wanted(const FrameCacheKey *key, Size size)
{
	return shared_room_for(key, size) && met_before(key);
}

const char *
frame_cache_shared_pin(const FrameCacheKey *key, Size *size, MemoryContext cxt)
{
	return shares(key) ? shared_frames_pin(key, size, cxt) : NULL;
}

void
frame_cache_share(const FrameCacheKey *key, const void *bytes, Size size)
{
	if (!shared_room_for(key, size) || !met_before(key))
		return;
	forget_met(key);
	put_shared(key, bytes, size);
}

void
frame_cache_offer(const FrameCacheKey *key, const void *bytes, Size size,
				  FrameKeep keep)
{
	if (keep == FRAME_KEEP_SHARED)
		frame_cache_share(key, bytes, size);
	else
		frame_cache_put(key, bytes, size);
}

void *
frame_cache_put(const FrameCacheKey *key, const void *bytes, Size size)
{
	Size		dropping;
	LruCache   *cache;
	void	   *kept;
	bool		own = room_for(key, size, &dropping);
	bool		shared = bytes != NULL && shared_room_for(key, size);

	if (!own && !shared)
		return NULL;
	/*
	 * A frame the budget turns away stays met once: the next statement keeps
	 * it.  What a reader adds to a frame, or read of it, is kept at once.
	 */
	if (key->kind != FRAME_CACHE_MARKS && key->kind != FRAME_CACHE_ROWS)
	{
		if (!met_before(key))
			return NULL;
		forget_met(key);
	}
	if (shared)
		put_shared(key, bytes, size);
	if (!own)
		return NULL;
	cache = cache_of(key);
	if (cache == raw_frames)
		return lru_cache_put(raw_frames, key, bytes, size);
	budget_dropped += dropping;
	kept = lru_cache_put(cache, key, bytes, size);
	/* frames give up the room rows now take, raw frames what others take */
	set_frame_limits((Size) storage_engine_frame_cache_size * 1024);
	if (cache == rows_kept)
		lru_cache_trim(frame_cache);
	lru_cache_trim(raw_frames);
	return kept;
}
