/*-------------------------------------------------------------------------
 *
 * value_encoding.c
 *	  Serialization of one column chunk's values (layout in
 *	  value_encoding.h).
 *
 *	  Values keep PostgreSQL's in-memory representation, so decoding is a
 *	  walk that yields Datums pointing into the decompressed buffer, with
 *	  no per-value copy.  The alignment rule for varlenas is heap's: pad
 *	  bytes are zero and a short varlena header never is, so the decoder
 *	  knows whether to align without extra bookkeeping.
 *
 *-------------------------------------------------------------------------
 */
/*
 * Server code and, with FRONTEND defined, the fuzz harness (test/fuzz).
 * postgres.h is FRONTEND-safe (pg_controldata and pg_resetwal use it the
 * same way) and is where Datum lives, so this file needs it in both; the
 * server-only compat.h is not included, only its varlena part.
 */
#include "postgres.h"

#include "compat/compat_varatt.h"

#include "catalog/pg_type_d.h"
#include "port/pg_bitutils.h"

#include "codec/value_encoding.h"

static Size
align_offset(Size off, char typalign)
{
	switch (typalign)
	{
		case TYPALIGN_SHORT:
			return SHORTALIGN(off);
		case TYPALIGN_INT:
			return INTALIGN(off);
		case TYPALIGN_DOUBLE:
			return DOUBLEALIGN(off);
		default:
			return off;
	}
}

/*
 * Appends len bytes.  Chunks are encoded into a buffer reused from frame to
 * frame, so it rarely needs enlarging: the test inline, the call rare.
 */
static inline void
put_bytes(StringInfo buf, const void *src, Size len)
{
	if ((Size) (buf->maxlen - buf->len) <= len)
		enlargeStringInfo(buf, (int) len);
	memcpy(buf->data + buf->len, src, len);
	buf->len += (int) len;
}

static void
append_zeros(StringInfo buf, Size n)
{
	static const char zeros[8] = {0};

	while (n > 0)
	{
		Size		k = Min(n, sizeof(zeros));

		put_bytes(buf, zeros, k);
		n -= k;
	}
}

/* typlen bytes of each non-NULL Datum, as fetch_att would read them */
#define ENCODE_BY_VALUE_LOOP(ctype, from_datum) \
	for (i = 0; i < count; i++) \
	{ \
		ctype		v; \
\
		if (isnull[i]) \
			continue; \
		v = from_datum(values[i]); \
		memcpy(dst, &v, sizeof(ctype)); \
		dst += sizeof(ctype); \
	}

static void
append_by_value(StringInfo buf, int16 typlen, const Datum *values,
				const bool *isnull, uint32 count, uint32 present)
{
	char	   *dst;
	uint32		i;

	enlargeStringInfo(buf, (int) ((Size) present * typlen));
	dst = buf->data + buf->len;
	switch (typlen)
	{
		case 1:
			ENCODE_BY_VALUE_LOOP(char, DatumGetChar);
			break;
		case 2:
			ENCODE_BY_VALUE_LOOP(int16, DatumGetInt16);
			break;
		case 4:
			ENCODE_BY_VALUE_LOOP(int32, DatumGetInt32);
			break;
		default:
			ENCODE_BY_VALUE_LOOP(int64, DatumGetInt64);
			break;
	}
	buf->len = (int) (dst - buf->data);
}

/* One by-reference value, aligned as heap would align it. */
static void
append_by_reference(StringInfo buf, Size base, const ValueTypeInfo *type,
					Datum value)
{
	if (type->typlen > 0)
	{
		Size		off = buf->len - base;

		append_zeros(buf, align_offset(off, type->typalign) - off);
		put_bytes(buf, DatumGetPointer(value), type->typlen);
	}
	else if (type->typlen == -1)
	{
		struct varlena *v = (struct varlena *) DatumGetPointer(value);

		Assert(!VARATT_IS_EXTERNAL(v) && !VARATT_IS_COMPRESSED(v));
		if (VARATT_IS_SHORT(v))
			put_bytes(buf, v, VARSIZE_SHORT(v));
		else if (VARATT_CAN_MAKE_SHORT(v))
		{
			uint8		hdr;
			Size		datalen = VARSIZE(v) - VARHDRSZ;

			SET_VARSIZE_SHORT(&hdr, VARATT_CONVERTED_SHORT_SIZE(v));
			put_bytes(buf, &hdr, 1);
			put_bytes(buf, VARDATA(v), datalen);
		}
		else
		{
			Size		off = buf->len - base;

			append_zeros(buf, align_offset(off, type->typalign) - off);
			put_bytes(buf, v, VARSIZE(v));
		}
	}
	else
	{
		const char *s = DatumGetCString(value);

		put_bytes(buf, s, strlen(s) + 1);
	}
}

/*
 * Appends the header (count, NULL count, bitmap) of a chunk of count rows;
 * returns the NULL count.
 */
static uint32
value_encode_header(StringInfo buf, const bool *isnull, uint32 count)
{
	uint32		null_count = 0;
	uint32		i;

	for (i = 0; i < count; i++)
		null_count += isnull[i];

	put_bytes(buf, &count, sizeof(uint32));
	put_bytes(buf, &null_count, sizeof(uint32));
	if (null_count > 0)
	{
		uint32		nbytes = (count + 7) / 8;
		uint8	   *bitmap;

		enlargeStringInfo(buf, (int) nbytes);
		bitmap = (uint8 *) buf->data + buf->len;
		memset(bitmap, 0, nbytes);
		for (i = 0; i < count; i++)
			if (!isnull[i])
				bitmap[i / 8] |= (uint8) (1 << (i % 8));
		buf->len += nbytes;
	}
	return null_count;
}

void
value_encode_extension(StringInfo buf, const bool *isnull, uint32 count,
					   const void *ext, Size size)
{
	int			start = buf->len;

	value_encode_header(buf, isnull, count);
	append_zeros(buf, MAXALIGN(buf->len - start) - (buf->len - start));
	put_bytes(buf, ext, size);
	buf->data[buf->len] = '\0';
}

void
value_encode(StringInfo buf, const ValueTypeInfo *type,
			 const Datum *values, const bool *isnull, uint32 count)
{
	Size		base = buf->len;
	uint32		null_count = value_encode_header(buf, isnull, count);
	uint32		i;

	if (type->typbyval)
		append_by_value(buf, type->typlen, values, isnull, count,
						count - null_count);
	else
		for (i = 0; i < count; i++)
			if (!isnull[i])
				append_by_reference(buf, base, type, values[i]);
	buf->data[buf->len] = '\0';
}

/*
 * Pass-by-value values are typlen bytes each, back to back: the length is
 * checked once for all of them and each width gets a loop of its own
 * (most chunks of numbers and dates have no NULL at all).
 */
#define DECODE_BY_VALUE_LOOP(ctype, to_datum) \
	for (i = 0; i < count; i++) \
	{ \
		ctype		v; \
\
		if (bitmap != NULL && (bitmap[i / 8] & (1 << (i % 8))) == 0) \
		{ \
			isnull[i] = true; \
			values[i] = (Datum) 0; \
			continue; \
		} \
		if (present >= expected) \
			return "null bitmap disagrees with the null count"; \
		memcpy(&v, data + (Size) present * sizeof(ctype), sizeof(ctype)); \
		values[i] = to_datum(v); \
		isnull[i] = false; \
		present++; \
	}

static const char *
decode_by_value(const char *data, Size len, int16 typlen, uint32 count,
				const uint8 *bitmap, uint32 null_count, Datum *values,
				bool *isnull)
{
	uint32		expected = count - null_count;
	uint32		present = 0;
	uint32		i;

	if (typlen != 1 && typlen != 2 && typlen != 4 && typlen != 8)
		return "pass-by-value type with an unsupported length";
	if ((Size) expected * typlen > len)
		return "value runs past the end of the chunk";
	switch (typlen)
	{
		case 1:
			DECODE_BY_VALUE_LOOP(char, CharGetDatum);
			break;
		case 2:
			DECODE_BY_VALUE_LOOP(int16, Int16GetDatum);
			break;
		case 4:
			DECODE_BY_VALUE_LOOP(int32, Int32GetDatum);
			break;
		default:
			DECODE_BY_VALUE_LOOP(int64, Int64GetDatum);
			break;
	}
	if (present != expected)
		return "null bitmap disagrees with the null count";
	if ((Size) present * typlen != len)
		return "chunk has trailing bytes";
	return NULL;
}

/*
 * The header of a chunk of expected_count rows: sets *null_count, *bitmap
 * (NULL without NULLs) and *off, where the values start.
 */
static const char *
value_decode_header(const char *raw, uint32 rawlen, uint32 expected_count,
					uint32 *null_count, const uint8 **bitmap, Size *off)
{
	uint32		count;

	if (rawlen < VALUE_CHUNK_HEADER_SIZE)
		return "chunk shorter than its header";
	memcpy(&count, raw, sizeof(uint32));
	memcpy(null_count, raw + sizeof(uint32), sizeof(uint32));
	if (count != expected_count)
		return "chunk holds a different number of rows than its metadata";
	if (*null_count > count)
		return "chunk has more NULLs than rows";
	*off = VALUE_CHUNK_HEADER_SIZE;
	*bitmap = NULL;
	if (*null_count > 0)
	{
		Size		nbytes = ((Size) count + 7) / 8;

		if (nbytes > rawlen - *off)
			return "null bitmap runs past the end of the chunk";
		*bitmap = (const uint8 *) raw + *off;
		*off += nbytes;
	}
	return NULL;
}

const char *
value_decode_extension(const char *raw, uint32 rawlen, uint32 expected_count,
					   uint32 *null_count, const uint8 **bitmap, void *ext,
					   Size size, Size *off)
{
	const char *problem = value_decode_header(raw, rawlen, expected_count,
											  null_count, bitmap, off);

	if (problem != NULL)
		return problem;
	*off = MAXALIGN(*off);
	if (*off > rawlen || rawlen - *off < size)
		return "frame header runs past the end of the frame";
	memcpy(ext, raw + *off, size);
	*off += size;
	return NULL;
}

/*
 * The by-reference value at *off (a value of a type not passed by value),
 * checked against the chunk's end; advances *off past it.
 */
static const char *
decode_by_reference(const char *raw, uint32 rawlen, const ValueTypeInfo *type,
					Size *off, Datum *value)
{
	Size		o = *off;

	if (type->typlen > 0)
	{
		o = align_offset(o, type->typalign);
		if (o > rawlen || (Size) type->typlen > rawlen - o)
			return "value runs past the end of the chunk";
		*value = PointerGetDatum(raw + o);
		*off = o + type->typlen;
	}
	else if (type->typlen == -1)
	{
		Size		len;

		if (o >= rawlen)
			return "value runs past the end of the chunk";
		if (raw[o] == 0)
		{
			o = align_offset(o, type->typalign);
			if (o >= rawlen)
				return "value runs past the end of the chunk";
		}
		if (VARATT_IS_1B_E(raw + o))
			return "external TOAST pointer inside a chunk";
		if (VARATT_IS_1B(raw + o))
		{
			len = VARSIZE_1B(raw + o);
			if (len < VARHDRSZ_SHORT)
				return "short varlena with an impossible length";
		}
		else
		{
			varattrib_4b hdr;	/* the header, as the macros see it */

			if (VARHDRSZ > rawlen - o)
				return "varlena header runs past the end of the chunk";
			if (align_offset(o, type->typalign) != o)
				return "misaligned varlena";
			memcpy(&hdr, raw + o, VARHDRSZ);
			if (VARATT_IS_4B_C(&hdr))
				return "compressed varlena inside a chunk";
			len = VARSIZE_4B(&hdr);
			if (len < VARHDRSZ)
				return "varlena with an impossible length";
		}
		if (len > rawlen - o)
			return "varlena runs past the end of the chunk";
		*value = PointerGetDatum(raw + o);
		*off = o + len;
	}
	else if (type->typlen == -2)
	{
		const char *end;

		if (o >= rawlen)
			return "value runs past the end of the chunk";
		end = memchr(raw + o, '\0', rawlen - o);
		if (end == NULL)
			return "cstring without its terminator";
		*value = PointerGetDatum(raw + o);
		*off = (end - raw) + 1;
	}
	else
		return "unsupported type length";
	return NULL;
}

const char *
value_decode(const char *raw, uint32 rawlen, const ValueTypeInfo *type,
			 uint32 expected_count, Datum *values, bool *isnull)
{
	uint32		null_count;
	uint32		seen_nulls = 0;
	const uint8 *bitmap;
	Size		off;
	uint32		i;
	const char *problem;

	problem = value_decode_header(raw, rawlen, expected_count, &null_count,
								  &bitmap, &off);
	if (problem != NULL)
		return problem;
	if (type->typbyval)
		return decode_by_value(raw + off, rawlen - off, type->typlen,
							   expected_count, bitmap, null_count, values,
							   isnull);

	for (i = 0; i < expected_count; i++)
	{
		if (bitmap != NULL && (bitmap[i / 8] & (1 << (i % 8))) == 0)
		{
			isnull[i] = true;
			values[i] = (Datum) 0;
			seen_nulls++;
			continue;
		}
		isnull[i] = false;
		problem = decode_by_reference(raw, rawlen, type, &off, &values[i]);
		if (problem != NULL)
			return problem;
	}
	if (seen_nulls != null_count)
		return "null bitmap disagrees with the null count";
	if (off != rawlen)
		return "chunk has trailing bytes";
	return NULL;
}

/* Rows with a value (a set bit in bitmap) among rows [from, to). */
uint32
value_present_between(const uint8 *bitmap, uint32 from, uint32 to)
{
	uint32		n = 0;

	while (from < to && from % 8 != 0)
	{
		n += (bitmap[from / 8] >> (from % 8)) & 1;
		from++;
	}
	if (to - from >= 8)
	{
		n += (uint32) pg_popcount((const char *) bitmap + from / 8,
								  (to - from) / 8);
		from += (to - from) / 8 * 8;
	}
	while (from < to)
	{
		n += (bitmap[from / 8] >> (from % 8)) & 1;
		from++;
	}
	return n;
}

const char *
value_null_flags(const uint8 *bitmap, uint32 null_count,
				 uint32 expected_count, Datum *values, bool *isnull)
{
	uint32		i;

	if (bitmap == NULL)
	{
		memset(isnull, 0, expected_count);
		return NULL;
	}
	if (value_present_between(bitmap, 0, expected_count) !=
		expected_count - null_count)
		return "null bitmap disagrees with the null count";
	for (i = 0; i < expected_count; i++)
	{
		isnull[i] = (bitmap[i / 8] & (1 << (i % 8))) == 0;
		if (isnull[i] && values != NULL)
			values[i] = (Datum) 0;
	}
	return NULL;
}

const char *
value_row_position(const uint8 *bitmap, uint32 null_count,
				   uint32 expected_count, uint32 row, bool *isnull,
				   uint32 *present)
{
	if (row >= expected_count)
		return "row past the end of the chunk";
	*isnull = bitmap != NULL && (bitmap[row / 8] & (1 << (row % 8))) == 0;
	if (*isnull)
		return NULL;
	*present = bitmap == NULL ? row : value_present_between(bitmap, 0, row);
	if (*present >= expected_count - null_count)
		return "null bitmap disagrees with the null count";
	return NULL;
}

const char *
value_row_span(const char *raw, uint32 rawlen, const ValueTypeInfo *type,
			   uint32 expected_count, uint32 row, uint32 *start, uint32 *len)
{
	uint32		null_count;
	const uint8 *bitmap;
	Size		values_start;
	Size		off;
	uint32		present;
	bool		isnull;
	const char *problem;

	*start = 0;
	*len = 0;
	if (!value_spans_rows(type))
		return "values of varying width have no span of their own";
	problem = value_decode_header(raw, rawlen, expected_count, &null_count,
								  &bitmap, &values_start);
	if (problem == NULL)
		problem = value_row_position(bitmap, null_count, expected_count, row,
									 &isnull, &present);
	if (problem != NULL || isnull)
		return problem;
	off = values_start + (Size) present * type->typlen;
	if (off > rawlen || (Size) type->typlen > rawlen - off)
		return "value runs past the end of the chunk";
	*start = (uint32) off;
	*len = (uint32) type->typlen;
	return NULL;
}

const char *
value_decode_row(const char *raw, uint32 rawlen, const ValueTypeInfo *type,
				 uint32 expected_count, uint32 row, ValueWalk *walk,
				 Datum *value, bool *isnull)
{
	uint32		null_count;
	const uint8 *bitmap;
	Size		values_start;
	Size		off;
	uint32		from = 0;		/* first row not walked past */
	uint32		walked = 0;		/* values stored before from */
	uint32		present;		/* values stored before row */
	uint32		i;
	const char *problem;

	problem = value_decode_header(raw, rawlen, expected_count, &null_count,
								  &bitmap, &values_start);
	if (problem != NULL)
		return problem;
	if (row >= expected_count)
		return "row past the end of the chunk";
	*isnull = bitmap != NULL && (bitmap[row / 8] & (1 << (row % 8))) == 0;
	*value = (Datum) 0;
	if (*isnull)
		return NULL;
	off = values_start;
	if (walk != NULL && walk->next_row > 0 && walk->next_row <= row)
	{
		from = walk->next_row;
		walked = walk->present;
		off = walk->off;
	}
	/* values stored before row: one per non-NULL row before it */
	present = walked + (bitmap == NULL ? row - from :
						value_present_between(bitmap, from, row));
	if (present >= expected_count - null_count)
		return "null bitmap disagrees with the null count";

	if (type->typbyval)
	{
		Size		len = (Size) type->typlen;

		if (len != 1 && len != 2 && len != 4 && len != 8)
			return "pass-by-value type with an unsupported length";
		off = values_start + (Size) present * len;
		if (off > rawlen || len > rawlen - off)
			return "value runs past the end of the chunk";
		switch (len)
		{
			case 1:
				*value = CharGetDatum(raw[off]);
				break;
			case 2:
				{
					int16		v;

					memcpy(&v, raw + off, 2);
					*value = Int16GetDatum(v);
					break;
				}
			case 4:
				{
					int32		v;

					memcpy(&v, raw + off, 4);
					*value = Int32GetDatum(v);
					break;
				}
			default:
				{
					int64		v;

					memcpy(&v, raw + off, 8);
					*value = Int64GetDatum(v);
					break;
				}
		}
		return NULL;
	}

	/*
	 * By reference: walk past the values stored between the start (or where
	 * the last call stopped) and row.  Short varlenas (most text values) are
	 * stepped over in a tight loop; anything else goes through the full
	 * checks.
	 */
	for (i = walked; i < present; i++)
	{
		if (type->typlen == -1 && off < rawlen && raw[off] != 0 &&
			VARATT_IS_1B(raw + off) && !VARATT_IS_1B_E(raw + off))
		{
			Size		len = VARSIZE_1B(raw + off);

			if (len < VARHDRSZ_SHORT || len > rawlen - off)
				return "short varlena with an impossible length";
			off += len;
		}
		else
		{
			problem = decode_by_reference(raw, rawlen, type, &off, value);
			if (problem != NULL)
				return problem;
		}
	}
	problem = decode_by_reference(raw, rawlen, type, &off, value);
	if (problem == NULL && walk != NULL)
	{
		walk->next_row = row + 1;
		walk->present = present + 1;
		walk->off = off;
	}
	return problem;
}

const char *
value_decode_row_marked(const char *raw, uint32 rawlen,
						const ValueTypeInfo *type, uint32 expected_count,
						uint32 row, ValueWalk *marks, Datum *value,
						bool *isnull)
{
	uint32		k = Min(row, expected_count) / VALUE_MARK_ROWS;
	ValueWalk	walk;
	uint32		null_count;
	const uint8 *bitmap;
	Size		values_start;
	const char *problem;

	/*
	 * A NULL row (or a damaged header) is answered without walking, as
	 * value_decode_row alone does: walking to the marks before it could
	 * meet damage that the answer does not depend on.
	 */
	problem = value_decode_header(raw, rawlen, expected_count, &null_count,
								  &bitmap, &values_start);
	if (problem != NULL || row >= expected_count ||
		(bitmap != NULL && (bitmap[row / 8] & (1 << (row % 8))) == 0))
		return value_decode_row(raw, rawlen, type, expected_count, row, NULL,
								value, isnull);

	/* the last mark known at or before row */
	while (k > 0 && (marks[k].next_row == 0 || marks[k].next_row > row))
		k--;
	walk = marks[k];

	/* on to each later mark's row before row, leaving a mark there */
	for (k++; (uint64) k * VALUE_MARK_ROWS < row; k++)
	{
		Datum		skipped;
		bool		skipped_null;

		problem = value_decode_row(raw, rawlen, type, expected_count,
								   k * VALUE_MARK_ROWS, &walk, &skipped,
								   &skipped_null);
		if (problem != NULL)
			return problem;
		/* a NULL row leaves the walk where it was: still a good mark */
		if (walk.next_row > 0)
			marks[k] = walk;
	}
	return value_decode_row(raw, rawlen, type, expected_count, row, &walk,
							value, isnull);
}
