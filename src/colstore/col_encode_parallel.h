/*-------------------------------------------------------------------------
 *
 * col_encode_parallel.h
 *	  Encoding a stripe's columns side by side, in parallel workers.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COL_ENCODE_PARALLEL_H
#define STORAGE_ENGINE_COL_ENCODE_PARALLEL_H

#include "colstore/col_encode.h"

/*
 * Encodes the columns src[0 .. ncols) of one stripe into out[], in the
 * current memory context: some of them in parallel workers when the stripe
 * is worth it and workers are there, the same bytes either way.
 */
extern void col_encode_columns(const ColumnSource *src, int ncols,
							   EncodedColumn *out);

#endif							/* STORAGE_ENGINE_COL_ENCODE_PARALLEL_H */
