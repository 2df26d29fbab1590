/*-------------------------------------------------------------------------
 *
 * col_dict.c
 *	  Compression dictionaries of colcompress stripes, read side.
 *
 *	  A stripe may keep one dictionary per column (attr_dict_offset in
 *	  engine.stripe), shared by every frame of that column in the stripe,
 *	  which lets frames be short (codec/frames.h).  Reading one means its
 *	  bytes, their checksum and the codec's preparation of its tables: done
 *	  once per reader or fetch, not per frame, through this cache.  A fetch
 *	  by TID jumps between stripes, so the cache holds the dictionaries of
 *	  several stripes; it is bounded (COL_DICT_CACHE_ENTRIES, about 50 kB
 *	  each) and emptied whole when full, which is simple and enough for a
 *	  cache whose misses cost a few microseconds.
 *
 *	  Memory: everything in the cache's own context, a child of the
 *	  reader's or fetch's.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "colstore/col_chunk.h"
#include "colstore/col_dict.h"
#include "format/storage.h"

#define COL_DICT_CACHE_ENTRIES	256

typedef struct DictKey
{
	uint64		stripe_num;
	int			attnum;
} DictKey;

typedef struct DictEntry
{
	DictKey		key;
	const CodecDict *dict;
} DictEntry;

struct ColDictCache
{
	MemoryContext cxt;
	HTAB	   *entries;
};

static void
create_table(ColDictCache *cache)
{
	HASHCTL		ctl;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(DictKey);
	ctl.entrysize = sizeof(DictEntry);
	ctl.hcxt = cache->cxt;
	cache->entries = hash_create("colcompress dictionaries", 32, &ctl,
								 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

ColDictCache *
col_dict_cache_create(MemoryContext parent)
{
	ColDictCache *cache = MemoryContextAlloc(parent, sizeof(ColDictCache));

	cache->cxt = AllocSetContextCreate(parent, "colcompress dictionaries",
									   ALLOCSET_DEFAULT_SIZES);
	create_table(cache);
	return cache;
}

void
col_dict_cache_destroy(ColDictCache *cache)
{
	MemoryContextDelete(cache->cxt);
	pfree(cache);
}

/* Reads, checks and prepares the dictionary ref's column keeps in its stripe. */
static const CodecDict *
load_dict(const ColChunkRef *ref, const Codec *codec, uint64 offset)
{
	const StripeMeta *s = ref->stripe;
	char		header[FRAMES_DICT_HEADER_SIZE];
	char		context[128];
	uint32		length;
	uint32		checksum;
	char	   *bytes;
	size_t		workspace_size;
	const CodecDict *dict;
	const char *problem;

	if (codec->dict_load == NULL)
		col_chunk_corrupted(ref, "dictionary for a codec that has none");
	if (offset >= s->data_length)
		col_chunk_corrupted(ref, "dictionary lies outside its stripe");
	snprintf(context, sizeof(context), "stripe " UINT64_FORMAT ", column \"%s\"",
			 s->stripe_num, NameStr(ref->attr->attname));
	storage_read_stream(ref->rel, s->first_block, offset, header,
						Min(sizeof(header), s->data_length - offset),
						ref->strategy, context);
	problem = frames_dict_header(header, s->data_length - offset, &length,
								 &checksum);
	if (problem != NULL)
		col_chunk_corrupted(ref, problem);

	bytes = palloc(length);
	storage_read_stream(ref->rel, s->first_block,
						offset + FRAMES_DICT_HEADER_SIZE, bytes, length,
						ref->strategy, context);
	problem = frames_dict_check(bytes, length, checksum);
	if (problem != NULL)
		col_chunk_corrupted(ref, problem);

	workspace_size = codec->dict_workspace((int32) length, false, 0);
	if (workspace_size == 0 || workspace_size > MaxAllocSize)
		col_chunk_corrupted(ref, "dictionary cannot be loaded");
	dict = codec->dict_load(bytes, (int32) length, false, 0,
							palloc(workspace_size), workspace_size);
	if (dict == NULL)
		col_chunk_corrupted(ref, "dictionary cannot be loaded");
	return dict;
}

const CodecDict *
col_dict_for(ColDictCache *cache, const ColChunkRef *ref, const Codec *codec)
{
	int			a = ref->attr->attnum - 1;
	uint64		offset;
	DictKey		key;
	DictEntry  *entry;
	bool		found;
	MemoryContext old;

	if (a < 0 || a >= ref->stripe->column_count)
		return NULL;
	offset = ref->stripe->attr_dict_offset[a];
	if (offset == STRIPE_NO_DICT)
		return NULL;

	memset(&key, 0, sizeof(key));
	key.stripe_num = ref->stripe->stripe_num;
	key.attnum = ref->attr->attnum;
	entry = hash_search(cache->entries, &key, HASH_FIND, NULL);
	if (entry != NULL)
		return entry->dict;

	if (hash_get_num_entries(cache->entries) >= COL_DICT_CACHE_ENTRIES)
	{
		MemoryContextReset(cache->cxt);
		create_table(cache);
	}
	old = MemoryContextSwitchTo(cache->cxt);
	{
		const CodecDict *dict = load_dict(ref, codec, offset);

		entry = hash_search(cache->entries, &key, HASH_ENTER, &found);
		entry->dict = dict;
	}
	MemoryContextSwitchTo(old);
	return entry->dict;
}
