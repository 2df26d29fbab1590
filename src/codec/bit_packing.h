/*-------------------------------------------------------------------------
 *
 * bit_packing.h
 *	  Numbers of a fixed width packed back to back, from the least
 *	  significant bit of each byte up: the codes of dictionary-encoded
 *	  frames, the residuals of packed integers, the characters of packed
 *	  strings.  Inline pure functions on caller buffers.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_BIT_PACKING_H
#define STORAGE_ENGINE_BIT_PACKING_H

#include "port/pg_bitutils.h"
#include "port/pg_bswap.h"

/* Bytes n numbers of bits bits take packed. */
static inline uint64
bits_bytes(uint64 n, uint32 bits)
{
	return (n * bits + 7) / 8;
}

/* The fewest bits holding every number up to max. */
static inline uint32
bits_for(uint64 max)
{
	return max == 0 ? 0 : pg_leftmost_one_pos64(max) + 1;
}

/*
 * Numbers written one after another from bit 0 of out, a word at a time
 * (ORing them in a byte at a time took 40 instructions a number packing a
 * column's characters).  Once finished it has written exactly the
 * bits_bytes of what it was given: out needs no zeroing.
 */
typedef struct BitWriter
{
	uint8	   *out;
	uint64		pending;		/* bits not yet stored, from the lowest */
	uint32		npending;		/* under 32 between calls */
} BitWriter;

static inline void
bit_writer_init(BitWriter *w, uint8 *out)
{
	w->out = out;
	w->pending = 0;
	w->npending = 0;
}

/* Appends the low bits bits (up to 32) of v. */
static inline void
bit_writer_put32(BitWriter *w, uint64 v, uint32 bits)
{
	w->pending |= (v & ((UINT64CONST(1) << bits) - 1)) << w->npending;
	w->npending += bits;
	if (w->npending >= 32)
	{
		uint32		word = (uint32) w->pending;

#ifdef WORDS_BIGENDIAN
		word = pg_bswap32(word);
#endif
		memcpy(w->out, &word, sizeof(word));
		w->out += sizeof(word);
		w->pending >>= 32;
		w->npending -= 32;
	}
}

/* Appends the low bits bits (up to 64) of v. */
static inline void
bit_writer_put(BitWriter *w, uint64 v, uint32 bits)
{
	if (bits > 32)
	{
		bit_writer_put32(w, v, 32);
		v >>= 32;
		bits -= 32;
	}
	bit_writer_put32(w, v, bits);
}

/* Stores the bits still pending, in as few bytes as hold them. */
static inline void
bit_writer_finish(BitWriter *w)
{
	while (w->npending > 0)
	{
		*w->out++ = (uint8) w->pending;
		w->pending >>= 8;
		w->npending -= Min(w->npending, 8);
	}
}

/*
 * The bits-wide number (0 to 64 bits) at bit position bit of p[0 .. len),
 * which must hold it entirely (callers prove their packed numbers fill
 * exactly len bytes).
 */
static inline uint64
get_bits(const uint8 *p, uint64 len, uint64 bit, uint32 bits)
{
	uint64		byte = bit / 8;
	uint32		shift = (uint32) (bit % 8);
	uint64		v = 0;

	if (bits == 0)
		return 0;
	if (byte + sizeof(uint64) <= len)
		memcpy(&v, p + byte, sizeof(uint64));
	else
		memcpy(&v, p + byte, len - byte);
#ifdef WORDS_BIGENDIAN
	v = pg_bswap64(v);
#endif
	v >>= shift;
	if (shift + bits > 64)
		v |= (uint64) p[byte + sizeof(uint64)] << (64 - shift);
	return bits == 64 ? v : v & ((UINT64CONST(1) << bits) - 1);
}

/*
 * The bytes get_bits reads to extract nbits bits from first_bit on (in
 * calls of at most 64 bits each), of codes of codes_len bytes at codes_off
 * in their frame: *start and *len, within the codes.
 */
static inline void
bits_span(uint64 codes_off, uint64 codes_len, uint64 first_bit, uint64 nbits,
		  uint32 *start, uint32 *len)
{
	uint64		from = Min(first_bit / 8, codes_len);
	uint64		to = Min((first_bit + nbits) / 8 + sizeof(uint64) + 1,
						 codes_len);

	*start = (uint32) (codes_off + from);
	*len = nbits == 0 ? 0 : (uint32) (to - from);
}

#endif							/* STORAGE_ENGINE_BIT_PACKING_H */
