/*-------------------------------------------------------------------------
 *
 * shared_frames.h
 *	  Decompressed frames kept in shared memory for every backend
 *	  (storage_engine.shared_frame_cache_size; format/shared_frames.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_SHARED_FRAMES_H
#define STORAGE_ENGINE_SHARED_FRAMES_H

#include "format/frame_cache.h"

/* From _PG_init: asks for the shared memory when preloaded. */
extern void shared_frames_init(void);

/* The cache's bytes; 0 when it is off or the library was not preloaded. */
extern Size shared_frames_size(void);

/* Whether a frame of size bytes is small enough to be kept. */
extern bool shared_frames_fits(Size size);

/* Copies key's bytes (key->entry.raw_length of them) to raw, if kept. */
extern bool shared_frames_get(const FrameCacheKey *key, char *raw);

/*
 * key's bytes in place and their length, or NULL if not kept.  They stay
 * there, read-only, until cxt is reset or deleted.
 */
extern const char *shared_frames_pin(const FrameCacheKey *key, Size *size,
									 MemoryContext cxt);

/*
 * Keeps a copy of size bytes for key, pushing out the oldest frames to make
 * room; *dropped is set to the bytes pushed out.  False when it was not kept
 * (kept already, too large, or the oldest frame is pinned).
 */
extern bool shared_frames_put(const FrameCacheKey *key, const void *bytes,
							  Size size, Size *dropped);

/* What engine.shared_frame_cache shows; counts are since startup. */
typedef struct SharedFramesStats
{
	uint64		size;			/* bytes, 0 when off */
	uint64		used;			/* bytes taken, heads and fillers included */
	uint64		frames;			/* kept now */
	uint64		pinned;			/* of those, read in place now */
	uint64		hits;			/* lookups that found their frame */
	uint64		misses;
	uint64		stored;			/* frames kept */
	uint64		evicted;		/* frames pushed out */
} SharedFramesStats;

extern void shared_frames_stats(SharedFramesStats *stats);

#endif							/* STORAGE_ENGINE_SHARED_FRAMES_H */
