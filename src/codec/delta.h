/*-------------------------------------------------------------------------
 *
 * delta.h
 *	  Delta transform of fixed-width integer values, applied to a column
 *	  chunk's value region before compression.
 *
 *	  Columns that grow steadily (ids, timestamps, dates, counters) become
 *	  runs of equal small differences, which every codec compresses to
 *	  almost nothing.  Pure functions on caller buffers; arithmetic wraps,
 *	  so any bytes decode to some values (the caller checks what it reads).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_DELTA_H
#define STORAGE_ENGINE_DELTA_H

#include "c.h"

/* width is 2, 4 or 8; n values at buf (unaligned) are replaced in place. */
extern void delta_encode(char *buf, uint32 n, int width);
extern void delta_decode(char *buf, uint32 n, int width);

#endif							/* STORAGE_ENGINE_DELTA_H */
