/*-------------------------------------------------------------------------
 *
 * row_batch.h
 *	  The uncompressed layout of one rowcompress batch: a header and the
 *	  rows as MinimalTuples (heap's tuple layout without the transaction
 *	  fields), back to back.  docs/rowcompress-format.md has the details.
 *
 *		RowBatchHeader						16 bytes
 *		row 0: MinimalTuple, zero-padded to a multiple of MAXIMUM_ALIGNOF
 *		row 1: ...
 *
 *	  Every row starts MAXALIGNed (the buffer itself must be MAXALIGNed), so
 *	  a scan hands PostgreSQL a pointer into the decompressed batch, and
 *	  PostgreSQL's own tuple deforming reads it, lazily and only up to the
 *	  columns a query needs.  Before that, row_batch_check() has proved
 *	  that deforming every row with the scan's column layout stays inside
 *	  the row: the batch is untrusted bytes from disk.  (Batches are at most
 *	  1 GB, so row offsets fit in 31 bits; the top bit marks slow rows.)
 *
 *	  The checker is a pure function (no allocation, no ereport; the caller
 *	  passes every buffer), so test/fuzz runs it outside the server.  The
 *	  encoder is server code (it uses heap_fill_tuple).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_ROW_BATCH_H
#define STORAGE_ENGINE_ROW_BATCH_H

#define ROW_BATCH_MAGIC		0x31424352	/* "RCB1" */
#define ROW_BATCH_VERSION	1

typedef struct RowBatchHeader
{
	uint32		magic;
	uint16		version;
	uint16		natts;			/* attributes of every row */
	uint32		row_count;
	uint32		reserved;		/* zero */
} RowBatchHeader;

#define ROW_BATCH_HEADER_SIZE	MAXALIGN(sizeof(RowBatchHeader))

/* The smallest row: a MinimalTuple header with no nulls and no data. */
#define ROW_BATCH_MIN_ROW_SIZE	MAXALIGN(offsetof(MinimalTupleData, t_bits))

/*
 * How a column is laid out in a row (from its pg_attribute entry), and
 * what PostgreSQL's deforming assumes about it: the JIT-compiled deformer
 * skips the null test of a NOT NULL column (notnull), and takes a row to
 * hold every column up to the last NOT NULL one without a missing value
 * (present).
 */
typedef struct RowBatchAttr
{
	int16		attlen;
	bool		attbyval;
	char		attalign;
	bool		notnull;
	bool		present;
} RowBatchAttr;

/*
 * Checks a decompressed batch raw[0 .. rawlen) (raw MAXALIGNed) that its
 * metadata says holds expected_rows rows, against the column layout
 * attrs[0 .. natts) the rows will be deformed with.  On success stores the
 * offset of each row's MinimalTuple in row_offsets[0 .. expected_rows) and
 * returns NULL; otherwise returns a static string saying what is wrong.
 *
 * A row that breaks what the layout's NOT NULL columns promise (a NULL in
 * one, or one the row lacks) is well formed, but only a deformer that
 * follows the null bitmap and the row's natts may read it: its offset has
 * ROW_BATCH_SLOW_ROW set.  Such rows are legitimate exactly while ALTER
 * TABLE checks a new NOT NULL constraint against existing rows, and
 * damage otherwise; the caller deforms them itself.
 */
#define ROW_BATCH_SLOW_ROW		0x80000000U
#define ROW_BATCH_UNCHECKED		0x40000000U
#define ROW_BATCH_OFFSET(o)		((o) & ~(ROW_BATCH_SLOW_ROW | ROW_BATCH_UNCHECKED))
extern const char *row_batch_check(const char *raw, uint64 rawlen,
								   const RowBatchAttr *attrs, int natts,
								   uint32 expected_rows, uint32 *row_offsets);

/*
 * row_batch_check for a reader that will use few of the rows (a fetch by
 * TID): the header and each row's length only, every offset with
 * ROW_BATCH_UNCHECKED set.  row_batch_check_one checks such a row fully,
 * as row_batch_check would have, before it is used, and clears the flag
 * (setting ROW_BATCH_SLOW_ROW where row_batch_check would).  rawlen must be
 * below ROW_BATCH_UNCHECKED.  layout is what row_batch_layout made of the
 * attrs when it found no problem, or NULL to have the layout checked here
 * again (for every row: 460 instructions a row of 17 columns, a twentieth
 * of a bitmap scan fetching a fifth of a table).
 */
extern const char *row_batch_index(const char *raw, uint64 rawlen,
								   const RowBatchAttr *attrs, int natts,
								   uint32 expected_rows, uint32 *row_offsets);
extern const char *row_batch_check_one(const char *raw, uint64 rawlen,
									   const RowBatchAttr *attrs,
									   const uint8 *layout, int natts,
									   uint32 *row_offset);

/*
 * Checks one row, the MinimalTuple at row with avail bytes after it, with
 * the batch's natts: as row_batch_check does for every row of a batch.
 * Sets *row_len to its t_len and *slow as row_batch_check marks rows.
 */
extern const char *row_batch_check_row(const char *row, uint64 avail,
									   int natts, const RowBatchAttr *attrs,
									   uint64 *row_len, bool *slow);

/*
 * The alignment of each column of a layout, masks[natts], for
 * row_batch_read_columns; NULL, or what is wrong with the layout.
 */
extern const char *row_batch_layout(const RowBatchAttr *attrs, int natts,
									uint8 *masks);

/*
 * Deforms columns [0, upto) of the row at row_offset of a batch that
 * row_batch_index indexed, into values/isnull (pointing into raw),
 * checking each column as row_batch_check does: a scan reading a few
 * columns of every row walks each row once and only as far as it reads.
 * The row stays ROW_BATCH_UNCHECKED: if it is ever stored whole, it is
 * checked whole first (row_batch_check_one).  Sets *lacks, reading
 * nothing, when the row has fewer than upto columns (the table's
 * descriptor supplies the others' values: read such a row through a slot).
 */
extern const char *row_batch_read_columns(const char *raw, uint64 rawlen,
										  const RowBatchAttr *attrs,
										  const uint8 *masks,
										  uint32 row_offset, int upto,
										  Datum *values, bool *isnull,
										  bool *lacks);

#ifndef FRONTEND

#include "access/tupdesc.h"
#include "lib/stringinfo.h"

/* The layout of desc's columns, into attrs[desc->natts]. */
extern void row_batch_attrs(TupleDesc desc, RowBatchAttr *attrs);

/* Starts an empty batch of rows with desc's natts in buf (empty). */
extern void row_batch_begin(StringInfo buf, TupleDesc desc);

/*
 * Bytes the row of these values takes in a batch (padding included); sets
 * *data_len, which row_batch_append needs.
 */
extern Size row_batch_row_size(TupleDesc desc, Datum *values, bool *isnull,
							   Size *data_len);

/*
 * Appends one row, of data_len bytes of data (from row_batch_row_size).
 * Varlena values must not be external or compressed (the writer detoasts
 * them); dropped columns must be NULL.
 */
extern void row_batch_append(StringInfo buf, TupleDesc desc,
							 Datum *values, bool *isnull, Size data_len);

/*
 * Appends a MinimalTuple that is already in the batch's row layout, as
 * built by heap_form_minimal_tuple from values satisfying
 * row_batch_append's rules (the caller checked it with
 * row_batch_check_row).
 */
extern void row_batch_append_tuple(StringInfo buf, MinimalTuple tup);

/* Records the number of rows appended. */
extern void row_batch_finish(StringInfo buf, uint32 nrows);

#endif							/* FRONTEND */

#endif							/* STORAGE_ENGINE_ROW_BATCH_H */
