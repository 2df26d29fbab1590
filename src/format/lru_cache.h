/*-------------------------------------------------------------------------
 *
 * lru_cache.h
 *	  A backend-local cache of flat values by fixed-size keys, bounded in
 *	  bytes, dropping the least recently used values (format/lru_cache.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_LRU_CACHE_H
#define STORAGE_ENGINE_LRU_CACHE_H

typedef struct LruCache LruCache;

/*
 * A cache of at most limit bytes of values (and their keys' bookkeeping),
 * in its own context under TopMemoryContext, living as long as the backend.
 */
extern LruCache *lru_cache_create(const char *name, Size keysize, Size limit);

/* The hash of a key the caches use, for a caller's own table of keys. */
extern uint32 lru_cache_hash(const void *key, Size keysize);

/*
 * The value kept for key (keysize bytes, padding zeroed) or NULL; it stays
 * valid until the next lru_cache_put or lru_cache_reset of the cache.
 */
extern const void *lru_cache_get(LruCache *cache, const void *key);

/*
 * Keeps a copy of the size bytes at value (or, with value NULL, size bytes
 * zeroed) for key, replacing any, and returns the copy: the caller may
 * finish it in place.  Less recently used values are dropped to make room;
 * the new one is kept even when it alone exceeds the limit, until the next
 * put, so that what a caller was just given stays valid.
 */
extern void *lru_cache_put(LruCache *cache, const void *key,
						   const void *value, Size size);

/*
 * Calls visit for each key and value, most recently used first, without
 * making them more recent; visit must not change the cache.
 */
typedef void (*LruCacheVisit) (const void *key, const void *value, void *arg);
extern void lru_cache_visit(LruCache *cache, LruCacheVisit visit, void *arg);

/* Forgets key's value, if any. */
extern void lru_cache_remove(LruCache *cache, const void *key);

/* Bytes a put may take before it drops values (0 when over the limit). */
extern Size lru_cache_unused(const LruCache *cache);

/* Bytes the values take (with their keys' bookkeeping). */
extern Size lru_cache_used(const LruCache *cache);

/*
 * Values dropped or replaced since the cache was made: while it stays the
 * same, a value lru_cache_get returned is still there, at the same place.
 */
extern uint64 lru_cache_drops(const LruCache *cache);

/* Changes the limit, effective at the next put or trim. */
extern void lru_cache_set_limit(LruCache *cache, Size limit);

/* Drops the least recently used values until the cache is within its limit. */
extern void lru_cache_trim(LruCache *cache);

/* Forgets every value. */
extern void lru_cache_reset(LruCache *cache);

#endif							/* STORAGE_ENGINE_LRU_CACHE_H */
