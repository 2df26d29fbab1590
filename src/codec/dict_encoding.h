/*-------------------------------------------------------------------------
 *
 * dict_encoding.h
 *	  Dictionary encoding of one frame of a column chunk: its distinct
 *	  values once, then a small code per row (codec/dict_encoding.c).
 *
 *	  Layout (the frame's uncompressed bytes, MAXALIGNed; engine.chunk's
 *	  encoding CHUNK_ENCODING_DICT):
 *
 *		uint32	value_count, uint32 null_count, null bitmap
 *											as in value_encoding.h
 *		zero padding to MAXALIGN
 *		uint32	dict_length					bytes of the dictionary
 *		uint32	code_bits					0 to 8: bits of each code
 *		the dictionary						a value_encoding.h chunk of the
 *											frame's distinct values (1 to
 *											DICT_MAX_ENTRIES, no NULLs), in
 *											order of first appearance
 *		codes								one per non-NULL row, code_bits
 *											each, packed from the least
 *											significant bit of each byte up;
 *											exactly the bytes they need
 *
 *	  code_bits is the fewest bits that number every entry (0 for one).
 *	  Values keep PostgreSQL's in-memory representation, so decoding yields
 *	  Datums pointing into the dictionary.  Pure functions on caller
 *	  buffers, fuzzed outside the server.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_DICT_ENCODING_H
#define STORAGE_ENGINE_DICT_ENCODING_H

#include "codec/value_encoding.h"

#define DICT_MAX_ENTRIES		256

/*
 * Appends rows values/isnull[0 .. count) of a type passed by reference,
 * dictionary-encoded, to buf (which must start MAXALIGNed in memory), and
 * returns true; returns false, buf unchanged, when they hold more than
 * DICT_MAX_ENTRIES distinct values.  Equal means equal bytes.
 */
extern bool dict_encode(StringInfo buf, const ValueTypeInfo *type,
						const Datum *values, const bool *isnull,
						uint32 count);

/* Distinct values among rows [0 .. count), counting no further than limit. */
extern uint32 dict_count_distinct(const ValueTypeInfo *type,
								  const Datum *values, const bool *isnull,
								  uint32 count, uint32 limit);

/* As value_decode and value_decode_row, for a dictionary-encoded frame. */
extern const char *dict_decode(const char *raw, uint32 rawlen,
							   const ValueTypeInfo *type,
							   uint32 expected_count,
							   Datum *values, bool *isnull);
extern const char *dict_decode_row(const char *raw, uint32 rawlen,
								   const ValueTypeInfo *type,
								   uint32 expected_count, uint32 row,
								   Datum *value, bool *isnull);

#endif							/* STORAGE_ENGINE_DICT_ENCODING_H */
