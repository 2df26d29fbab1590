/*-------------------------------------------------------------------------
 *
 * col_encode_transfer.h
 *	  A stripe's columns handed to another process to encode, and the
 *	  encoded columns handed back: the layout both sides agree on.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COL_ENCODE_TRANSFER_H
#define STORAGE_ENGINE_COL_ENCODE_TRANSFER_H

#include "colstore/col_encode.h"

/* A span of the backend's values (ColumnSource.spans), copied whole. */
typedef struct SharedSpan
{
	uintptr_t	start;			/* where it was in the backend */
	Size		length;
	Size		at;				/* where it is in the copy */
} SharedSpan;

/*
 * Where a column's parts are in its copy: isnull, its Datums (by value,
 * the backend's pointers into its spans, or offsets of its values), then
 * its spans (their table, then each whole) or each by-reference value.
 */
typedef struct ColumnLayout
{
	FormData_pg_attribute attr;
	Size		isnull_at;
	Size		values_at;
	Size		spans_at;
	int			nspans;			/* -1: values copied one by one */
} ColumnLayout;

/*
 * The bytes one non-NULL by-reference value of attr takes, and whether it
 * is aligned (all but 1-byte-header varlenas, as in the write buffer).
 */
extern Size transfer_value_size(Form_pg_attribute attr, Datum v,
								bool *aligned);

/*
 * Lays the column out from offset at, returning where it ends; with dest,
 * copies it there (dest + offset).
 */
extern Size transfer_place_column(const ColumnSource *src,
								  ColumnLayout *layout, Size at, char *dest);

/* The span table of a column laid out with spans (layout->nspans >= 0). */
extern void transfer_span_table(const ColumnSource *src,
								const ColumnLayout *layout, SharedSpan *table);

/*
 * The column's by-reference values as pointers into its copy at base,
 * palloc'd.
 */
extern Datum *transfer_pointers(const ColumnLayout *layout, char *base,
								uint32 nrows);

/*
 * The column laid out at base as a source to encode, with the stripe's
 * codec (by id), level and chunk groups' rows.
 */
extern void transfer_source(const ColumnLayout *layout, char *base,
							uint32 nrows, uint32 group_limit, int codec,
							int level, ColumnSource *src);

/*
 * An encoded column of a stripe of ngroups chunk groups as one run of
 * bytes: with dest NULL only its size.
 */
extern Size transfer_flatten(const EncodedColumn *e, uint32 ngroups,
							 char *dest);

/* The encoded column back from transfer_flatten's bytes, palloc'd. */
extern void transfer_unflatten(const char *p, uint32 ngroups,
							   EncodedColumn *e);

#endif							/* STORAGE_ENGINE_COL_ENCODE_TRANSFER_H */
