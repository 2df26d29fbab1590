/*-------------------------------------------------------------------------
 *
 * col_dict.h
 *	  Compression dictionaries of colcompress stripes, read side: the
 *	  backend's cache of the dictionaries it has loaded.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COL_DICT_H
#define STORAGE_ENGINE_COL_DICT_H

#include "codec/codec.h"

struct ColChunkRef;

/*
 * The dictionary the chunk's column keeps in its stripe, loaded for
 * decompression with codec, or NULL when its frames use none.  Valid until
 * the next call.
 */
extern const CodecDict *col_dict_for(const struct ColChunkRef *ref,
									 const Codec *codec);

#endif							/* STORAGE_ENGINE_COL_DICT_H */
