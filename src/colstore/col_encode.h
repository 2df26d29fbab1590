/*-------------------------------------------------------------------------
 *
 * col_encode.h
 *	  Encoding one column of a stripe: how its chunks are encoded, framed
 *	  and compressed, its compression dictionary, its zone-map bounds.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COL_ENCODE_H
#define STORAGE_ENGINE_COL_ENCODE_H

#include "access/tupdesc.h"

#include "catalog/stripe_meta.h"
#include "codec/codec.h"

/* Bytes holding values of a column, back to back. */
typedef struct ValueSpan
{
	const char *start;
	Size		length;
} ValueSpan;

/* One column of a stripe's rows, in the stripe's order. */
typedef struct ColumnSource
{
	Form_pg_attribute attr;
	const Datum *values;		/* by-reference values inline, never toasted */
	const bool *isnull;
	uint32		nrows;
	uint32		group_limit;	/* rows of a chunk group */
	const Codec *codec;
	int			level;			/* the codec's level */
	/* when not NULL, every non-NULL by-reference value lies in one of them */
	const ValueSpan *spans;
	int			nspans;
} ColumnSource;

/* A column encoded: what its stripe stores of it. */
typedef struct EncodedColumn
{
	char	   *dict;			/* its compression dictionary, or NULL */
	int32		dict_length;
	ChunkMeta  *chunks;			/* per chunk group; stored_offset unset */
	char	  **stored;			/* per chunk group: its stored bytes */
	uint64		null_count;
	bytea	   *min;			/* the stripe's bounds, or NULL */
	bytea	   *max;
} EncodedColumn;

/* Chunk groups of a stripe of nrows rows, group_limit rows a group. */
static inline uint32
col_chunk_groups(uint32 nrows, uint32 group_limit)
{
	return (nrows + group_limit - 1) / group_limit;
}

/* Encodes src into *out, allocated in the current memory context. */
extern void col_encode_column(const ColumnSource *src, EncodedColumn *out);

#endif							/* STORAGE_ENGINE_COL_ENCODE_H */
