/*-------------------------------------------------------------------------
 *
 * row_cache.h
 *	  Rows fetched by row number, kept whole in the frame cache
 *	  (format/row_cache.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_ROW_CACHE_H
#define STORAGE_ENGINE_ROW_CACHE_H

#include "compat/compat.h"

#include "access/tupdesc.h"
#include "utils/relcache.h"

#include "format/frame_cache.h"

/*
 * Names row (its position in its unit) of the unit of stored rows that
 * starts at first_block and whose stored bytes have checksum
 * unit_checksum: for colcompress a stripe's chunk group (the checksums of
 * its column chunks combined), for rowcompress a batch.
 */
extern void row_cache_key(FrameCacheKey *key, Relation rel,
						  uint64 first_block, uint32 unit_checksum,
						  uint64 row);

/*
 * The row kept for key, as a minimal tuple valid until the next
 * frame_cache_put, or NULL: none is kept, or it lacks a column among the
 * first natts of desc that is neither dropped nor skipped (NULL: none).  A caller copies it
 * before it decodes values from it (row_cache_deform).
 */
extern MinimalTuple row_cache_peek(const FrameCacheKey *key, TupleDesc desc,
								   int natts, const bool *skipped);

/* The values of tuple (a copy of row_cache_peek's) for desc's columns. */
extern void row_cache_deform(MinimalTuple tuple, TupleDesc desc,
							 Datum *values, bool *isnull);

/*
 * Offers the cache the row whose first natts columns of desc are values
 * and isnull, but those skipped (NULL: none) and dropped, which the row
 * does not hold; it is kept when met before (frame_cache_put).
 */
extern void row_cache_put(const FrameCacheKey *key, TupleDesc desc, int natts,
						  const bool *skipped, const Datum *values,
						  const bool *isnull);

/* Offers the cache a row stored whole, as tuple (checked). */
extern void row_cache_put_tuple(const FrameCacheKey *key, MinimalTuple tuple);

#endif							/* STORAGE_ENGINE_ROW_CACHE_H */
