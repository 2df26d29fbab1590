/*-------------------------------------------------------------------------
 *
 * col_dict.h
 *	  Compression dictionaries of colcompress stripes, read side: a cache
 *	  of the dictionaries a reader or fetch has loaded.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COL_DICT_H
#define STORAGE_ENGINE_COL_DICT_H

#include "codec/codec.h"

typedef struct ColDictCache ColDictCache;
struct ColChunkRef;

/* A cache in a context of its own under parent. */
extern ColDictCache *col_dict_cache_create(MemoryContext parent);

extern void col_dict_cache_destroy(ColDictCache *cache);

/*
 * The dictionary the chunk's column keeps in its stripe, loaded for
 * decompression with codec, or NULL when its frames use none.
 */
extern const CodecDict *col_dict_for(ColDictCache *cache,
									 const struct ColChunkRef *ref,
									 const Codec *codec);

#endif							/* STORAGE_ENGINE_COL_DICT_H */
