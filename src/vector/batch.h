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

#include "codec/numeric_format.h"

typedef struct ColumnBatch
{
	Datum	   *values;			/* [nrows]; by-reference values point into
								 * the chunk's decompressed buffer */
	bool	   *isnull;			/* [nrows] */
	bool		loaded;			/* false for columns not projected */
	/*
	 * numeric: each row's value as a scaled integer, made once per batch by
	 * the aggregation for the kernels that read it, or by the reader from
	 * packed decimals (NULL: not made)
	 */
	const ScaledNumeric *scaled;

	/*
	 * Packed decimals that a consumer adding them asked the reader to leave
	 * as scaled integers (col_reader_scaled_columns): writing each numeric
	 * and reading it back was two fifths of a sum over them.  values[] is
	 * then unwritten; a row's numeric is written at made + row *
	 * NUMERIC_WRITE_MAX_SIZE when something reads it (batch_make_value,
	 * batch_make_values).  NULL: values[] is written.
	 */
	char	   *made;
} ColumnBatch;

#ifdef HAVE_SCALED_NUMERIC
/* Writes row's value in values[] when col left it as a scaled integer. */
static inline void
batch_make_value(ColumnBatch *col, uint32 row)
{
	char	   *at;

	if (col->made == NULL)
		return;
	if (col->isnull[row])
	{
		col->values[row] = (Datum) 0;
		return;
	}
	at = col->made + (Size) row * NUMERIC_WRITE_MAX_SIZE;
	numeric_write_scaled((int64) col->scaled[row].mantissa,
						 col->scaled[row].dscale, at);
	col->values[row] = PointerGetDatum(at);
}

/* Writes every value of col's nrows rows that it left as scaled integers. */
static inline void
batch_make_values(ColumnBatch *col, uint32 nrows)
{
	uint32		row;

	if (col->made == NULL)
		return;
	for (row = 0; row < nrows; row++)
		batch_make_value(col, row);
	col->made = NULL;
}
#else
static inline void
batch_make_value(ColumnBatch *col, uint32 row)
{
}

static inline void
batch_make_values(ColumnBatch *col, uint32 nrows)
{
}
#endif

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
