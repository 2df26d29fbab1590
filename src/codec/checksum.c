/*-------------------------------------------------------------------------
 *
 * checksum.c
 *	  The CRC-32C of stored units (checksum.h).  Scans verify the checksum
 *	  of every chunk they read, so its speed is the speed of a scan: it was
 *	  6% of a colcompress query summing two columns.
 *
 *	  PostgreSQL's CRC on x86-64 feeds the crc32 instruction one stream of
 *	  eight-byte words.  Each instruction waits for the previous one's
 *	  result (three cycles), though the processor could start one a cycle.
 *	  So on x86-64 with SSE 4.2 we feed it three independent streams, the
 *	  three thirds of each 3 kB of the input, and join their CRCs: the CRC
 *	  of a || b is the CRC of a shifted over |b| zero bytes, xor the CRC of b
 *	  started from zero.  That holds because the CRC register's update is
 *	  linear over GF(2) once the initial and final inversions are left out,
 *	  as COMP_CRC32C leaves them out.  Shifting over a fixed number of zero
 *	  bytes is a fixed linear map of the 32-bit register, applied a byte of
 *	  the register at a time through four tables of 256 entries, built once.
 *	  An input shorter than a round, or its tail, goes through one stream.
 *	  Without SSE 4.2, on other processors, and where PostgreSQL (18 and
 *	  later) found its AVX-512 CRC usable, which is faster still,
 *	  PostgreSQL's COMP_CRC32C.
 *
 *	  Server code and, with FRONTEND defined, the fuzz harness (test/fuzz),
 *	  which checks that both give the same value.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "port/pg_crc32c.h"

#include "codec/checksum.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define THREE_STREAMS 1
#include <nmmintrin.h>
#endif

#ifdef THREE_STREAMS

/* bytes each of the three streams takes in a round */
#define STREAM_BYTES 1024

/* CRC-32C's polynomial, bit-reversed as the register holds it */
#define CRC32C_REVERSED_POLY 0x82F63B78

/* -1: not known yet; 0: no crc32 instruction; 1: tables built */
static int	three_streams = -1;

/* shift_table[k][b]: register b << 8k after STREAM_BYTES zero bytes */
static uint32 shift_table[4][256];

/* A linear map of the register, as the images of its 32 bits. */
typedef uint32 RegisterMap[32];

static uint32
map_apply(const RegisterMap map, uint32 reg)
{
	uint32		result = 0;
	int			bit;

	for (bit = 0; reg != 0; bit++, reg >>= 1)
		if (reg & 1)
			result ^= map[bit];
	return result;
}

/* *dst = a after b; dst may not be a or b */
static void
map_compose(RegisterMap dst, const RegisterMap a, const RegisterMap b)
{
	int			bit;

	for (bit = 0; bit < 32; bit++)
		dst[bit] = map_apply(a, b[bit]);
}

static void
build_shift_table(void)
{
	RegisterMap power;			/* one zero bit, squared as we go */
	RegisterMap shift;			/* the zero bits taken so far */
	RegisterMap next;
	uint64		bits = (uint64) STREAM_BYTES * 8;
	int			bit;
	int			k;

	/* a zero bit shifts the register right, folding the bit shifted out */
	power[0] = CRC32C_REVERSED_POLY;
	for (bit = 1; bit < 32; bit++)
		power[bit] = (uint32) 1 << (bit - 1);
	for (bit = 0; bit < 32; bit++)
		shift[bit] = (uint32) 1 << bit;
	for (; bits != 0; bits >>= 1)
	{
		if (bits & 1)
		{
			map_compose(next, power, shift);
			memcpy(shift, next, sizeof(RegisterMap));
		}
		map_compose(next, power, power);
		memcpy(power, next, sizeof(RegisterMap));
	}
	for (k = 0; k < 4; k++)
	{
		int			b;

		for (b = 0; b < 256; b++)
			shift_table[k][b] = map_apply(shift, (uint32) b << (8 * k));
	}
}

static inline uint32
shift_over_stream(uint32 reg)
{
	return shift_table[0][reg & 0xFF] ^ shift_table[1][(reg >> 8) & 0xFF] ^
		shift_table[2][(reg >> 16) & 0xFF] ^ shift_table[3][reg >> 24];
}

/* COMP_CRC32C's update of reg by len bytes at p */
__attribute__((target("sse4.2")))
static uint32
crc32c_three_streams(uint32 reg, const unsigned char *p, size_t len)
{
	uint64		word;

	while (len >= 3 * STREAM_BYTES)
	{
		uint64		a = reg;
		uint64		b = 0;
		uint64		c = 0;
		size_t		i;

		for (i = 0; i < STREAM_BYTES; i += 8)
		{
			uint64		wa,
						wb,
						wc;

			memcpy(&wa, p + i, 8);
			memcpy(&wb, p + STREAM_BYTES + i, 8);
			memcpy(&wc, p + 2 * STREAM_BYTES + i, 8);
			a = _mm_crc32_u64(a, wa);
			b = _mm_crc32_u64(b, wb);
			c = _mm_crc32_u64(c, wc);
		}
		reg = shift_over_stream((uint32) a) ^ (uint32) b;
		reg = shift_over_stream(reg) ^ (uint32) c;
		p += 3 * STREAM_BYTES;
		len -= 3 * STREAM_BYTES;
	}
	for (; len >= 8; p += 8, len -= 8)
	{
		memcpy(&word, p, 8);
		reg = (uint32) _mm_crc32_u64(reg, word);
	}
	for (; len > 0; p++, len--)
		reg = _mm_crc32_u8(reg, *p);
	return reg;
}

#endif							/* THREE_STREAMS */

uint32
checksum_bytes(const void *data, size_t len)
{
	pg_crc32c	crc;

#ifdef THREE_STREAMS
	if (three_streams < 0)
	{
		__builtin_cpu_init();
		three_streams = __builtin_cpu_supports("sse4.2") ? 1 : 0;
#ifdef USE_AVX512_CRC32C_WITH_RUNTIME_CHECK
		/* a first call through the pointer makes PostgreSQL choose */
		(void) pg_comp_crc32c(0, "", 0);
		if (pg_comp_crc32c == pg_comp_crc32c_avx512)
			three_streams = 0;
#endif
		if (three_streams)
			build_shift_table();
	}
	if (three_streams)
		return crc32c_three_streams(0xFFFFFFFF, data, len) ^ 0xFFFFFFFF;
#endif
	INIT_CRC32C(crc);
	COMP_CRC32C(crc, data, len);
	FIN_CRC32C(crc);
	return (uint32) crc;
}
