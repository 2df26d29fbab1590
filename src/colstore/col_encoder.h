/*-------------------------------------------------------------------------
 *
 * col_encoder.h
 *	  The transaction's stripe encoder, a background worker that encodes
 *	  a stripe's columns while the backend goes on.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COL_ENCODER_H
#define STORAGE_ENGINE_COL_ENCODER_H

#include "colstore/col_encode.h"

/* Can the encoder take this column (built-in type and collation)? */
extern bool col_encoder_takes(const ColumnSource *src);

/* Has this transaction an encoder running? */
extern bool col_encoder_running(void);

/*
 * Starts the transaction's encoder ahead of its first stripe, and has it
 * make room for about bytes of values, so that both overlap the rows
 * still to come.
 */
extern void col_encoder_prepare(Size bytes);

/*
 * Hands the columns src[a] with remote[a] to the encoder, started if need
 * be.  Returns the job's id, or 0 when there is no encoder or it has a job
 * already (another table's stripe): the caller encodes them.  src's values must stay in place until the job is
 * collected or abandoned (the encoder has a copy once this returns, but
 * the backend needs them if it dies).
 */
extern uint32 col_encoder_submit(const ColumnSource *src, int ncols,
								 const bool *remote);

/*
 * Waits for the job's encoded columns and puts them in out[a] for each
 * remote[a], in the current memory context; false when the encoder died
 * first (out is then untouched: the caller encodes them).
 */
extern bool col_encoder_collect(uint32 job, int ncols, const bool *remote,
								uint32 ngroups, EncodedColumn *out);

/* The job's results are not wanted. */
extern void col_encoder_abandon(uint32 job);

#endif							/* STORAGE_ENGINE_COL_ENCODER_H */
