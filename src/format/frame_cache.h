/*-------------------------------------------------------------------------
 *
 * frame_cache.h
 *	  Decompressed frames kept by each backend for fetches by row number
 *	  (format/frame_cache.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_FRAME_CACHE_H
#define STORAGE_ENGINE_FRAME_CACHE_H

#include "compat/compat.h"

#include "utils/relcache.h"

#include "codec/frames.h"

/*
 * Names one stored frame: the relation's file, where the frame's unit (a
 * colcompress chunk, a rowcompress batch) starts and the checksum of its
 * stored bytes, where the frame lies in it, and its directory entry.
 */
typedef struct FrameCacheKey
{
	CompatRelFileLocator file;
	uint32		unit_checksum;
	uint64		first_block;
	uint64		offset;			/* of the frame's stored bytes */
	FrameEntry	entry;
} FrameCacheKey;

extern void frame_cache_key(FrameCacheKey *key, Relation rel,
							uint64 first_block, uint64 offset,
							uint32 unit_checksum,
							const FrameEntry *entry);

/* Copies key's decompressed bytes to raw; false when none are kept. */
extern bool frame_cache_get(const FrameCacheKey *key, char *raw);

/*
 * key's decompressed bytes in the cache, or NULL: valid until the next
 * frame_cache_put, for a caller that reads a little of them in place.
 */
extern const char *frame_cache_peek(const FrameCacheKey *key);

/* Keeps a copy of key's decompressed bytes, raw, when worth it. */
extern void frame_cache_put(const FrameCacheKey *key, const char *raw);

#endif							/* STORAGE_ENGINE_FRAME_CACHE_H */
