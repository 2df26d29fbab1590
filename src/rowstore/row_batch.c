/*-------------------------------------------------------------------------
 *
 * row_batch.c
 *	  Encoding and checking rowcompress batches (layout in row_batch.h and
 *	  docs/rowcompress-format.md).
 *
 *	  Rows are MinimalTuples exactly as heap_form_minimal_tuple builds
 *	  them, so that PostgreSQL's deforming code reads them in place.  That
 *	  code trusts the tuple, so row_batch_check() walks every row the way
 *	  the deformer will (same null bitmap test, same alignment rules, same
 *	  length rules) and refuses anything that would make it read outside
 *	  the row or hand out a value no heap tuple could hold: external TOAST
 *	  pointers, compressed inline values, varlenas shorter than their
 *	  header.
 *
 *	  This file also builds outside the server (FRONTEND) for test/fuzz, so
 *	  it includes only the frontend-safe part of compat.h there; the
 *	  checker only uses the caller's buffers.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "compat/compat_varatt.h"

#include "access/htup_details.h"
#include "access/tupmacs.h"
#include "catalog/pg_type_d.h"

#include "rowstore/row_batch.h"

#ifndef FRONTEND
#include "compat/compat.h"
#include "utils/memutils.h"
#endif

StaticAssertDecl(sizeof(RowBatchHeader) == 16, "batch header is 16 bytes");

/* typalign as a mask: off aligned is (off + mask) & ~mask */
static inline uint8
align_mask(char attalign)
{
	switch (attalign)
	{
		case TYPALIGN_CHAR:
			return 0;
		case TYPALIGN_SHORT:
			return ALIGNOF_SHORT - 1;
		case TYPALIGN_INT:
			return ALIGNOF_INT - 1;
		default:
			return ALIGNOF_DOUBLE - 1;
	}
}

static inline uint64
align_by(uint64 off, uint8 mask)
{
	return (off + mask) & ~(uint64) mask;
}

/* fetch_att's reading of a value, which the fuzz harness lacks */
static inline Datum
fetch_value(const char *p, const RowBatchAttr *a)
{
	if (!a->attbyval)
		return PointerGetDatum(p);
	switch (a->attlen)
	{
		case 1:
			return CharGetDatum(*p);
		case 2:
			{
				int16		v;

				memcpy(&v, p, sizeof(v));
				return Int16GetDatum(v);
			}
		case 4:
			{
				int32		v;

				memcpy(&v, p, sizeof(v));
				return Int32GetDatum(v);
			}
		default:
			{
				int64		v;

				memcpy(&v, p, sizeof(v));
				return Int64GetDatum(v);
			}
	}
}

/*
 * One row's data tp[0 .. datalen), natts attributes, nulls in bp (NULL
 * when the row has none), walked like slot_deform_heap_tuple does, for
 * its first upto attributes; with values, deformed into values/isnull as
 * it goes.  Only a walk of every attribute can tell that nothing trails
 * the last one.  Inlined into each caller, so the full check pays nothing
 * for what the reading walk does.
 */
static pg_attribute_always_inline const char *
walk_row_data(const char *tp, uint64 datalen, const bits8 *bp, int natts,
			  const RowBatchAttr *attrs, const uint8 *masks, bool *slow,
			  int upto, Datum *values, bool *isnull)
{
	uint64		off = 0;
	int			i;

	for (i = 0; i < upto; i++)
	{
		const RowBatchAttr *a = &attrs[i];

		if (bp != NULL && att_isnull(i, bp))
		{
			/* a deformer that trusts NOT NULL would read a value here */
			if (a->notnull)
				*slow = true;
			if (values != NULL)
			{
				values[i] = (Datum) 0;
				isnull[i] = true;
			}
			continue;
		}

		if (a->attlen > 0)
		{
			off = align_by(off, masks[i]);
			if (off > datalen || (uint64) a->attlen > datalen - off)
				return "value runs past the end of its row";
			if (values != NULL)
				values[i] = fetch_value(tp + off, a);
			off += a->attlen;
		}
		else if (a->attlen == -1)
		{
			uint64		len;

			/* a zero byte is padding before an aligned 4-byte header */
			if (off >= datalen)
				return "value runs past the end of its row";
			if (tp[off] == 0)
			{
				off = align_by(off, masks[i]);
				if (off >= datalen)
					return "value runs past the end of its row";
			}
			if (VARATT_IS_1B_E(tp + off))
				return "external TOAST pointer inside a batch";
			if (VARATT_IS_1B(tp + off))
			{
				len = VARSIZE_1B(tp + off);
				if (len < VARHDRSZ_SHORT)
					return "short varlena with an impossible length";
			}
			else
			{
				varattrib_4b hdr;	/* the header, as the macros see it */

				if (align_by(off, masks[i]) != off)
					return "misaligned varlena";
				if ((uint64) VARHDRSZ > datalen - off)
					return "varlena header runs past the end of its row";
				memcpy(&hdr, tp + off, VARHDRSZ);
				if (VARATT_IS_4B_C(&hdr))
					return "compressed varlena inside a batch";
				len = VARSIZE_4B(&hdr);
				if (len < VARHDRSZ)
					return "varlena with an impossible length";
			}
			if (len > datalen - off)
				return "varlena runs past the end of its row";
			if (values != NULL)
				values[i] = PointerGetDatum(tp + off);
			off += len;
		}
		else if (a->attlen == -2)
		{
			const char *end;

			if (off >= datalen)
				return "value runs past the end of its row";
			end = memchr(tp + off, '\0', datalen - off);
			if (end == NULL)
				return "cstring without its terminator";
			if (values != NULL)
				values[i] = PointerGetDatum(tp + off);
			off = (uint64) (end - tp) + 1;
		}
		if (values != NULL)
			isnull[i] = false;
	}
	if (upto == natts && off != datalen)
		return "row has trailing bytes";
	return NULL;
}

/*
 * The column layout itself (it comes from the catalog, but a row is only
 * walked with one that PostgreSQL could define); the alignment masks.
 */
static const char *
check_layout(const RowBatchAttr *attrs, int natts, uint8 *masks)
{
	int			i;

	for (i = 0; i < natts; i++)
	{
		const RowBatchAttr *a = &attrs[i];

		if (a->attlen == 0 || a->attlen < -2)
			return "column with an unsupported length";
		if (a->attbyval && a->attlen != 1 && a->attlen != 2 &&
			a->attlen != 4 && a->attlen != 8)
			return "pass-by-value column with an unsupported length";
		masks[i] = align_mask(a->attalign);
	}
	return NULL;
}

/*
 * The row at row, avail bytes long at most, with natts attributes: its
 * header, then walk_row_data.
 */
static pg_attribute_always_inline const char *
walk_row(const char *row, uint64 avail, int natts, const RowBatchAttr *attrs,
		 const uint8 *masks, uint64 *row_len, bool *slow, int upto,
		 Datum *values, bool *isnull)
{
	uint32		t_len;
	uint16		infomask2;
	uint16		infomask;
	uint8		t_hoff;
	uint64		hoff;
	bool		hasnull;

	if (avail < ROW_BATCH_MIN_ROW_SIZE)
		return "row header runs past the end of the batch";
	memcpy(&t_len, row + offsetof(MinimalTupleData, t_len), sizeof(t_len));
	memcpy(&infomask2, row + offsetof(MinimalTupleData, t_infomask2), sizeof(infomask2));
	memcpy(&infomask, row + offsetof(MinimalTupleData, t_infomask), sizeof(infomask));
	memcpy(&t_hoff, row + offsetof(MinimalTupleData, t_hoff), sizeof(t_hoff));

	if (t_len > avail)
		return "row runs past the end of the batch";
	if ((infomask2 & HEAP_NATTS_MASK) != natts || (infomask2 & ~HEAP_NATTS_MASK) != 0)
		return "row has a different number of columns than its batch";
	if ((infomask & ~(HEAP_HASNULL | HEAP_HASVARWIDTH)) != 0)
		return "row has unexpected flags";
	hasnull = (infomask & HEAP_HASNULL) != 0;

	/* where heap_form_minimal_tuple puts the data */
	hoff = MAXALIGN(offsetof(MinimalTupleData, t_bits) +
					(hasnull ? BITMAPLEN(natts) : 0));
	if (t_hoff != hoff + MINIMAL_TUPLE_OFFSET)
		return "row header has the wrong length";
	if (t_len < hoff)
		return "row is shorter than its header";

	*row_len = t_len;
	return walk_row_data(row + hoff, t_len - hoff,
						 hasnull ? (const bits8 *) (row + offsetof(MinimalTupleData, t_bits)) : NULL,
						 natts, attrs, masks, slow, upto, values, isnull);
}

static const char *
check_row(const char *row, uint64 avail, int natts, const RowBatchAttr *attrs,
		  const uint8 *masks, uint64 *row_len, bool *slow)
{
	return walk_row(row, avail, natts, attrs, masks, row_len, slow, natts,
					NULL, NULL);
}

const char *
row_batch_check_row(const char *row, uint64 avail, int natts,
					const RowBatchAttr *attrs, uint64 *row_len, bool *slow)
{
	uint8		masks[MaxTupleAttributeNumber];
	const char *problem = row_batch_layout(attrs, natts, masks);

	if (problem != NULL)
		return problem;
	return check_row(row, avail, natts, attrs, masks, row_len, slow);
}

/*
 * The batch header's checks; *batch_natts is the rows' number of columns,
 * *all_slow whether every row lacks a column the layout promises present.
 */
static const char *
check_header(const char *raw, uint64 rawlen, const RowBatchAttr *attrs,
			 int natts, uint32 expected_rows, int *batch_natts, bool *all_slow)
{
	RowBatchHeader hdr;
	int			i;

	if (rawlen < ROW_BATCH_HEADER_SIZE)
		return "batch shorter than its header";
	if (rawlen >= ROW_BATCH_SLOW_ROW)
		return "batch longer than a batch can be";
	memcpy(&hdr, raw, sizeof(hdr));
	if (hdr.magic != ROW_BATCH_MAGIC)
		return "batch does not start with the batch magic number";
	if (hdr.version != ROW_BATCH_VERSION)
		return "batch has an unknown format version";
	if (hdr.reserved != 0)
		return "batch header has nonzero reserved bytes";
	if (hdr.row_count != expected_rows)
		return "batch holds a different number of rows than its metadata";
	if (hdr.natts > natts || hdr.natts > MaxTupleAttributeNumber)
		return "batch has more columns than the table";
	/* a deformer that trusts NOT NULL would read columns the rows lack */
	*all_slow = false;
	for (i = hdr.natts; i < natts; i++)
		if (attrs[i].present)
			*all_slow = true;
	if ((rawlen - ROW_BATCH_HEADER_SIZE) / ROW_BATCH_MIN_ROW_SIZE < hdr.row_count)
		return "batch is too short for its number of rows";
	*batch_natts = (int) hdr.natts;
	return NULL;
}

/*
 * The walk of row_batch_check and row_batch_index: the header, the layout,
 * then each row, fully checked or (lengths_only) only as far as its length
 * and flagged ROW_BATCH_UNCHECKED.
 */
static const char *
walk_rows(const char *raw, uint64 rawlen, const RowBatchAttr *attrs,
		  int natts, uint32 expected_rows, uint32 *row_offsets,
		  bool lengths_only)
{
	uint64		off;
	uint32		i;
	int			batch_natts;
	bool		all_slow;
	uint8		masks[MaxTupleAttributeNumber];
	const char *problem;

	problem = check_header(raw, rawlen, attrs, natts, expected_rows,
						   &batch_natts, &all_slow);
	if (problem == NULL)
		problem = check_layout(attrs, batch_natts, masks);
	if (problem != NULL)
		return problem;

	off = ROW_BATCH_HEADER_SIZE;
	for (i = 0; i < expected_rows; i++)
	{
		uint64		len = 0;
		bool		slow = all_slow;

		if (lengths_only)
		{
			uint32		t_len;

			if (rawlen - off < ROW_BATCH_MIN_ROW_SIZE)
				return "row header runs past the end of the batch";
			memcpy(&t_len, raw + off + offsetof(MinimalTupleData, t_len),
				   sizeof(t_len));
			if (t_len > rawlen - off)
				return "row runs past the end of the batch";
			if (t_len < ROW_BATCH_MIN_ROW_SIZE)
				return "row is shorter than its header";
			len = t_len;
			row_offsets[i] = (uint32) off | ROW_BATCH_UNCHECKED;
		}
		else
		{
			problem = check_row(raw + off, rawlen - off, batch_natts, attrs,
								masks, &len, &slow);
			if (problem != NULL)
				return problem;
			row_offsets[i] = (uint32) off | (slow ? ROW_BATCH_SLOW_ROW : 0);
		}
		off = MAXALIGN(off + len);
		if (off > rawlen)
			return "row padding runs past the end of the batch";
	}
	if (off != rawlen)
		return "batch has trailing bytes";
	return NULL;
}

const char *
row_batch_check(const char *raw, uint64 rawlen, const RowBatchAttr *attrs,
				int natts, uint32 expected_rows, uint32 *row_offsets)
{
	return walk_rows(raw, rawlen, attrs, natts, expected_rows, row_offsets,
					 false);
}

const char *
row_batch_index(const char *raw, uint64 rawlen, const RowBatchAttr *attrs,
				int natts, uint32 expected_rows, uint32 *row_offsets)
{
	if (rawlen >= ROW_BATCH_UNCHECKED)
		return "batch longer than a batch can be";
	return walk_rows(raw, rawlen, attrs, natts, expected_rows, row_offsets,
					 true);
}

const char *
row_batch_check_one(const char *raw, uint64 rawlen, const RowBatchAttr *attrs,
					const uint8 *layout, int natts, uint32 *row_offset)
{
	RowBatchHeader hdr;
	uint32		off = ROW_BATCH_OFFSET(*row_offset);
	int			batch_natts;
	bool		all_slow;
	bool		slow;
	uint64		len = 0;
	uint8		own[MaxTupleAttributeNumber];
	const uint8 *masks = layout != NULL ? layout : own;
	const char *problem;

	if ((*row_offset & ROW_BATCH_UNCHECKED) == 0)
		return NULL;
	/* the header was checked with the offsets: read it for its counts */
	memcpy(&hdr, raw, sizeof(hdr));
	problem = check_header(raw, rawlen, attrs, natts, hdr.row_count,
						   &batch_natts, &all_slow);
	if (problem == NULL && layout == NULL)
		problem = check_layout(attrs, batch_natts, own);
	if (problem != NULL)
		return problem;
	if (off < ROW_BATCH_HEADER_SIZE || off >= rawlen)
		return "row offset outside the batch";
	slow = all_slow;
	problem = check_row(raw + off, rawlen - off, batch_natts, attrs, masks,
						&len, &slow);
	if (problem != NULL)
		return problem;
	*row_offset = off | (slow ? ROW_BATCH_SLOW_ROW : 0);
	return NULL;
}

const char *
row_batch_layout(const RowBatchAttr *attrs, int natts, uint8 *masks)
{
	if (natts > MaxTupleAttributeNumber)
		return "row has more columns than a row can have";
	return check_layout(attrs, natts, masks);
}

const char *
row_batch_read_columns(const char *raw, uint64 rawlen,
					   const RowBatchAttr *attrs, const uint8 *masks,
					   uint32 row_offset, int upto, Datum *values,
					   bool *isnull, bool *lacks)
{
	RowBatchHeader hdr;
	uint32		off = ROW_BATCH_OFFSET(row_offset);
	uint64		len;
	bool		slow = false;

	/* the header was checked with the offsets: read it for its natts */
	memcpy(&hdr, raw, sizeof(hdr));
	*lacks = hdr.natts < upto;
	if (*lacks)
		return NULL;
	if (off < ROW_BATCH_HEADER_SIZE || off >= rawlen)
		return "row offset outside the batch";
	/* the walk follows the null bitmap: NOT NULL promises do not matter */
	return walk_row(raw + off, rawlen - off, hdr.natts, attrs, masks, &len,
					&slow, upto, values, isnull);
}

#ifndef FRONTEND

/* The column layout of desc, for checking rows with it. */
void
row_batch_attrs(TupleDesc desc, RowBatchAttr *attrs)
{
	int			i;

	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		attrs[i].attlen = att->attlen;
		attrs[i].attbyval = att->attbyval;
		attrs[i].attalign = att->attalign;
		attrs[i].notnull = compat_attr_deform_notnull(desc, i);
		attrs[i].present = attrs[i].notnull && !att->atthasmissing &&
			!att->attisdropped;
	}
}

void
row_batch_begin(StringInfo buf, TupleDesc desc)
{
	RowBatchHeader hdr;

	Assert(buf->len == 0);
	memset(&hdr, 0, sizeof(hdr));
	hdr.magic = ROW_BATCH_MAGIC;
	hdr.version = ROW_BATCH_VERSION;
	hdr.natts = (uint16) desc->natts;
	appendBinaryStringInfo(buf, (char *) &hdr, sizeof(hdr));
}

static Size
header_size(TupleDesc desc, bool *isnull, bool *hasnull)
{
	int			i;

	*hasnull = false;
	for (i = 0; i < desc->natts; i++)
		if (isnull[i])
			*hasnull = true;
	return MAXALIGN(offsetof(MinimalTupleData, t_bits) +
					(*hasnull ? BITMAPLEN(desc->natts) : 0));
}

Size
row_batch_row_size(TupleDesc desc, Datum *values, bool *isnull, Size *data_len)
{
	bool		hasnull;
	Size		hoff = header_size(desc, isnull, &hasnull);

	*data_len = heap_compute_data_size(desc, values, isnull);
	return MAXALIGN(hoff + *data_len);
}

void
row_batch_append(StringInfo buf, TupleDesc desc, Datum *values, bool *isnull,
				 Size data_len)
{
	bool		hasnull;
	Size		hoff = header_size(desc, isnull, &hasnull);
	Size		len = hoff + data_len;
	Size		padded = MAXALIGN(len);
	MinimalTuple tup;

	Assert(buf->len == MAXALIGN(buf->len));
	if (len > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("row is too large for a rowcompress batch"),
				 errdetail("The row needs %zu bytes, a batch holds at most %zu.",
						   len, (Size) MaxAllocSize)));
	enlargeStringInfo(buf, (int) padded);
	tup = (MinimalTuple) (buf->data + buf->len);
	memset(tup, 0, padded);
	tup->t_len = (uint32) len;
	HeapTupleHeaderSetNatts(tup, desc->natts);
	tup->t_hoff = (uint8) (hoff + MINIMAL_TUPLE_OFFSET);
	heap_fill_tuple(desc, values, isnull, (char *) tup + hoff, data_len,
					&tup->t_infomask, hasnull ? tup->t_bits : NULL);
	buf->len += (int) padded;
	buf->data[buf->len] = '\0';
}

void
row_batch_append_tuple(StringInfo buf, MinimalTuple tup)
{
	Size		padded = MAXALIGN(tup->t_len);

	Assert(buf->len == MAXALIGN(buf->len));
	enlargeStringInfo(buf, (int) padded);
	memcpy(buf->data + buf->len, tup, tup->t_len);
	memset(buf->data + buf->len + tup->t_len, 0, padded - tup->t_len);
	buf->len += (int) padded;
	buf->data[buf->len] = '\0';
}

void
row_batch_finish(StringInfo buf, uint32 nrows)
{
	RowBatchHeader *hdr = (RowBatchHeader *) buf->data;

	hdr->row_count = nrows;
}

#endif							/* FRONTEND */
