/*-------------------------------------------------------------------------
 *
 * value_encoding.h
 *	  The uncompressed layout of one column chunk: a count, a null bitmap
 *	  and the non-null values of one type, serialized back to back.
 *
 *	  Layout (all integers little-endian as in memory on the platforms we
 *	  support; the buffer starts MAXALIGNed):
 *
 *		uint32	value_count			rows in the chunk, NULLs included
 *		uint32	null_count
 *		uint8	bitmap[(value_count + 7) / 8]	only when null_count > 0;
 *											bit set = value present
 *		values of the present rows, in row order:
 *		  pass-by-value (typlen 1, 2, 4, 8): typlen bytes, unaligned
 *		  fixed-length by reference: typalign-aligned, typlen bytes
 *		  varlena: a short (1-byte header) varlena unaligned, otherwise
 *				   zero-padded to typalign and a 4-byte-header varlena,
 *				   never external and never compressed
 *		  cstring: the bytes and the terminating NUL
 *
 *	  The decoder is a pure function (no allocation, no ereport), so it is
 *	  fuzzed outside the server; it trusts nothing in the buffer.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_VALUE_ENCODING_H
#define STORAGE_ENGINE_VALUE_ENCODING_H

#include "postgres.h"

#include "lib/stringinfo.h"

typedef struct ValueTypeInfo
{
	int16		typlen;
	bool		typbyval;
	char		typalign;
} ValueTypeInfo;

#define VALUE_CHUNK_HEADER_SIZE (2 * sizeof(uint32))

/*
 * How a chunk's frames lay out their rows (engine.chunk.encoding; on disk,
 * never renumber): this layout, this layout with values replaced by their
 * differences (codec/delta.h), a dictionary and codes
 * (codec/dict_encoding.h), a line and bits per row, of integers or of
 * numerics as scaled integers (codec/packed_encoding.h), or a few bits per
 * character of strings of one length (codec/chars_encoding.h).
 */
#define CHUNK_ENCODING_PLAIN	0
#define CHUNK_ENCODING_DELTA	1
#define CHUNK_ENCODING_DICT		2
#define CHUNK_ENCODING_PACKED	3
#define CHUNK_ENCODING_DECIMAL	4
#define CHUNK_ENCODING_CHARS	5

/*
 * Appends the chunk of count rows to buf (which must start MAXALIGNed in
 * memory for the alignment rules to hold).  Varlena values must already
 * be detoasted (short headers allowed).
 */
extern void value_encode(StringInfo buf, const ValueTypeInfo *type,
						 const Datum *values, const bool *isnull,
						 uint32 count);

/*
 * The layouts that extend this one (codec/dict_encoding.h,
 * packed_encoding.h, chars_encoding.h) start with its header (count, NULL
 * count, bitmap), zero padding to MAXALIGN, then size bytes of their own
 * fields.  value_encode_extension appends that start, the fields copied
 * from ext; value_decode_extension checks it and copies the fields into
 * ext, setting *null_count, *bitmap (NULL without NULLs) and *off, where
 * what follows them starts.
 */
extern void value_encode_extension(StringInfo buf, const bool *isnull,
								   uint32 count, const void *ext, Size size);
extern const char *value_decode_extension(const char *raw, uint32 rawlen,
										  uint32 expected_count,
										  uint32 *null_count,
										  const uint8 **bitmap, void *ext,
										  Size size, Size *off);

/*
 * Decodes a chunk of exactly expected_count rows from raw[0 .. rawlen).
 * raw must be MAXALIGNed.  By-reference values point into raw.  Returns
 * NULL on success, or a static string saying what is wrong.
 */
extern const char *value_decode(const char *raw, uint32 rawlen,
								const ValueTypeInfo *type,
								uint32 expected_count,
								Datum *values, bool *isnull);

/*
 * Where value_decode_row stopped in one chunk: the rows it has walked past,
 * so that a later row of the same chunk is reached from there instead of
 * from the chunk's first value.  Lookups of scattered rows come in row
 * order (a bitmap's TID order), often several to a chunk.  Zeroed: nothing
 * walked yet.  Valid only for the chunk that filled it.
 */
typedef struct ValueWalk
{
	uint32		next_row;		/* rows before it are walked past */
	uint32		present;		/* values stored in those rows */
	Size		off;			/* just after those values */
} ValueWalk;

/*
 * Decodes row (0-based) of such a chunk into *value / *isnull, reading only
 * the header, the NULL bitmap and what precedes the row's value (all of it
 * bounds-checked; the rest of the chunk is not looked at).  With walk (NULL
 * for none), starts where the previous call on this chunk stopped when row
 * lies at or after it, and records where this one stops.
 */
extern const char *value_decode_row(const char *raw, uint32 rawlen,
									const ValueTypeInfo *type,
									uint32 expected_count, uint32 row,
									ValueWalk *walk,
									Datum *value, bool *isnull);

/*
 * Walks of one chunk kept to reach any row from close by: marks[k] is where
 * a walk stood at or before row k * VALUE_MARK_ROWS (next_row 0: nothing
 * known, the chunk's start).  A chunk decoded row by row many times (a
 * cached frame of wide values, each lookup wanting one row) walks at most
 * VALUE_MARK_ROWS rows' values past a mark instead of all values before the
 * row.  nmarks = VALUE_MARKS(expected_count), zeroed at first.  Every 8
 * rows: a walk costs a lookup a cache miss per few values, and marks
 * 16 bytes per 8 rows of a frame of wide values (docs/architecture.md).
 */
#define VALUE_MARK_ROWS		8
#define VALUE_MARKS(rows)	((rows) / VALUE_MARK_ROWS + 1)

/*
 * value_decode_row from the nearest known mark, leaving in marks where the
 * walk passed.  Marks must have been filled by calls on this same chunk.
 */
extern const char *value_decode_row_marked(const char *raw, uint32 rawlen,
										   const ValueTypeInfo *type,
										   uint32 expected_count, uint32 row,
										   ValueWalk *marks,
										   Datum *value, bool *isnull);

/* Rows with a value (a set bit in bitmap) among rows [from, to). */
extern uint32 value_present_between(const uint8 *bitmap, uint32 from,
									uint32 to);

/*
 * For the same layouts, all rows at once: sets isnull[0 .. expected_count)
 * by the null_count and bitmap value_decode_extension gives, and values[]
 * of the NULL rows to 0 (unless values is NULL), having checked that the
 * bitmap holds exactly expected_count - null_count values.  Returns NULL,
 * or what is wrong.
 */
extern const char *value_null_flags(const uint8 *bitmap, uint32 null_count,
									uint32 expected_count, Datum *values,
									bool *isnull);

/*
 * Where row (0-based) of a chunk of expected_count rows stands, by the
 * null_count and bitmap value_decode_extension gives: *isnull, and when it
 * holds a value, *present, the values stored before it (one per non-NULL
 * row).  For layouts that store one code or value per non-NULL row.
 * Returns NULL, or what is wrong.
 */
extern const char *value_row_position(const uint8 *bitmap, uint32 null_count,
									  uint32 expected_count, uint32 row,
									  bool *isnull, uint32 *present);

/*
 * Reading one row of a frame stored uncompressed (a fetch by TID): for the
 * layouts whose values have one width (pass-by-value values here, packed
 * integers, decimals and characters), a row's decoding looks only at the
 * frame's first VALUE_PREFIX_BYTES(count) bytes or fewer (header, NULL
 * bitmap, a layout's own fields, at most VALUE_EXTENSION_MAX bytes) and at
 * the span of bytes its *_row_span function names: [*start, *start + *len),
 * empty when the row is NULL.  The span functions read only that prefix
 * (raw holds at least Min(rawlen, VALUE_PREFIX_BYTES(expected_count))
 * bytes) and bound the span by rawlen; the rest of raw may hold anything.
 */
#define VALUE_EXTENSION_MAX		64
#define VALUE_PREFIX_BYTES(count) \
	(MAXALIGN(VALUE_CHUNK_HEADER_SIZE + ((Size) (count) + 7) / 8) + \
	 VALUE_EXTENSION_MAX)

/* Whether value_row_span serves values of type: pass by value, 1-8 bytes. */
static inline bool
value_spans_rows(const ValueTypeInfo *type)
{
	return type->typbyval &&
		(type->typlen == 1 || type->typlen == 2 ||
		 type->typlen == 4 || type->typlen == 8);
}

extern const char *value_row_span(const char *raw, uint32 rawlen,
								  const ValueTypeInfo *type,
								  uint32 expected_count, uint32 row,
								  uint32 *start, uint32 *len);

/* Offset of the values in a chunk of count rows with null_count NULLs. */
static inline Size
chunk_values_start(uint32 count, uint32 null_count)
{
	return VALUE_CHUNK_HEADER_SIZE + (null_count > 0 ? ((Size) count + 7) / 8 : 0);
}

#endif							/* STORAGE_ENGINE_VALUE_ENCODING_H */
