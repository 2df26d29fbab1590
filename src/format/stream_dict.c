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
 *	  The cache holds at most storage_engine.dictionary_cache_size bytes
 *	  (a dictionary of 16 kB takes about 45 kB prepared) and drops the
 *	  least recently used dictionaries to make room.  It was first emptied
 *	  whole when full: a session reading two tables whose dictionaries
 *	  together did not fit (the benchmark's colcompress and rowcompress
 *	  tables, 119 and 100 of them) then loaded a dictionary at nearly every
 *	  lookup.  A dictionary handed out stays valid until the next call:
 *	  the entry just used is never the one dropped.  Memory: its own context
 *	  under TopMemoryContext, each dictionary in two chunks freed with it.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "lib/ilist.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "codec/frames.h"
#include "format/storage.h"
#include "format/stream_dict.h"
#include "guc.h"

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
	char	   *bytes;			/* the dictionary and the codec's tables, */
	void	   *workspace;		/* both in dict_cxt */
	Size		size;			/* their bytes */
	dlist_node	lru;			/* in lru, most recently used first */
} DictEntry;

static MemoryContext dict_cxt = NULL;
static HTAB *dict_cache = NULL;
static dlist_head lru = DLIST_STATIC_INIT(lru);
static Size cached_bytes = 0;

static void
create_cache(void)
{
	HASHCTL		ctl;

	dict_cxt = AllocSetContextCreate(TopMemoryContext,
									 "storage_engine dictionaries",
									 ALLOCSET_DEFAULT_SIZES);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(DictKey);
	ctl.entrysize = sizeof(DictEntry);
	ctl.hcxt = dict_cxt;
	dict_cache = hash_create("storage_engine dictionaries", 64, &ctl,
							 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

static void
drop_entry(DictEntry *entry)
{
	dlist_delete(&entry->lru);
	cached_bytes -= entry->size;
	pfree(entry->bytes);
	pfree(entry->workspace);
	hash_search(dict_cache, &entry->key, HASH_REMOVE, NULL);
}

/* Drops least recently used dictionaries until need more bytes fit. */
static void
make_room(Size need)
{
	Size		limit = (Size) storage_engine_dictionary_cache_size * 1024;

	while (!dlist_is_empty(&lru) && cached_bytes + need > limit)
		drop_entry(dlist_container(DictEntry, lru, dlist_tail_node(&lru)));
}

/*
 * Reads and checks the dictionary bytes after its header, then prepares a
 * copy of them in dict_cxt, into entry's dict, bytes, workspace and size.
 * Reading can raise an error (a damaged page): it is done in the caller's
 * memory, so that nothing is left behind in the cache's; preparing cannot,
 * and a dictionary the codec refuses is freed.
 */
static bool
load_dict(const StreamDictRef *ref, const Codec *codec, uint32 length,
		  uint32 checksum, DictEntry *entry, const char **problem)
{
	char	   *read = palloc(length);
	size_t		workspace_size;

	storage_read_stream(ref->rel, ref->first_block,
						ref->offset + FRAMES_DICT_HEADER_SIZE, read, length,
						ref->strategy, ref->place);
	*problem = frames_dict_check(read, length, checksum);
	workspace_size = codec->dict_workspace((int32) length, false, 0);
	if (*problem == NULL && (workspace_size == 0 || workspace_size > MaxAllocSize))
		*problem = "dictionary cannot be loaded";
	if (*problem != NULL)
	{
		pfree(read);
		return false;
	}
	make_room(length + workspace_size);
	entry->bytes = MemoryContextAlloc(dict_cxt, length);
	memcpy(entry->bytes, read, length);
	pfree(read);
	entry->workspace = MemoryContextAlloc(dict_cxt, workspace_size);
	entry->size = length + workspace_size;
	entry->dict = codec->dict_load(entry->bytes, (int32) length, false, 0,
								   entry->workspace, workspace_size);
	if (entry->dict == NULL)
	{
		*problem = "dictionary cannot be loaded";
		pfree(entry->workspace);
		pfree(entry->bytes);
		return false;
	}
	return true;
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
	DictEntry	loaded;
	bool		found;

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
						ref->strategy, ref->place);
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
	if (entry != NULL)
	{
		if (entry->offset == ref->offset && entry->length == length &&
			entry->checksum == checksum)
		{
			dlist_move_head(&lru, &entry->lru);
			return entry->dict;
		}
		drop_entry(entry);		/* another table's, or an older stream's */
	}

	if (!load_dict(ref, codec, length, checksum, &loaded, problem))
		return NULL;

	/* entered only once loaded: a failure leaves no half-made entry */
	entry = hash_search(dict_cache, &key, HASH_ENTER, &found);
	entry->offset = ref->offset;
	entry->length = length;
	entry->checksum = checksum;
	entry->dict = loaded.dict;
	entry->bytes = loaded.bytes;
	entry->workspace = loaded.workspace;
	entry->size = loaded.size;
	dlist_push_head(&lru, &entry->lru);
	cached_bytes += entry->size;
	return entry->dict;
}
