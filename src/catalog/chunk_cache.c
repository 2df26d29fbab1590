/*-------------------------------------------------------------------------
 *
 * chunk_cache.c
 *	  Backend-local cache of the chunk metadata of colcompress chunk groups.
 *
 *	  A fetch by row number needs its chunk group's engine.chunk rows (where
 *	  each column's bytes are, their codec, lengths and checksum).  Reading
 *	  them is an index scan returning one row per column: for a lookup of a
 *	  row or a few columns, more than decoding the values (a third of an
 *	  index lookup of one column on the benchmark's events table), and done
 *	  again by every statement.  So fetches keep them for the backend's life.
 *
 *	  Why an entry never goes stale: engine.chunk rows are inserted with
 *	  their stripe and only ever deleted with it, never updated; a stripe's
 *	  number comes from its storage's metapage counter, which an aborted
 *	  write does not move back, and a storage's id from a sequence, so
 *	  (storage, stripe, group) names one set of rows for as long as the
 *	  metadata tables exist.  Whoever asks holds the stripe's metadata as its
 *	  snapshot sees it, and the chunks of a stripe are visible exactly when
 *	  the stripe is.  Only a new extension (DROP and CREATE EXTENSION, which
 *	  restarts the sequence) can reuse a key: the cache is emptied when the
 *	  relation cache entry of engine.chunk is invalidated, as dropping the
 *	  table does in every backend.
 *
 *	  The cache holds at most CHUNK_CACHE_BYTES (about 4,500 chunk groups of
 *	  a table of 17 columns, 45 million rows) and drops the least recently
 *	  used groups to make room (format/lru_cache.c).  Zone bounds are not
 *	  kept: fetches do not use them, and text bounds can be long.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "utils/inval.h"
#include "utils/memutils.h"

#include "catalog/chunk_cache.h"
#include "catalog/meta_tables.h"
#include "format/lru_cache.h"

#define CHUNK_CACHE_BYTES	(4 * 1024 * 1024)

typedef struct ChunkCacheKey
{
	uint64		storage_id;
	uint64		stripe_num;
	int32		group;
	int32		column_count;
} ChunkCacheKey;

static LruCache *cache = NULL;
static Oid	chunk_relid = InvalidOid;	/* engine.chunk of the cached rows */

static void
relcache_changed(Datum arg, Oid relid)
{
	if (OidIsValid(chunk_relid) && (relid == InvalidOid || relid == chunk_relid))
	{
		lru_cache_reset(cache);
		chunk_relid = InvalidOid;
	}
}

static void
make_key(ChunkCacheKey *key, const StripeMeta *stripe, int group)
{
	memset(key, 0, sizeof(*key));
	key->storage_id = stripe->storage_id;
	key->stripe_num = stripe->stripe_num;
	key->group = group;
	key->column_count = stripe->column_count;
}

const ChunkMeta *
chunk_cache_get(const StripeMeta *stripe, int group)
{
	ChunkCacheKey key;

	if (!OidIsValid(chunk_relid))
		return NULL;
	make_key(&key, stripe, group);
	return lru_cache_get(cache, &key);
}

void
chunk_cache_put(const StripeMeta *stripe, int group, const ChunkMeta *chunks)
{
	Size		size = sizeof(ChunkMeta) * Max(stripe->column_count, 1);
	ChunkCacheKey key;
	ChunkMeta  *copy;
	int			a;

	if (cache == NULL)
	{
		cache = lru_cache_create("storage_engine chunk metadata",
								 sizeof(ChunkCacheKey), CHUNK_CACHE_BYTES);
		CacheRegisterRelcacheCallback(relcache_changed, (Datum) 0);
	}
	if (!OidIsValid(chunk_relid))
	{
		/* looked up first: it may take invalidations, which empty the cache */
		Oid			relid = meta_table_relid("chunk");

		lru_cache_reset(cache);
		chunk_relid = relid;
	}

	copy = palloc(size);
	for (a = 0; a < stripe->column_count; a++)
	{
		copy[a] = chunks[a];
		copy[a].min_value = NULL;
		copy[a].max_value = NULL;
	}
	make_key(&key, stripe, group);
	lru_cache_put(cache, &key, copy, size);
	pfree(copy);
}
