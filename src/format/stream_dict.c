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
 *	  A cache entry is found by the relation's file, stream and part, and
 *	  used only while the dictionary header on disk (offset, length,
 *	  checksum) is still the one it was loaded from: relation files are
 *	  reused after a DROP, and stream numbers restart in a new storage, so
 *	  the key alone could name another table's dictionary.  The header is
 *	  one read from shared buffers per lookup.
 *
 *	  The cache is bounded (STREAM_DICT_CACHE_ENTRIES, about 45 kB each)
 *	  and emptied whole when full: simple, and enough for a cache whose
 *	  misses cost microseconds.  Memory: its own context under
 *	  TopMemoryContext.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "codec/frames.h"
#include "format/storage.h"
#include "format/stream_dict.h"

#define STREAM_DICT_CACHE_ENTRIES	128

typedef struct DictKey
{
	CompatRelFileLocator file;
	uint64		stream_num;
	int			part;
} DictKey;

typedef struct DictEntry
{
	DictKey		key;
	uint64		offset;			/* what it was loaded from */
	uint32		length;
	uint32		checksum;
	const CodecDict *dict;
} DictEntry;

static MemoryContext dict_cxt = NULL;
static HTAB *dict_cache = NULL;

static void
create_cache(void)
{
	HASHCTL		ctl;

	if (dict_cxt == NULL)
		dict_cxt = AllocSetContextCreate(TopMemoryContext,
										 "storage_engine dictionaries",
										 ALLOCSET_DEFAULT_SIZES);
	else
		MemoryContextReset(dict_cxt);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(DictKey);
	ctl.entrysize = sizeof(DictEntry);
	ctl.hcxt = dict_cxt;
	dict_cache = hash_create("storage_engine dictionaries", 32, &ctl,
							 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

/*
 * Reads and checks the dictionary bytes after its header, then prepares a
 * copy of them in dict_cxt.  Reading can raise an error (a damaged page):
 * it is done in the caller's memory, so that nothing is left behind in the
 * cache's; preparing cannot, and a dictionary the codec refuses is freed.
 */
static const CodecDict *
load_dict(const StreamDictRef *ref, const Codec *codec, uint32 length,
		  uint32 checksum, const char **problem)
{
	char	   *read = palloc(length);
	char	   *bytes;
	void	   *workspace;
	size_t		workspace_size;
	const CodecDict *dict;

	storage_read_stream(ref->rel, ref->first_block,
						ref->offset + FRAMES_DICT_HEADER_SIZE, read, length,
						ref->strategy, ref->context);
	*problem = frames_dict_check(read, length, checksum);
	workspace_size = codec->dict_workspace((int32) length, false, 0);
	if (*problem == NULL && (workspace_size == 0 || workspace_size > MaxAllocSize))
		*problem = "dictionary cannot be loaded";
	if (*problem != NULL)
	{
		pfree(read);
		return NULL;
	}
	bytes = MemoryContextAlloc(dict_cxt, length);
	memcpy(bytes, read, length);
	pfree(read);
	workspace = MemoryContextAlloc(dict_cxt, workspace_size);
	dict = codec->dict_load(bytes, (int32) length, false, 0, workspace,
							workspace_size);
	if (dict == NULL)
	{
		*problem = "dictionary cannot be loaded";
		pfree(workspace);
		pfree(bytes);
	}
	return dict;
}

const CodecDict *
stream_dict_get(const StreamDictRef *ref, const Codec *codec,
				const char **problem)
{
	char		header[FRAMES_DICT_HEADER_SIZE];
	uint32		length;
	uint32		checksum;
	DictKey		key;
	DictEntry  *entry;
	bool		found;
	const CodecDict *dict;

	*problem = NULL;
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
						ref->strategy, ref->context);
	*problem = frames_dict_header(header, ref->stream_length - ref->offset,
								  &length, &checksum);
	if (*problem != NULL)
		return NULL;

	if (dict_cache == NULL)
		create_cache();
	memset(&key, 0, sizeof(key));
	key.file = RelationPhysicalId(ref->rel);
	key.stream_num = ref->stream_num;
	key.part = ref->part;
	entry = hash_search(dict_cache, &key, HASH_FIND, NULL);
	if (entry != NULL && entry->offset == ref->offset &&
		entry->length == length && entry->checksum == checksum)
		return entry->dict;

	if (hash_get_num_entries(dict_cache) >= STREAM_DICT_CACHE_ENTRIES)
		create_cache();
	dict = load_dict(ref, codec, length, checksum, problem);
	if (dict == NULL)
		return NULL;

	/* entered only once loaded: a failure leaves no half-made entry */
	entry = hash_search(dict_cache, &key, HASH_ENTER, &found);
	entry->offset = ref->offset;
	entry->length = length;
	entry->checksum = checksum;
	entry->dict = dict;
	return dict;
}
