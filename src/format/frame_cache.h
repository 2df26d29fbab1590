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

/* What is kept of a frame: its decompressed bytes, or what a reader made of them */
typedef enum FrameCacheKind
{
	FRAME_CACHE_BYTES = 0,
	FRAME_CACHE_DECODED,		/* its bytes after the reader's own decoding
								 * (colcompress deltas undone) */
	FRAME_CACHE_MARKS,			/* codec/value_encoding.h's ValueWalk marks */
	FRAME_CACHE_ROWS,			/* what fetches read of a frame stored raw,
								 * row by row (colstore/col_chunk.c) */
	FRAME_CACHE_ROW_VALUES,		/* a row fetched, whole (format/row_cache.c) */
	FRAME_CACHE_BATCH			/* a rowcompress batch's rows, as a scan reads
								 * them (rowstore/row_reader.c); shared cache
								 * only */
} FrameCacheKind;

/*
 * Names one stored frame: the relation's file, where the frame's unit (a
 * colcompress chunk, a rowcompress batch) starts and the checksum of its
 * stored bytes, where the frame lies in it, and its directory entry; and
 * what of it is kept.  Or one row (row_cache_key).
 */
typedef struct FrameCacheKey
{
	CompatRelFileLocator file;
	uint32		kind;			/* FrameCacheKind; FRAME_CACHE_BYTES by
								 * frame_cache_key */
	uint32		unit_checksum;
	uint64		first_block;
	uint64		offset;			/* of the frame's stored bytes */
	FrameEntry	entry;
} FrameCacheKey;

extern void frame_cache_key(FrameCacheKey *key, Relation rel,
							uint64 first_block, uint64 offset,
							uint32 unit_checksum,
							const FrameEntry *entry);

/*
 * Copies key's decompressed bytes to raw, from the session's cache or the
 * shared one; false when neither keeps them.
 */
extern bool frame_cache_get(const FrameCacheKey *key, char *raw);

/*
 * What the cache keeps for key, or NULL: valid until the next
 * frame_cache_put, for a caller that reads a little of it in place (and,
 * for FRAME_CACHE_MARKS, adds to it in place).
 */
extern const char *frame_cache_peek(const FrameCacheKey *key);

/*
 * Which frames a reader offers to the cache.  A frame stored raw is worth
 * keeping only to a reader that decodes a row of it in place (colcompress,
 * col_chunk_decode_cached): it saves the page reads of the row, where a
 * reader that copies the frame would copy it from the cache instead of
 * from its pages, for nothing; and then only in room the decompressed
 * frames leave (frame_cache.c).
 */
typedef enum FrameKeep
{
	FRAME_KEEP_NONE,			/* a scan: every frame once */
	FRAME_KEEP_COMPRESSED,
	FRAME_KEEP_ALL,
	FRAME_KEEP_SHARED			/* compressed ones, in the shared cache only
								 * (frame_cache_share) */
} FrameKeep;

/*
 * Whether a frame read now would be kept (frame_cache_put): there is room
 * for it, and the frame of key was met before (it has been from now on).
 * For a reader that would otherwise read less than the whole frame.
 */
extern bool frame_cache_wants(const FrameCacheKey *key);

/*
 * Keeps size bytes for key, a copy of bytes or, with bytes NULL, zeroes for
 * the caller to fill in place; returns them, or NULL when the session's cache
 * would not keep them.  A copy of a decompressed frame may be kept in the
 * shared cache as well, or only there (format/shared_frames.c).
 */
extern void *frame_cache_put(const FrameCacheKey *key, const void *bytes,
							 Size size);

/*
 * Offers key's decompressed bytes as keep says: frame_cache_share for
 * FRAME_KEEP_SHARED, else frame_cache_put.
 */
extern void frame_cache_offer(const FrameCacheKey *key, const void *bytes,
							  Size size, FrameKeep keep);

/*
 * Whether this session uses a shared cache (format/shared_frames.c): there
 * is one, and its own cache is on.
 */
extern bool frame_cache_shares(void);

/*
 * Keeps a copy of key's decompressed bytes in the shared cache only, under
 * the rules of frame_cache_put: for a fetch that meets many rows of each
 * frame (a bitmap heap scan over much of a table), whose frames would push
 * the frames of lookups out of the session's small cache.
 */
extern void frame_cache_share(const FrameCacheKey *key, const void *bytes,
							  Size size);

/*
 * For a reader that keeps whole units in the shared cache only (rowcompress
 * scans): the shared cache's bytes, 0 when this session uses none; whether
 * the unit of key, of size bytes, would be kept if read now (it was met
 * before, and there is room; it is met from now on); and what is kept for
 * key, with its length, read in place until cxt is reset, or NULL.
 */
extern Size frame_cache_shared_size(void);
extern bool frame_cache_share_wanted(const FrameCacheKey *key, Size size);
extern const char *frame_cache_shared_pin(const FrameCacheKey *key, Size *size,
										  MemoryContext cxt);

/* The bytes of rows the cache may keep (format/row_cache.c); 0 when off. */
extern Size frame_cache_rows_room(void);

#endif							/* STORAGE_ENGINE_FRAME_CACHE_H */
