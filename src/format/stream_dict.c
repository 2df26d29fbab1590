/*-------------------------------------------------------------------------
 *
 * stream_dict.c
 *	  Compression dictionaries stored in streams, read side.
 *
 *	  A colcompress stripe may keep one dictionary per column
 *	  (engine.stripe.attr_dict_offset), a rowcompress batch one for its
 *	  rows (engine.batch.dict_offset), shared by the frames of that column
 *	  or batch so that they can be shorter (codec/frames.h).  Reading one
 *	  means its bytes, their checksum and the codec's preparation of its
 *	  tables: a few microseconds, as much as decoding a short frame, so
 *	  loaded dictionaries are kept for the backend's life in one cache
 *	  shared by scans and fetches (an index lookup of a few rows would
 *	  otherwise load a dictionary per row).
 *
 *	  A cache entry is named by the relation's file, stream and part and
 *	  the dictionary header on disk (offset, length, checksum) it was
 *	  loaded from: relation files are reused after a DROP, and stream
 *	  numbers restart in a new storage, so the place alone could name
 *	  another table's dictionary.  The header is one read from shared
 *	  buffers per lookup, but for a reader that keeps a hint (a fetch by
 *	  TID, which looks a dictionary up for every row: a sixth of its
 *	  buffer reads on the benchmark's events table) and asks again for
 *	  the same place in the same file.
 *
 *	  The cache holds at most storage_engine.dictionary_cache_size bytes
 *	  (a dictionary of 16 kB takes about 45 kB prepared) and drops the
 *	  least recently used dictionaries to make room.  It was first emptied
 *	  whole when full: a session reading two tables whose dictionaries
 *	  together did not fit (the benchmark's colcompress and rowcompress
 *	  tables, 119 and 100 of them) then loaded a dictionary at nearly every
 *	  lookup.  A dictionary handed out stays valid until the next call:
 *	  the entry just used is never the one dropped (format/lru_cache.c).
 *	  Memory: the cache's context under TopMemoryContext, each dictionary
 *	  one chunk.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "utils/memutils.h"
#include "utils/rel.h"

#include "codec/frames.h"
#include "format/lru_cache.h"
#include "format/storage.h"
#include "format/stream_dict.h"
#include "guc.h"

/* A cached dictionary: this header, the bytes, then the codec's tables. */
typedef struct DictValue
{
	const CodecDict *dict;		/* in the workspace, referring to the bytes */
} DictValue;

#define DICT_BYTES_AT		MAXALIGN(sizeof(DictValue))
#define DICT_WORKSPACE_AT(length)	(DICT_BYTES_AT + MAXALIGN(length))

static LruCache *dict_cache = NULL;

/*
 * Reads and checks the dictionary bytes after its header, then keeps a copy
 * in the cache under key with the codec's tables prepared.  Reading can
 * raise an error (a damaged page): it is done in the caller's memory, so
 * that nothing is left behind in the cache's; preparing cannot, and a
 * dictionary the codec refuses is dropped.
 */
static const CodecDict *
load_dict(const StreamDictRef *ref, const Codec *codec,
		  const StreamDictKey *key, const char **problem)
{
	uint32		length = key->length;
	char	   *read = palloc(length);
	size_t		workspace_size;
	char	   *value;
	DictValue  *header;

	storage_read_stream(ref->rel, ref->first_block,
						ref->offset + FRAMES_DICT_HEADER_SIZE, read, length,
						ref->strategy, ref->place);
	*problem = frames_dict_check(read, length, key->checksum);
	workspace_size = codec->dict_workspace((int32) length, false, 0);
	if (*problem == NULL &&
		(workspace_size == 0 ||
		 workspace_size > MaxAllocSize - DICT_WORKSPACE_AT(length)))
		*problem = "dictionary cannot be loaded";
	if (*problem != NULL)
	{
		pfree(read);
		return NULL;
	}
	value = lru_cache_put(dict_cache, key, NULL,
						  DICT_WORKSPACE_AT(length) + workspace_size);
	memcpy(value + DICT_BYTES_AT, read, length);
	pfree(read);
	header = (DictValue *) value;
	header->dict = codec->dict_load(value + DICT_BYTES_AT, (int32) length,
									false, 0, value + DICT_WORKSPACE_AT(length),
									workspace_size);
	if (header->dict == NULL)
	{
		*problem = "dictionary cannot be loaded";
		lru_cache_remove(dict_cache, key);
		return NULL;
	}
	return header->dict;
}

/* Does hint name the dictionary at ref? */
static bool
hint_matches(const StreamDictHint *hint, const StreamDictRef *ref)
{
	CompatRelFileLocator file = RelationPhysicalId(ref->rel);

	return hint->valid &&
		memcmp(&hint->key.file, &file, sizeof(file)) == 0 &&
		hint->key.part == ref->part &&
		hint->key.stream_num == ref->stream_num &&
		hint->key.offset == ref->offset;
}

const CodecDict *
stream_dict_get(const StreamDictRef *ref, const Codec *codec,
				StreamDictHint *hint, const char **problem)
{
	char		header[FRAMES_DICT_HEADER_SIZE];
	uint32		length;
	uint32		checksum;
	StreamDictKey key;
	const DictValue *cached;
	const CodecDict *dict;

	*problem = NULL;
	if (hint != NULL && dict_cache != NULL && hint_matches(hint, ref))
	{
		cached = lru_cache_get(dict_cache, &hint->key);
		if (cached != NULL)
			return cached->dict;
	}
	if (codec->dict_load == NULL)
	{
		*problem = "dictionary for a codec that has none";
		return NULL;
	}
	if (ref->offset >= ref->stream_length)
	{
		*problem = "dictionary lies outside its stream";
		return NULL;
	}
	storage_read_stream(ref->rel, ref->first_block, ref->offset, header,
						Min(sizeof(header), ref->stream_length - ref->offset),
						ref->strategy, ref->place);
	*problem = frames_dict_header(header, ref->stream_length - ref->offset,
								  &length, &checksum);
	if (*problem != NULL)
		return NULL;

	if (dict_cache == NULL)
		dict_cache = lru_cache_create("storage_engine dictionaries",
									  sizeof(StreamDictKey), 0);
	lru_cache_set_limit(dict_cache,
						(Size) storage_engine_dictionary_cache_size * 1024);
	memset(&key, 0, sizeof(key));
	key.file = RelationPhysicalId(ref->rel);
	key.part = ref->part;
	key.stream_num = ref->stream_num;
	key.offset = ref->offset;
	key.length = length;
	key.checksum = checksum;
	cached = lru_cache_get(dict_cache, &key);
	dict = cached != NULL ? cached->dict : load_dict(ref, codec, &key, problem);
	if (hint != NULL)
	{
		hint->valid = dict != NULL;
		hint->key = key;
	}
	return dict;
}
