/*-------------------------------------------------------------------------
 *
 * col_dict.c
 *	  Compression dictionaries of colcompress stripes, read side.
 *
 *	  A stripe may keep one dictionary per column (attr_dict_offset in
 *	  engine.stripe), shared by every frame of that column in the stripe,
 *	  which lets frames be short (codec/frames.h).  Reading one means its
 *	  bytes, their checksum and the codec's preparation of its tables: a
 *	  few microseconds, as much as decoding a short frame, so loaded
 *	  dictionaries are kept for the backend's life in one cache shared by
 *	  scans and fetches (an index lookup of a few rows would otherwise load
 *	  a dictionary per row and column).
 *
 *	  A cache entry is found by the relation's file, stripe and column,
 *	  and used only while the dictionary header on disk (offset, length,
 *	  checksum) is still the one it was loaded from: relation files are
 *	  reused after a DROP, and stripe numbers restart in a new storage, so
 *	  the key alone could name another table's dictionary.  The header is
 *	  one read from shared buffers per frame.
 *
 *	  The cache is bounded (COL_DICT_CACHE_ENTRIES, about 45 kB each) and
 *	  emptied whole when full: simple, and enough for a cache whose misses
 *	  cost microseconds.  Memory: its own context under TopMemoryContext.
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

#define COL_DICT_CACHE_ENTRIES	128

typedef struct DictKey
{
	CompatRelFileLocator file;
	uint64		stripe_num;
	int			attnum;
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
										 "colcompress dictionaries",
										 ALLOCSET_DEFAULT_SIZES);
	else
		MemoryContextReset(dict_cxt);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(DictKey);
	ctl.entrysize = sizeof(DictEntry);
	ctl.hcxt = dict_cxt;
	dict_cache = hash_create("colcompress dictionaries", 32, &ctl,
							 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
}

static void
dict_context(const ColChunkRef *ref, char *context, size_t size)
{
	snprintf(context, size, "stripe " UINT64_FORMAT ", column \"%s\"",
			 ref->stripe->stripe_num, NameStr(ref->attr->attname));
}

/* Reads the header of the dictionary at offset of ref's stripe. */
static void
read_header(const ColChunkRef *ref, uint64 offset, uint32 *length,
			uint32 *checksum)
{
	const StripeMeta *s = ref->stripe;
	char		header[FRAMES_DICT_HEADER_SIZE];
	char		context[128];
	const char *problem;

	if (offset >= s->data_length)
		col_chunk_corrupted(ref, "dictionary lies outside its stripe");
	dict_context(ref, context, sizeof(context));
	storage_read_stream(ref->rel, s->first_block, offset, header,
						Min(sizeof(header), s->data_length - offset),
						ref->strategy, context);
	problem = frames_dict_header(header, s->data_length - offset, length,
								 checksum);
	if (problem != NULL)
		col_chunk_corrupted(ref, problem);
}

/*
 * Reads and checks the dictionary bytes after the header at offset, and
 * prepares them, all in CurrentMemoryContext.
 */
static const CodecDict *
load_dict(const ColChunkRef *ref, const Codec *codec, uint64 offset,
		  uint32 length, uint32 checksum)
{
	char		context[128];
	char	   *bytes = palloc(length);
	size_t		workspace_size;
	const CodecDict *dict;
	const char *problem;

	dict_context(ref, context, sizeof(context));
	storage_read_stream(ref->rel, ref->stripe->first_block,
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
col_dict_for(const ColChunkRef *ref, const Codec *codec)
{
	int			a = ref->attr->attnum - 1;
	uint64		offset;
	uint32		length;
	uint32		checksum;
	DictKey		key;
	DictEntry  *entry;
	bool		found;
	MemoryContext old;
	const CodecDict *dict;

	if (a < 0 || a >= ref->stripe->column_count)
		return NULL;
	offset = ref->stripe->attr_dict_offset[a];
	if (offset == STRIPE_NO_DICT)
		return NULL;
	if (codec->dict_load == NULL)
		col_chunk_corrupted(ref, "dictionary for a codec that has none");
	read_header(ref, offset, &length, &checksum);

	if (dict_cache == NULL)
		create_cache();
	memset(&key, 0, sizeof(key));
	key.file = RelationPhysicalId(ref->rel);
	key.stripe_num = ref->stripe->stripe_num;
	key.attnum = ref->attr->attnum;
	entry = hash_search(dict_cache, &key, HASH_FIND, NULL);
	if (entry != NULL && entry->offset == offset && entry->length == length &&
		entry->checksum == checksum)
		return entry->dict;

	if (hash_get_num_entries(dict_cache) >= COL_DICT_CACHE_ENTRIES)
		create_cache();
	old = MemoryContextSwitchTo(dict_cxt);
	dict = load_dict(ref, codec, offset, length, checksum);
	MemoryContextSwitchTo(old);

	/* entered only once loaded: an error leaves no half-made entry */
	entry = hash_search(dict_cache, &key, HASH_ENTER, &found);
	entry->offset = offset;
	entry->length = length;
	entry->checksum = checksum;
	entry->dict = dict;
	return dict;
}
