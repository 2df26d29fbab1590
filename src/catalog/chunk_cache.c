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
 *	  Scans read a stripe's chunks whole, with their zone bounds and the
 *	  chunk groups' row counts: 1,700 metadata rows a stripe of the
 *	  benchmark's events, 4% of a query summing a column of it.  They are
 *	  kept too, a stripe in one piece, in a cache of their own (a scan of a
 *	  table larger than it would otherwise push out what lookups keep),
 *	  for scans under MVCC snapshots, which see the chunks of every stripe
 *	  they are given.  The same keys name the same rows, so the same
 *	  invalidation empties both.
 *
 *	  A parallel worker is a new backend, with nothing kept: the leader
 *	  hands it the stripes of the scanned storage it keeps, through the
 *	  scan's shared memory (chunk_cache_export, chunk_cache_import), so that
 *	  the worker does not spend its first milliseconds reading them again.
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
/* about 60 stripes of the benchmark's events, 9 million rows */
#define STRIPE_CACHE_BYTES	(8 * 1024 * 1024)
/* the group number of a whole stripe's entry */
#define WHOLE_STRIPE		(-1)
/* most a leader hands its workers */
#define EXPORT_BYTES		(STRIPE_CACHE_BYTES / 2)

typedef struct ChunkCacheKey
{
	uint64		storage_id;
	uint64		stripe_num;
	int32		group;
	int32		column_count;
} ChunkCacheKey;

/*
 * A whole stripe's entry: this header, the chunk groups' row counts, the
 * chunks with their bounds' places (offset + 1 into the bounds, 0 for
 * none) in place of pointers, then the bounds, each INTALIGNed.
 */
typedef struct StripeChunks
{
	int32		ngroups;
	int32		nchunks;
	Size		bounds_size;
} StripeChunks;

static LruCache *cache = NULL;
static LruCache *stripes = NULL;
static Oid	chunk_relid = InvalidOid;	/* engine.chunk of the cached rows */

static void
relcache_changed(Datum arg, Oid relid)
{
	if (OidIsValid(chunk_relid) && (relid == InvalidOid || relid == chunk_relid))
	{
		lru_cache_reset(cache);
		lru_cache_reset(stripes);
		chunk_relid = InvalidOid;
	}
}

/* Makes the caches, empty, for the current engine.chunk. */
static void
ready_caches(void)
{
	if (cache == NULL)
	{
		cache = lru_cache_create("storage_engine chunk metadata",
								 sizeof(ChunkCacheKey), CHUNK_CACHE_BYTES);
		stripes = lru_cache_create("storage_engine stripe chunk metadata",
								   sizeof(ChunkCacheKey), STRIPE_CACHE_BYTES);
		CacheRegisterRelcacheCallback(relcache_changed, (Datum) 0);
	}
	if (!OidIsValid(chunk_relid))
	{
		/* looked up first: it may take invalidations, which empty the caches */
		Oid			relid = meta_table_relid("chunk");

		lru_cache_reset(cache);
		lru_cache_reset(stripes);
		chunk_relid = relid;
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

	ready_caches();
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

/*
 * A kept stripe is one piece: the StripeChunks head with the chunk groups'
 * row counts, then the chunks, then their bounds.  Sizes of the first two.
 */
static Size
stripe_head_size(int ngroups)
{
	return MAXALIGN(sizeof(StripeChunks) + sizeof(uint32) * ngroups);
}

static Size
stripe_chunks_size(int nchunks)
{
	return MAXALIGN(sizeof(ChunkMeta) * Max(nchunks, 1));
}

/*
 * Handed to workers: this header, then each entry's key, its length and
 * its bytes, each MAXALIGNed.
 */
typedef struct ExportHeader
{
	uint32		count;
} ExportHeader;

/* Walks the stripes kept of one storage, writing them when dest is set. */
typedef struct ExportWalk
{
	uint64		storage_id;
	char	   *dest;
	Size		room;
	Size		used;
	uint32		count;
} ExportWalk;

static Size
stripe_entry_size(const StripeChunks *e)
{
	return stripe_head_size(e->ngroups) + stripe_chunks_size(e->nchunks) +
		e->bounds_size;
}

static void
export_entry(const void *key, const void *value, void *arg)
{
	const ChunkCacheKey *k = key;
	ExportWalk *w = arg;
	Size		len = stripe_entry_size(value);
	Size		take = MAXALIGN(sizeof(ChunkCacheKey)) + MAXALIGN(sizeof(Size)) +
		MAXALIGN(len);

	if (k->storage_id != w->storage_id || w->used + take > w->room)
		return;
	if (w->dest != NULL)
	{
		char	   *at = w->dest + w->used;

		memcpy(at, k, sizeof(ChunkCacheKey));
		at += MAXALIGN(sizeof(ChunkCacheKey));
		memcpy(at, &len, sizeof(Size));
		at += MAXALIGN(sizeof(Size));
		memcpy(at, value, len);
	}
	w->used += take;
	w->count++;
}

Size
chunk_cache_export_size(uint64 storage_id)
{
	ExportWalk	w = {0};

	if (!OidIsValid(chunk_relid))
		return 0;
	w.storage_id = storage_id;
	w.used = MAXALIGN(sizeof(ExportHeader));
	w.room = EXPORT_BYTES;
	lru_cache_visit(stripes, export_entry, &w);
	return w.count == 0 ? 0 : w.used;
}

void
chunk_cache_export(uint64 storage_id, void *dest, Size size)
{
	ExportWalk	w = {0};

	Assert(size >= MAXALIGN(sizeof(ExportHeader)));
	w.storage_id = storage_id;
	w.dest = dest;
	w.used = MAXALIGN(sizeof(ExportHeader));
	w.room = size;
	/* what an invalidation emptied since the size was taken is not there */
	if (OidIsValid(chunk_relid))
		lru_cache_visit(stripes, export_entry, &w);
	((ExportHeader *) dest)->count = w.count;
}

void
chunk_cache_import(const void *src)
{
	const char *at = (const char *) src + MAXALIGN(sizeof(ExportHeader));
	uint32		count = ((const ExportHeader *) src)->count;
	uint32		i;

	ready_caches();
	for (i = 0; i < count; i++)
	{
		const ChunkCacheKey *key = (const ChunkCacheKey *) at;
		Size		len;

		at += MAXALIGN(sizeof(ChunkCacheKey));
		memcpy(&len, at, sizeof(Size));
		at += MAXALIGN(sizeof(Size));
		lru_cache_put(stripes, key, at, len);
		at += MAXALIGN(len);
	}
}

static Size
bound_size(const bytea *b)
{
	return b == NULL ? 0 : INTALIGN(VARSIZE(b));
}

ChunkMeta *
chunk_cache_get_stripe(const StripeMeta *stripe, uint32 *group_rows)
{
	ChunkCacheKey key;
	const StripeChunks *e;
	const char *kept_chunks;
	ChunkMeta  *chunks;
	char	   *bounds;
	Size		chunks_size;
	int			i;

	if (!OidIsValid(chunk_relid))
		return NULL;
	make_key(&key, stripe, WHOLE_STRIPE);
	e = lru_cache_get(stripes, &key);
	/* the same key is the same stripe; the caller sized group_rows by it */
	if (e == NULL || e->ngroups != stripe->chunk_group_count)
		return NULL;
	memcpy(group_rows, e + 1, sizeof(uint32) * e->ngroups);
	kept_chunks = (const char *) e + stripe_head_size(e->ngroups);
	chunks_size = stripe_chunks_size(e->nchunks);

	/* the caller's copy, in one piece: its memory is reset whole */
	chunks = palloc(chunks_size + e->bounds_size);
	memcpy(chunks, kept_chunks, chunks_size + e->bounds_size);
	bounds = (char *) chunks + chunks_size;
	for (i = 0; i < e->nchunks; i++)
	{
		uintptr_t	min_at = (uintptr_t) chunks[i].min_value;
		uintptr_t	max_at = (uintptr_t) chunks[i].max_value;

		chunks[i].min_value = min_at == 0 ? NULL : (bytea *) (bounds + min_at - 1);
		chunks[i].max_value = max_at == 0 ? NULL : (bytea *) (bounds + max_at - 1);
	}
	return chunks;
}

void
chunk_cache_put_stripe(const StripeMeta *stripe, const uint32 *group_rows,
					   const ChunkMeta *chunks)
{
	int			ngroups = stripe->chunk_group_count;
	int			nchunks = ngroups * stripe->column_count;
	Size		head_size = stripe_head_size(ngroups);
	Size		chunks_size = stripe_chunks_size(nchunks);
	Size		bounds_size = 0;
	ChunkCacheKey key;
	StripeChunks *e;
	ChunkMeta  *kept;
	char	   *bounds;
	Size		at = 0;
	int			i;

	for (i = 0; i < nchunks; i++)
		bounds_size += bound_size(chunks[i].min_value) +
			bound_size(chunks[i].max_value);
	/* a stripe of long text bounds would push out most of the others */
	if (head_size + chunks_size + bounds_size > STRIPE_CACHE_BYTES / 8)
		return;
	ready_caches();
	make_key(&key, stripe, WHOLE_STRIPE);
	e = lru_cache_put(stripes, &key, NULL, head_size + chunks_size + bounds_size);
	e->ngroups = ngroups;
	e->nchunks = nchunks;
	e->bounds_size = bounds_size;
	memcpy(e + 1, group_rows, sizeof(uint32) * ngroups);
	kept = (ChunkMeta *) ((char *) e + head_size);
	bounds = (char *) kept + chunks_size;
	for (i = 0; i < nchunks; i++)
	{
		const bytea *b[2] = {chunks[i].min_value, chunks[i].max_value};
		bytea	   *place[2] = {NULL, NULL};
		int			j;

		for (j = 0; j < 2; j++)
			if (b[j] != NULL)
			{
				memcpy(bounds + at, b[j], VARSIZE(b[j]));
				place[j] = (bytea *) (uintptr_t) (at + 1);
				at += bound_size(b[j]);
			}
		kept[i] = chunks[i];
		kept[i].min_value = place[0];
		kept[i].max_value = place[1];
	}
}
