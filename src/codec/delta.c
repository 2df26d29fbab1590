/*-------------------------------------------------------------------------
 *
 * delta.c
 *	  Delta transform of fixed-width integers (see delta.h).
 *
 *	  Value i is replaced by value[i] - value[i-1] (value[-1] = 0), with
 *	  unsigned, wrapping arithmetic of the value's width; decoding is the
 *	  running sum.  Values are read and written with memcpy: the region is
 *	  not aligned.
 *
 *-------------------------------------------------------------------------
 */
#include "c.h"

#include "codec/delta.h"

#define DELTA_IMPL(type) \
	static void \
	delta_encode_##type(char *buf, uint32 n) \
	{ \
		type		prev = 0; \
		uint32		i; \
		for (i = 0; i < n; i++) \
		{ \
			type		v; \
			type		d; \
			memcpy(&v, buf + (Size) i * sizeof(type), sizeof(type)); \
			d = (type) (v - prev); \
			memcpy(buf + (Size) i * sizeof(type), &d, sizeof(type)); \
			prev = v; \
		} \
	} \
	static void \
	delta_decode_##type(char *buf, uint32 n) \
	{ \
		type		acc = 0; \
		uint32		i; \
		for (i = 0; i < n; i++) \
		{ \
			type		d; \
			memcpy(&d, buf + (Size) i * sizeof(type), sizeof(type)); \
			acc = (type) (acc + d); \
			memcpy(buf + (Size) i * sizeof(type), &acc, sizeof(type)); \
		} \
	}

DELTA_IMPL(uint16)
DELTA_IMPL(uint32)
DELTA_IMPL(uint64)

void
delta_encode(char *buf, uint32 n, int width)
{
	switch (width)
	{
		case 2:
			delta_encode_uint16(buf, n);
			break;
		case 4:
			delta_encode_uint32(buf, n);
			break;
		case 8:
			delta_encode_uint64(buf, n);
			break;
	}
}

void
delta_decode(char *buf, uint32 n, int width)
{
	switch (width)
	{
		case 2:
			delta_decode_uint16(buf, n);
			break;
		case 4:
			delta_decode_uint32(buf, n);
			break;
		case 8:
			delta_decode_uint64(buf, n);
			break;
	}
}
