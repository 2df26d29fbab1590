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
 * The dictionary ref names, loaded for decompression with codec.  Returns
 * NULL and sets *problem when it is damaged (the caller reports it, naming
 * what it knows).  Valid until the next call.
 */
extern const CodecDict *stream_dict_get(const StreamDictRef *ref,
										const Codec *codec,
										const char **problem);

#endif							/* STORAGE_ENGINE_STREAM_DICT_H */
