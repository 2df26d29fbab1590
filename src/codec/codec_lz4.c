/*-------------------------------------------------------------------------
 *
 * codec_lz4.c
 *	  The "lz4" codec over liblz4's block format (no frame header: the
 *	  caller records both lengths).  Level 1, the default, is LZ4's fast
 *	  compressor; levels 2 to 12 use LZ4 HC at that level, slower to write
 *	  and just as fast to read.  Decoding uses LZ4_decompress_safe, which
 *	  the library guarantees never to read or write outside the buffers it
 *	  is given, whatever the input.
 *
 *	  The LZ4 HC state (a few hundred kB) is allocated on first use and
 *	  cached per thread; codec_lz4_release() frees it.
 *
 *	  Built only with HAVE_LIBLZ4 and its header present (see
 *	  codec_impl.h); otherwise the record stays in the registry, marked
 *	  unavailable.
 *
 *-------------------------------------------------------------------------
 */
#ifdef FRONTEND
#include "postgres_fe.h"
#else
#include "postgres.h"
#endif

#include "codec.h"
#include "codec_impl.h"

/* After codec_impl.h, which decides whether this codec is built. */
#ifdef CODEC_BUILD_LZ4
#include <stdlib.h>
#include <lz4.h>
#include <lz4hc.h>
#endif

#define LZ4_CODEC_MIN_LEVEL		1
#define LZ4_CODEC_MAX_LEVEL		12
#define LZ4_CODEC_DEFAULT_LEVEL	1

#ifdef CODEC_BUILD_LZ4

#ifdef CODEC_THREAD_LOCAL
static CODEC_THREAD_LOCAL void *lz4_hc_state = NULL;
#endif

/* The HC state for this call: the cached one, or a new one to free after. */
static void *
lz4_hc_state_get(void)
{
#ifdef CODEC_THREAD_LOCAL
	if (lz4_hc_state == NULL)
		lz4_hc_state = malloc(LZ4_sizeofStateHC());
	return lz4_hc_state;
#else
	return malloc(LZ4_sizeofStateHC());
#endif
}

static void
lz4_hc_state_put(void *state)
{
#ifndef CODEC_THREAD_LOCAL
	free(state);
#endif
}

void
codec_lz4_release(void)
{
#ifdef CODEC_THREAD_LOCAL
	free(lz4_hc_state);
	lz4_hc_state = NULL;
#endif
}

static int32
lz4_codec_bound(int32 srclen)
{
	if (srclen < 0 || srclen > LZ4_MAX_INPUT_SIZE)
		return -1;
	return LZ4_compressBound(srclen);
}

static int32
lz4_codec_compress(const char *src, int32 srclen, char *dst, int32 dstcap,
				   int level)
{
	int			result;

	if (srclen <= 0 || srclen > LZ4_MAX_INPUT_SIZE || dstcap <= 0)
		return -1;

	level = codec_effective_level(&codec_lz4, level);
	if (level <= 1)
		result = LZ4_compress_fast(src, dst, srclen, dstcap, 1);
	else
	{
		void	   *state = lz4_hc_state_get();

		if (state == NULL)
			return -1;
		result = LZ4_compress_HC_extStateHC(state, src, dst, srclen, dstcap,
											level);
		lz4_hc_state_put(state);
	}

	/* 0 means the output did not fit in dstcap. */
	if (result <= 0 || result >= srclen || result > dstcap)
		return -1;
	return result;
}

static bool
lz4_codec_decompress(const char *src, int32 srclen, char *dst, int32 rawlen)
{
	if (srclen <= 0 || rawlen < 0)
		return false;

	/*
	 * The safe decoder stops with an error rather than leave either buffer,
	 * and succeeds only when the block's last sequence ends exactly at
	 * src + srclen; its result is the number of bytes written.
	 */
	return LZ4_decompress_safe(src, dst, srclen, rawlen) == rawlen;
}

const Codec codec_lz4 = {
	.id = CODEC_LZ4,
	.name = "lz4",
	.min_level = LZ4_CODEC_MIN_LEVEL,
	.max_level = LZ4_CODEC_MAX_LEVEL,
	.default_level = LZ4_CODEC_DEFAULT_LEVEL,
	.available = true,
	.bound = lz4_codec_bound,
	.compress = lz4_codec_compress,
	.decompress = lz4_codec_decompress,
};

#else							/* !CODEC_BUILD_LZ4 */

void
codec_lz4_release(void)
{
}

const Codec codec_lz4 = {
	.id = CODEC_LZ4,
	.name = "lz4",
	.min_level = LZ4_CODEC_MIN_LEVEL,
	.max_level = LZ4_CODEC_MAX_LEVEL,
	.default_level = LZ4_CODEC_DEFAULT_LEVEL,
	.available = false,
};

#endif							/* CODEC_BUILD_LZ4 */
