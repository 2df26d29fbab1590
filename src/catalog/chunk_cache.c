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
 *	  used groups to make room.  Zone bounds are not kept: fetches do not
 *	  use them, and text bounds can be long.  Memory: its own context under
 *	  TopMemoryContext, one chunk per group.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "lib/ilist.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/memutils.h"

#include "catalog/chunk_cache.h"
#include "catalog/meta_tables.h"

#define CHUNK_CACHE_BYTES	(4 * 1024 * 1024)

typedef struct ChunkCacheKey
{
	uint64		storage_id;
	uint64		stripe_num;
	int32		group;
	int32		column_count;
} ChunkCacheKey;

typedef struct ChunkCacheEntry
{
	ChunkCacheKey key;
	ChunkMeta  *chunks;			/* [column_count], in cache_cxt */
	dlist_node	lru;			/* in lru, most recently used first */
} ChunkCacheEntry;

static MemoryContext cache_cxt = NULL;
static HTAB *cache = NULL;
static dlist_head lru = DLIST_STATIC_INIT(lru);
static Size cached_bytes = 0;
static Oid	chunk_relid = InvalidOid;	/* engine.chunk of the cached rows */
static bool callback_registered = false;

static Size
entry_size(int column_count)
{
	return sizeof(ChunkCacheEntry) + sizeof(ChunkMeta) * column_count;
}

static void
forget_all(void)
{
	if (cache_cxt != NULL)
		MemoryContextDelete(cache_cxt);
	cache_cxt = NULL;
	cache = NULL;
	dlist_init(&lru);
	cached_bytes = 0;
	chunk_relid = InvalidOid;
}

static void
relcache_changed(Datum arg, Oid relid)
{
	if (cache != NULL && (relid == InvalidOid || relid == chunk_relid))
		forget_all();
}

static void
create_cache(void)
{
	HASHCTL		ctl;

	if (!callback_registered)
	{
		CacheRegisterRelcacheCallback(relcache_changed, (Datum) 0);
		callback_registered = true;
	}
	cache_cxt = AllocSetContextCreate(TopMemoryContext,
									  "storage_engine chunk metadata",
									  ALLOCSET_DEFAULT_SIZES);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(ChunkCacheKey);
	ctl.entrysize = sizeof(ChunkCacheEntry);
	ctl.hcxt = cache_cxt;
	cache = hash_create("storage_engine chunk metadata", 256, &ctl,
						HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
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
	ChunkCacheEntry *entry;

	if (cache == NULL)
		return NULL;
	make_key(&key, stripe, group);
	entry = hash_search(cache, &key, HASH_FIND, NULL);
	if (entry == NULL)
		return NULL;
	dlist_move_head(&lru, &entry->lru);
	return entry->chunks;
}

void
chunk_cache_put(const StripeMeta *stripe, int group, const ChunkMeta *chunks)
{
	Size		size = entry_size(stripe->column_count);
	ChunkCacheKey key;
	ChunkCacheEntry *entry;
	ChunkMeta  *copy;
	bool		found;
	int			a;

	if (size > CHUNK_CACHE_BYTES)
		return;
	if (cache == NULL)
	{
		/* looked up first: it may take invalidations, which empty the cache */
		Oid			relid = meta_table_relid("chunk");

		create_cache();
		chunk_relid = relid;
	}

	while (!dlist_is_empty(&lru) && cached_bytes + size > CHUNK_CACHE_BYTES)
	{
		ChunkCacheEntry *old = dlist_container(ChunkCacheEntry, lru,
											   dlist_tail_node(&lru));

		dlist_delete(&old->lru);
		cached_bytes -= entry_size(old->key.column_count);
		pfree(old->chunks);
		hash_search(cache, &old->key, HASH_REMOVE, NULL);
	}

	/* filled before the entry exists, so that no error leaves one half made */
	copy = MemoryContextAlloc(cache_cxt,
							  sizeof(ChunkMeta) * Max(stripe->column_count, 1));
	for (a = 0; a < stripe->column_count; a++)
	{
		copy[a] = chunks[a];
		copy[a].min_value = NULL;
		copy[a].max_value = NULL;
	}
	make_key(&key, stripe, group);
	entry = hash_search(cache, &key, HASH_ENTER, &found);
	if (found)
	{
		pfree(copy);
		dlist_move_head(&lru, &entry->lru);
		return;
	}
	entry->chunks = copy;
	dlist_push_head(&lru, &entry->lru);
	cached_bytes += size;
}
