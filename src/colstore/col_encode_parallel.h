/*-------------------------------------------------------------------------
 *
 * col_encode_parallel.h
 *	  Encoding a stripe's columns side by side, in parallel workers.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COL_ENCODE_PARALLEL_H
#define STORAGE_ENGINE_COL_ENCODE_PARALLEL_H

#include "portability/instr_time.h"

#include "colstore/col_encode.h"

/*
 * Encodes the columns src[0 .. ncols) of one stripe into out[], in the
 * current memory context: some of them in parallel workers when the stripe
 * is worth it and workers are there, the same bytes either way.
 */
extern void col_encode_columns(const ColumnSource *src, int ncols,
							   EncodedColumn *out);

/* A stripe's columns handed to the transaction's encoder (col_encoder.c). */
typedef struct EncodeHandoff
{
	uint32		job;			/* 0 once collected */
	bool	   *remote;			/* the columns the encoder has */
	instr_time	handed;
} EncodeHandoff;

/*
 * The same for a stripe whose values stay in place until
 * col_encode_columns_finish, which the backend does not wait for: some of
 * the columns the transaction's encoder takes are handed to it, the others
 * encoded now.  NULL when every column is in out[] already.
 */
extern EncodeHandoff *col_encode_columns_begin(const ColumnSource *src,
											   int ncols, EncodedColumn *out);

/* The rest of out[]: the encoder's columns (none once collected). */
extern void col_encode_columns_finish(EncodeHandoff *handoff,
									  const ColumnSource *src, int ncols,
									  EncodedColumn *out);

/*
 * A stripe of ncols columns and about bytes bytes is coming: starts the
 * transaction's encoder if it will be wanted.
 */
extern void col_encode_prepare(int ncols, double bytes);

#endif							/* STORAGE_ENGINE_COL_ENCODE_PARALLEL_H */
