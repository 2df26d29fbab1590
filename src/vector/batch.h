/*-------------------------------------------------------------------------
 *
 * batch.h
 *	  The one in-memory representation the reader hands upward: a chunk
 *	  group's rows as per-column arrays of Datums with null flags, plus a
 *	  selection vector of the rows still alive.  Pruning, filters and
 *	  aggregates work on this; row-at-a-time tuples are built from it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_BATCH_H
#define STORAGE_ENGINE_BATCH_H

#include "postgres.h"

typedef struct ColumnBatch
{
	Datum	   *values;			/* [nrows]; by-reference values point into
								 * the chunk's decompressed buffer */
	bool	   *isnull;			/* [nrows] */
	bool		loaded;			/* false for columns not projected */
	/*
	 * numeric: each row's value as a scaled integer, made once per batch by
	 * the aggregation for the kernels that read it (NULL: not made)
	 */
	const struct ScaledNumeric *scaled;
} ColumnBatch;

typedef struct RowBatch
{
	int			natts;
	uint32		nrows;
	ColumnBatch *cols;			/* [natts] */
	uint64	   *rownums;		/* [nrows] row number of each row */
	uint32	   *sel;			/* [nsel] indexes of rows alive, ascending */
	uint32		nsel;
} RowBatch;

#endif							/* STORAGE_ENGINE_BATCH_H */
