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
 *	  recently used dropped first.  Only compressed frames are kept: a frame
 *	  stored raw costs a copy either way.  Scans decompress every frame and
 *	  do not come here.  Beside a frame's bytes, a reader may keep what it
 *	  learnt of them (where its rows' values start: FrameCacheKind).
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
 *	  statement may push out at most an eighth of the cache; past that its
 *	  frames are not kept.  Filling free room costs no one, and a statement
 *	  run again finds what it kept and keeps an eighth more, so a repeated
 *	  lookup that fits comes to be served whole.  Parallel workers keep
 *	  nothing: their process ends with the query.
 *
 *	  Memory: one LruCache (format/lru_cache.c) under TopMemoryContext;
 *	  setting the size to 0 frees it.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "utils/rel.h"

#include "format/frame_cache.h"
#include "format/lru_cache.h"
#include "guc.h"

static LruCache *frame_cache = NULL;

/* What the current statement has pushed out of the cache. */
static TimestampTz budget_statement = 0;
static Size budget_dropped = 0;

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
			lru_cache_reset(frame_cache);
		lru_cache_set_limit(frame_cache, limit);
	}
	return limit;
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
	if (frame_cache == NULL || cache_limit() == 0)
		return NULL;
	return lru_cache_get(frame_cache, key);
}

bool
frame_cache_get(const FrameCacheKey *key, char *raw)
{
	const char *cached = frame_cache_peek(key);

	if (cached == NULL)
		return false;
	memcpy(raw, cached, key->entry.raw_length);
	return true;
}

void *
frame_cache_put(const FrameCacheKey *key, const void *bytes, Size size)
{
	Size		limit = cache_limit();
	TimestampTz statement = GetCurrentStatementStartTimestamp();
	Size		unused;

	/* a frame over a sixteenth of the cache would push out too much */
	if (size > limit / 16 || IsParallelWorker())
		return NULL;
	if (frame_cache == NULL)
		frame_cache = lru_cache_create("storage_engine frames",
									   sizeof(FrameCacheKey), limit);
	if (statement != budget_statement)
	{
		budget_statement = statement;
		budget_dropped = 0;
	}
	unused = lru_cache_unused(frame_cache);
	if (size > unused)
	{
		if (budget_dropped + (size - unused) > limit / 8)
			return NULL;
		budget_dropped += size - unused;
	}
	return lru_cache_put(frame_cache, key, bytes, size);
}
