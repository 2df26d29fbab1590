/*-------------------------------------------------------------------------
 *
 * chars_encoding.h
 *	  Packed characters: one frame of a variable-length column whose values
 *	  are all as long and spelled with at most 16 distinct bytes (hex
 *	  hashes, digit strings), each byte a code of a few bits
 *	  (codec/chars_encoding.c).
 *
 *	  Layout (the frame's uncompressed bytes, MAXALIGNed; engine.chunk's
 *	  encoding CHUNK_ENCODING_CHARS):
 *
 *		uint32	value_count, uint32 null_count, null bitmap
 *											as in value_encoding.h
 *		zero padding to MAXALIGN
 *		uint32	length						bytes of every value, 1 to
 *											CHARS_MAX_LENGTH (its varlena
 *											header excluded)
 *		uint32	symbols						1 to CHARS_MAX_SYMBOLS
 *		uint32	bits						the fewest numbering the
 *											symbols (0 for one)
 *		uint32	reserved					0
 *		uint8	alphabet[CHARS_MAX_SYMBOLS]	the symbols, increasing, then
 *											zeros
 *		codes								length per non-NULL row, bits
 *											each, packed from the least
 *											significant bit of each byte
 *											up; exactly the bytes they need
 *
 *	  A value is its varlena payload, byte for byte; decoding writes it
 *	  behind a 1-byte header.  A fetch by TID reaches its row by arithmetic
 *	  without an entropy decoder, in as many bytes as zstd's Huffman coding
 *	  of the same characters leaves.  Pure functions on caller buffers,
 *	  fuzzed outside the server.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_CHARS_ENCODING_H
#define STORAGE_ENGINE_CHARS_ENCODING_H

#include "codec/value_encoding.h"

#define CHARS_MAX_SYMBOLS	16
/* the longest value a 1-byte varlena header holds */
#define CHARS_MAX_LENGTH	126

/* Room a decoded value takes at most: header and payload. */
#define CHARS_VALUE_ROOM	(1 + CHARS_MAX_LENGTH)

/*
 * Whether rows values/isnull[0 .. count) of a variable-length column can be
 * packed characters: every value CHARS_MAX_LENGTH bytes or fewer, all as
 * long, of at most CHARS_MAX_SYMBOLS distinct bytes together.
 */
extern bool chars_ok(const Datum *values, const bool *isnull, uint32 count);

/*
 * Appends such rows, packed, to buf (which must start MAXALIGNed in
 * memory) and returns true; false, buf unchanged, when they are not
 * (chars_ok).
 */
extern bool chars_encode(StringInfo buf, const Datum *values,
						 const bool *isnull, uint32 count);

/*
 * As value_decode and value_decode_row, for a frame of packed characters;
 * chars_decode writes each row's value at made + row * CHARS_VALUE_ROOM
 * (made has room for expected_count of them), chars_decode_row the row's
 * at made (room for one).
 */
extern const char *chars_decode(const char *raw, uint32 rawlen,
								uint32 expected_count, char *made,
								Datum *values, bool *isnull);
extern const char *chars_decode_row(const char *raw, uint32 rawlen,
									uint32 expected_count, uint32 row,
									char *made, Datum *value, bool *isnull);

/* As value_row_span (codec/value_encoding.h), for packed characters. */
extern const char *chars_row_span(const char *raw, uint32 rawlen,
								  uint32 expected_count, uint32 row,
								  uint32 *start, uint32 *len);

#endif							/* STORAGE_ENGINE_CHARS_ENCODING_H */
