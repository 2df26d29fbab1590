/*-------------------------------------------------------------------------
 *
 * packed_encoding.h
 *	  Packed integers: one frame of an integer-like column chunk as a
 *	  linear model and a fixed number of bits per row
 *	  (codec/packed_encoding.c).
 *
 *	  Layout (the frame's uncompressed bytes, MAXALIGNed; engine.chunk's
 *	  encoding CHUNK_ENCODING_PACKED):
 *
 *		uint32	value_count, uint32 null_count, null bitmap
 *											as in value_encoding.h
 *		zero padding to MAXALIGN
 *		int64	base
 *		int64	step
 *		uint32	bits						0 to 64: bits of each residual
 *		uint32	scale						packed decimals: the values'
 *											display scale; integers: 0
 *		residuals							one per non-NULL row, bits each,
 *											packed from the least
 *											significant bit of each byte
 *											up; exactly the bytes they need
 *
 *	  The value of row r, the k-th row holding one, is
 *	  base + step * r + residual[k] in 64-bit two's-complement arithmetic,
 *	  cut to the column's width.  Packed decimals (engine.chunk's encoding
 *	  CHUNK_ENCODING_DECIMAL) are numeric frames whose values all have one
 *	  display scale and fit 64 bits as value x 10^scale: that is what is
 *	  packed, and decoding writes each value back as numeric, byte for
 *	  byte as it was.  Ids and timestamps that grow steadily
 *	  take 0 bits, random numbers the bits of their range: a fetch by TID
 *	  reaches its row by arithmetic, without decompressing anything when
 *	  the codec could not make the frame smaller, and a scan unpacks values
 *	  without an entropy decoder.  Any bytes decode to some values; the
 *	  decoder checks lengths and counts.  Pure functions on caller
 *	  buffers, fuzzed outside the server.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_PACKED_ENCODING_H
#define STORAGE_ENGINE_PACKED_ENCODING_H

#include "codec/numeric_format.h"
#include "codec/value_encoding.h"

/*
 * Whether values of a type are stored as packed integers: pass by value,
 * 2, 4 or 8 bytes (the caller decides which types are integer-like).
 */
static inline bool
packed_type_ok(const ValueTypeInfo *type)
{
	return type->typbyval &&
		(type->typlen == 2 || type->typlen == 4 || type->typlen == 8);
}

/*
 * Appends rows values/isnull[0 .. count) of such a type, packed, to buf
 * (which must start MAXALIGNed in memory).
 */
extern void packed_encode(StringInfo buf, const ValueTypeInfo *type,
						  const Datum *values, const bool *isnull,
						  uint32 count);

/* As value_decode and value_decode_row, for a packed frame. */
extern const char *packed_decode(const char *raw, uint32 rawlen,
								 const ValueTypeInfo *type,
								 uint32 expected_count,
								 Datum *values, bool *isnull);
extern const char *packed_decode_row(const char *raw, uint32 rawlen,
									 const ValueTypeInfo *type,
									 uint32 expected_count, uint32 row,
									 Datum *value, bool *isnull);

/* As value_row_span (codec/value_encoding.h), for a packed frame. */
extern const char *packed_row_span(const char *raw, uint32 rawlen,
								   const ValueTypeInfo *type,
								   uint32 expected_count, uint32 row,
								   uint32 *start, uint32 *len);

#ifdef HAVE_SCALED_NUMERIC
/* Room a decoded packed decimal takes: a short-header numeric. */
#define PACKED_DECIMAL_SIZE		NUMERIC_WRITE_MAX_SIZE

/*
 * Whether rows values/isnull[0 .. count) of a numeric column can be packed
 * decimals: every value finite, of one display scale, fitting 64 bits
 * scaled, and written back byte for byte as it is.
 */
extern bool packed_decimal_ok(const Datum *values, const bool *isnull,
							  uint32 count);

/*
 * Appends such rows, packed (as packed_encode), and returns true; false,
 * buf unchanged, when they are not (packed_decimal_ok).
 */
extern bool packed_decimal_encode(StringInfo buf, const Datum *values,
								  const bool *isnull, uint32 count);

/*
 * As packed_decode and packed_decode_row, for a frame of packed decimals;
 * the numerics are written at made: by packed_decimal_decode each row's at
 * made + row * PACKED_DECIMAL_SIZE (room for expected_count of them), by
 * packed_decimal_decode_row the row's at made (room for one).
 */
extern const char *packed_decimal_decode(const char *raw, uint32 rawlen,
										 uint32 expected_count, char *made,
										 Datum *values, bool *isnull);
extern const char *packed_decimal_decode_row(const char *raw, uint32 rawlen,
											 uint32 expected_count,
											 uint32 row, char *made,
											 Datum *value, bool *isnull);
/*
 * As packed_decimal_decode, the values as scaled integers into
 * scaled[0 .. expected_count) (those of NULL rows untouched), no numeric
 * written: each is the mantissa and display scale numeric_to_scaled reads
 * from the numeric packed_decimal_decode writes.
 */
extern const char *packed_decimal_decode_scaled(const char *raw,
												uint32 rawlen,
												uint32 expected_count,
												ScaledNumeric *scaled,
												bool *isnull);
extern const char *packed_decimal_row_span(const char *raw, uint32 rawlen,
										   uint32 expected_count, uint32 row,
										   uint32 *start, uint32 *len);
#endif

#endif							/* STORAGE_ENGINE_PACKED_ENCODING_H */
