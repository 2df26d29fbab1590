/*-------------------------------------------------------------------------
 *
 * codec_pglz.c
 *	  The "pglz" codec: PostgreSQL's own LZ compressor from
 *	  common/pg_lzcompress.h, always available.  It has no levels.
 *
 *	  Two things make this more than a thin wrapper.
 *
 *	  pglz_compress() writes into its output without a capacity argument:
 *	  it stops once the output reaches a size limit derived from the
 *	  strategy's min_comp_rate, and may overrun that limit by up to four
 *	  bytes (the slop PGLZ_MAX_OUTPUT allows for).  We build the strategy
 *	  per call, choosing the smallest min_comp_rate whose limit plus that
 *	  slop fits in the caller's dstcap, so a short buffer is never overrun.
 *
 *	  pglz_decompress() (PostgreSQL 15 and 18 alike) checks match offsets,
 *	  but in its source it reads a match tag's second and extension bytes
 *	  before checking that they lie inside the input, so a truncated tag
 *	  may be read up to two bytes past src + srclen (whether the machine
 *	  code really does depends on the compiler); and it accepts a last
 *	  match that runs past rawlen, silently cut short.  pglz_exact_stream()
 *	  therefore walks the tags first and accepts only a stream that stays
 *	  inside both buffers and describes exactly rawlen bytes, with no match
 *	  cut short (the compressor never emits one).  Only then do we let
 *	  pglz_decompress() copy the bytes.  The walk touches the compressed
 *	  bytes only, so it costs a small fraction of the decompression.
 *
 *	  pglz_compress() keeps its history table in static variables of
 *	  libpgcommon / the server, so compression (not decompression) is not
 *	  thread-safe; the server is single-threaded per process.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include <limits.h>

#include "common/pg_lzcompress.h"

#include "codec.h"
#include "codec_impl.h"

/* Bytes pglz_compress() may write past its size limit (see PGLZ_MAX_OUTPUT). */
#define PGLZ_OVERRUN_SLOP	4

/* The strategy values of PGLZ_strategy_default, except min_comp_rate. */
#define PGLZ_MIN_INPUT		32
#define PGLZ_FIRST_SUCCESS	1024
#define PGLZ_MATCH_GOOD		128
#define PGLZ_MATCH_DROP		10

/* The output size limit pglz_compress() derives from a min_comp_rate. */
static int32
pglz_result_limit(int32 srclen, int rate)
{
	if (srclen > INT_MAX / 100)
		return (srclen / 100) * (100 - rate);
	return (srclen * (100 - rate)) / 100;
}

static int32
pglz_codec_bound(int32 srclen)
{
	if (srclen < 0 || srclen > PG_INT32_MAX - PGLZ_OVERRUN_SLOP)
		return -1;
	return PGLZ_MAX_OUTPUT(srclen);
}

static int32
pglz_codec_compress(const char *src, int32 srclen, char *dst, int32 dstcap,
					int level)
{
	PGLZ_Strategy strategy;
	int			rate;
	int32		result;

	if (srclen < PGLZ_MIN_INPUT || dstcap <= 0)
		return -1;

	/*
	 * Smallest compression rate whose output limit, plus the overrun slop,
	 * fits in dstcap.  With enough room that is rate 0: accept any output
	 * smaller than the input.
	 */
	for (rate = 0; rate < 100; rate++)
	{
		if ((int64) pglz_result_limit(srclen, rate) + PGLZ_OVERRUN_SLOP <=
			(int64) dstcap)
			break;
	}
	if (rate >= 100)
		return -1;

	strategy.min_input_size = PGLZ_MIN_INPUT;
	strategy.max_input_size = PG_INT32_MAX;
	strategy.min_comp_rate = rate;
	strategy.first_success_by = PGLZ_FIRST_SUCCESS;
	strategy.match_size_good = PGLZ_MATCH_GOOD;
	strategy.match_size_drop = PGLZ_MATCH_DROP;

	result = pglz_compress(src, srclen, dst, &strategy);
	if (result < 0 || result >= srclen || result > dstcap)
		return -1;
	return result;
}

/*
 * Walks the pglz tags in src exactly as pglz_decompress() will, and returns
 * true only when every tag lies inside src, every match copies from bytes
 * already produced and ends inside the output, and the stream ends exactly
 * at src + srclen having produced exactly rawlen bytes.
 *
 * The format: a control byte announces the next eight items, bit i (LSB
 * first) set for a match tag and clear for a literal byte.  A match tag is
 * two bytes, length-3 in the low nibble of the first, offset in its high
 * nibble and the second byte; length nibble 15 means a third byte adds
 * 0..255 to the length.
 */
static bool
pglz_exact_stream(const unsigned char *sp, int32 srclen, int32 rawlen)
{
	const unsigned char *srcend = sp + srclen;
	int32		produced = 0;

	while (sp < srcend && produced < rawlen)
	{
		unsigned char ctrl = *sp++;
		int			item;

		for (item = 0; item < 8 && sp < srcend && produced < rawlen; item++)
		{
			if (ctrl & 1)
			{
				int32		len;
				int32		off;

				if (srcend - sp < 2)
					return false;
				len = (sp[0] & 0x0f) + 3;
				off = ((sp[0] & 0xf0) << 4) | sp[1];
				sp += 2;
				if (len == 18)
				{
					if (sp >= srcend)
						return false;
					len += *sp++;
				}
				if (off == 0 || off > produced || len > rawlen - produced)
					return false;
				produced += len;
			}
			else
			{
				sp++;
				produced++;
			}
			ctrl >>= 1;
		}
	}
	return sp == srcend && produced == rawlen;
}

static bool
pglz_codec_decompress(const char *src, int32 srclen, char *dst, int32 rawlen)
{
	if (srclen < 0 || rawlen < 0)
		return false;
	if (!pglz_exact_stream((const unsigned char *) src, srclen, rawlen))
		return false;
	if (rawlen == 0)
		return true;			/* empty stream, nothing to copy */
	return pglz_decompress(src, srclen, dst, rawlen, true) == rawlen;
}

const Codec codec_pglz = {
	.id = CODEC_PGLZ,
	.name = "pglz",
	.min_level = 0,
	.max_level = 0,
	.default_level = 0,
	.available = true,
	.bound = pglz_codec_bound,
	.compress = pglz_codec_compress,
	.decompress = pglz_codec_decompress,
};
