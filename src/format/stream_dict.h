/*-------------------------------------------------------------------------
 *
 * stream_dict.h
 *	  Compression dictionaries stored in streams (a colcompress stripe
 *	  keeps one per column, a rowcompress batch one for its rows), read
 *	  side: the backend's cache of the dictionaries it has loaded.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_STREAM_DICT_H
#define STORAGE_ENGINE_STREAM_DICT_H

#include "storage/bufmgr.h"
#include "utils/relcache.h"

#include "codec/codec.h"
#include "compat/compat.h"
#include "format/storage.h"

/* Where a dictionary is: in which stream, at which offset. */
typedef struct StreamDictRef
{
	Relation	rel;
	uint64		first_block;	/* of the stream */
	uint64		stream_num;		/* stripe or batch number */
	uint64		stream_length;	/* bytes of the stream */
	int			part;			/* which of the stream's dictionaries */
	uint64		offset;			/* of the stored dictionary in the stream */
	BufferAccessStrategy strategy;
	const StreamPlace *place;	/* for storage_read_stream's errors */
} StreamDictRef;

/*
 * Everything that names a loaded dictionary: where it is and the header it
 * was loaded from.  A key matching the header on disk is that dictionary.
 */
typedef struct StreamDictKey
{
	CompatRelFileLocator file;
	int32		part;
	uint64		stream_num;
	uint64		offset;
	uint32		length;
	uint32		checksum;
} StreamDictKey;

/*
 * The dictionary ref names, loaded for decompression with codec.  Returns
 * NULL and sets *problem when it is damaged (the caller reports it, naming
 * what it knows).  Valid until the next call.
 *
 * Finding it in the cache takes its header, read from shared buffers.  A
 * fetch by TID looks its dictionaries up for every row; with hint (NULL:
 * none), which the last lookup through it filled, a lookup of the same
 * place in the same relation file finds the dictionary by that key without
 * reading the header: streams are immutable, and a file is not reused
 * while its relation is open.  A hint the cache no longer has an entry for
 * costs the header read again.
 */
typedef struct StreamDictHint
{
	bool		valid;
	StreamDictKey key;
} StreamDictHint;

extern const CodecDict *stream_dict_get(const StreamDictRef *ref,
										const Codec *codec,
										StreamDictHint *hint,
										const char **problem);

#endif							/* STORAGE_ENGINE_STREAM_DICT_H */
