/*-------------------------------------------------------------------------
 *
 * chunk_cache.h
 *	  Backend-local cache of the chunk metadata of colcompress chunk groups,
 *	  for fetches by row number (catalog/chunk_cache.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_CHUNK_CACHE_H
#define STORAGE_ENGINE_CHUNK_CACHE_H

#include "catalog/stripe_meta.h"

/*
 * The cached chunks of group of stripe, [stripe->column_count], or NULL;
 * valid until the next call of either function.
 */
extern const ChunkMeta *chunk_cache_get(const StripeMeta *stripe, int group);

/* Keeps a copy of chunks (the group's, [column_count]), zone bounds left out. */
extern void chunk_cache_put(const StripeMeta *stripe, int group,
							const ChunkMeta *chunks);

/*
 * A stripe's chunks as stripe_meta_chunks reads them, zone bounds included,
 * in one palloc'd piece, and its chunk groups' row counts into group_rows;
 * NULL when not kept.
 */
extern ChunkMeta *chunk_cache_get_stripe(const StripeMeta *stripe,
										 uint32 *group_rows);

extern void chunk_cache_put_stripe(const StripeMeta *stripe,
								   const uint32 *group_rows,
								   const ChunkMeta *chunks);

/*
 * The stripes of storage_id this backend keeps, for a parallel scan's
 * workers: the bytes chunk_cache_export takes (0 when none, at most 4 MB),
 * which it writes at dest, and which a worker's chunk_cache_import keeps.
 */
extern Size chunk_cache_export_size(uint64 storage_id);
extern void chunk_cache_export(uint64 storage_id, void *dest, Size size);
extern void chunk_cache_import(const void *src);

#endif							/* STORAGE_ENGINE_CHUNK_CACHE_H */
