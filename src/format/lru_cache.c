/*-------------------------------------------------------------------------
 *
 * lru_cache.c
 *	  Backend-local caches of immutable things read from disk that fetches
 *	  by row number would otherwise read again in every statement.
 *
 *	  A hash table by key over entries linked in recency order; a value is
 *	  one chunk of the cache's context, copied in whole, so that no error
 *	  can leave an entry half made, and each cache is bounded by the bytes
 *	  of its values plus a fixed charge per entry for the hash table.  The
 *	  owner decides what makes a key unique for the backend's life and
 *	  when to reset.  Used for chunk groups' chunk metadata
 *	  (catalog/chunk_cache.c), frame directories (storage.c) and loaded
 *	  compression dictionaries (stream_dict.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/ilist.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "format/lru_cache.h"

/* Follows the key in each hash table entry. */
typedef struct LruEntry
{
	dlist_node	node;			/* in recency, most recently used first */
	void	   *value;
	Size		size;			/* charged: the value and the entry */
} LruEntry;

struct LruCache
{
	const char *name;
	MemoryContext cxt;
	Size		keysize;
	Size		limit;
	Size		used;
	uint64		drops;			/* values dropped or replaced, ever */
	HTAB	   *table;
	dlist_head	recency;
};

#define ENTRY_OF(cache, hashentry) \
	((LruEntry *) ((char *) (hashentry) + MAXALIGN((cache)->keysize)))
#define HASHENTRY_OF(cache, entry) \
	((void *) ((char *) (entry) - MAXALIGN((cache)->keysize)))

/*
 * Keys are a few words of numbers (a file, blocks, offsets, checksums),
 * looked up once per value a fetch returns: mixing them a word at a time
 * takes a fifth of the instructions of hash_bytes, which was 8% of
 * SELECT * of 2,000 rows by a foreign key (K7).
 */
uint32
lru_cache_hash(const void *key, Size keysize)
{
	const unsigned char *p = key;
	uint64		h = keysize;
	Size		i;

	for (i = 0; i + sizeof(uint64) <= keysize; i += sizeof(uint64))
	{
		uint64		w;

		memcpy(&w, p + i, sizeof(uint64));
		h = (h ^ w) * UINT64CONST(0x9e3779b97f4a7c15);
		h ^= h >> 29;
	}
	for (; i < keysize; i++)
		h = (h ^ p[i]) * UINT64CONST(0x9e3779b97f4a7c15);
	/* murmur3's finalizer: every bit of the words reaches the low bits */
	h ^= h >> 33;
	h *= UINT64CONST(0xff51afd7ed558ccd);
	h ^= h >> 33;
	return (uint32) h;
}

static void
make_table(LruCache *cache)
{
	HASHCTL		ctl;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = cache->keysize;
	ctl.entrysize = MAXALIGN(cache->keysize) + sizeof(LruEntry);
	ctl.hcxt = cache->cxt;
	ctl.hash = lru_cache_hash;
	cache->table = hash_create(cache->name, 256, &ctl,
							   HASH_ELEM | HASH_FUNCTION | HASH_CONTEXT);
	dlist_init(&cache->recency);
	cache->used = 0;
}

LruCache *
lru_cache_create(const char *name, Size keysize, Size limit)
{
	MemoryContext cxt = AllocSetContextCreate(TopMemoryContext,
											  "storage_engine cache",
											  ALLOCSET_DEFAULT_SIZES);
	LruCache   *cache = MemoryContextAllocZero(cxt, sizeof(LruCache));

	/* name must outlive the cache: callers pass string constants */
	MemoryContextSetIdentifier(cxt, name);

	cache->name = name;
	cache->cxt = cxt;
	cache->keysize = keysize;
	cache->limit = limit;
	make_table(cache);
	return cache;
}

const void *
lru_cache_get(LruCache *cache, const void *key)
{
	void	   *hashentry = hash_search(cache->table, key, HASH_FIND, NULL);
	LruEntry   *entry;

	if (hashentry == NULL)
		return NULL;
	entry = ENTRY_OF(cache, hashentry);
	dlist_move_head(&cache->recency, &entry->node);
	return entry->value;
}

static void
drop_entry(LruCache *cache, LruEntry *entry)
{
	dlist_delete(&entry->node);
	cache->used -= entry->size;
	pfree(entry->value);
	cache->drops++;
	hash_search(cache->table, HASHENTRY_OF(cache, entry), HASH_REMOVE, NULL);
}

/* Drops the least recently used values until charge more bytes fit. */
static void
drop_over(LruCache *cache, Size charge)
{
	while (!dlist_is_empty(&cache->recency) &&
		   cache->used + charge > cache->limit)
		drop_entry(cache, dlist_container(LruEntry, node,
										  dlist_tail_node(&cache->recency)));
}

void *
lru_cache_put(LruCache *cache, const void *key, const void *value, Size size)
{
	Size		charge = size + MAXALIGN(cache->keysize) + sizeof(LruEntry);
	void	   *copy;
	void	   *hashentry;
	LruEntry   *entry;
	bool		found;

	drop_over(cache, charge);

	/* copied before the entry exists: an error leaves none half made */
	copy = value == NULL ? MemoryContextAllocZero(cache->cxt, Max(size, 1)) :
		MemoryContextAlloc(cache->cxt, Max(size, 1));
	if (value != NULL)
		memcpy(copy, value, size);
	/* what the value really takes: small chunks round up to a power of 2 */
	charge = GetMemoryChunkSpace(copy) + MAXALIGN(cache->keysize) +
		sizeof(LruEntry);
	hashentry = hash_search(cache->table, key, HASH_ENTER, &found);
	entry = ENTRY_OF(cache, hashentry);
	if (found)
	{
		/* replaced: kept through the drops above only if recently used */
		dlist_delete(&entry->node);
		cache->used -= entry->size;
		pfree(entry->value);
		cache->drops++;
	}
	entry->value = copy;
	entry->size = charge;
	dlist_push_head(&cache->recency, &entry->node);
	cache->used += charge;
	return copy;
}

void
lru_cache_remove(LruCache *cache, const void *key)
{
	void	   *hashentry = hash_search(cache->table, key, HASH_FIND, NULL);

	if (hashentry != NULL)
		drop_entry(cache, ENTRY_OF(cache, hashentry));
}

Size
lru_cache_unused(const LruCache *cache)
{
	return cache->used < cache->limit ? cache->limit - cache->used : 0;
}

uint64
lru_cache_drops(const LruCache *cache)
{
	return cache->drops;
}

Size
lru_cache_used(const LruCache *cache)
{
	return cache->used;
}

void
lru_cache_set_limit(LruCache *cache, Size limit)
{
	cache->limit = limit;
}

void
lru_cache_trim(LruCache *cache)
{
	drop_over(cache, 0);
}

void
lru_cache_reset(LruCache *cache)
{
	while (!dlist_is_empty(&cache->recency))
		drop_entry(cache, dlist_container(LruEntry, node,
										  dlist_head_node(&cache->recency)));
}

void
lru_cache_visit(LruCache *cache, LruCacheVisit visit, void *arg)
{
	dlist_iter	it;

	dlist_foreach(it, &cache->recency)
	{
		LruEntry   *entry = dlist_container(LruEntry, node, it.cur);

		visit(HASHENTRY_OF(cache, entry), entry->value, arg);
	}
}
