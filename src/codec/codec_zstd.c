/*-------------------------------------------------------------------------
 *
 * codec_zstd.c
 *	  The "zstd" codec: one Zstandard frame per buffer, levels 1 to 19,
 *	  default 3.
 *
 *	  A compression context costs from hundreds of kB to tens of MB to set
 *	  up, so one ZSTD_CCtx and one ZSTD_DCtx are created lazily and cached
 *	  per thread (per backend process in the server) for reuse; they are
 *	  library memory (malloc), not palloc, and codec_zstd_release() frees
 *	  them.  A one-shot call resets the context, so a failed call leaves
 *	  nothing behind for the next one.
 *
 *	  Decoding accepts exactly one standard frame that spans the whole
 *	  input: the magic number is checked first, so the library's legacy
 *	  (pre-1.0) decoders are never reached from disk bytes, and
 *	  ZSTD_findFrameCompressedSize() must equal srclen, so neither trailing
 *	  bytes nor further frames are accepted.  ZSTD_decompressDCtx() then
 *	  decodes straight into dst, never past rawlen bytes, and must return
 *	  exactly rawlen.
 *
 *	  Built only with HAVE_LIBZSTD and its header present (see
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
#ifdef CODEC_BUILD_ZSTD
#include <zstd.h>
#endif

#define ZSTD_CODEC_MIN_LEVEL		1
#define ZSTD_CODEC_MAX_LEVEL		19
#define ZSTD_CODEC_DEFAULT_LEVEL	3

#ifdef CODEC_BUILD_ZSTD

#ifdef CODEC_THREAD_LOCAL
static CODEC_THREAD_LOCAL ZSTD_CCtx *zstd_cctx = NULL;
static CODEC_THREAD_LOCAL ZSTD_DCtx *zstd_dctx = NULL;
#endif

static ZSTD_CCtx *
zstd_cctx_get(void)
{
#ifdef CODEC_THREAD_LOCAL
	if (zstd_cctx == NULL)
		zstd_cctx = ZSTD_createCCtx();
	return zstd_cctx;
#else
	return ZSTD_createCCtx();
#endif
}

static void
zstd_cctx_put(ZSTD_CCtx *cctx)
{
#ifndef CODEC_THREAD_LOCAL
	ZSTD_freeCCtx(cctx);
#endif
}

static ZSTD_DCtx *
zstd_dctx_get(void)
{
#ifdef CODEC_THREAD_LOCAL
	if (zstd_dctx == NULL)
		zstd_dctx = ZSTD_createDCtx();
	return zstd_dctx;
#else
	return ZSTD_createDCtx();
#endif
}

static void
zstd_dctx_put(ZSTD_DCtx *dctx)
{
#ifndef CODEC_THREAD_LOCAL
	ZSTD_freeDCtx(dctx);
#endif
}

void
codec_zstd_release(void)
{
#ifdef CODEC_THREAD_LOCAL
	ZSTD_freeCCtx(zstd_cctx);	/* both accept NULL */
	ZSTD_freeDCtx(zstd_dctx);
	zstd_cctx = NULL;
	zstd_dctx = NULL;
#endif
}

static int32
zstd_codec_bound(int32 srclen)
{
	size_t		bound;

	if (srclen < 0)
		return -1;
	bound = ZSTD_compressBound((size_t) srclen);
	if (ZSTD_isError(bound) || bound > (size_t) PG_INT32_MAX)
		return -1;
	return (int32) bound;
}

static int32
zstd_codec_compress(const char *src, int32 srclen, char *dst, int32 dstcap,
					int level)
{
	ZSTD_CCtx  *cctx;
	size_t		result;

	if (srclen <= 0 || dstcap <= 0)
		return -1;
	cctx = zstd_cctx_get();
	if (cctx == NULL)
		return -1;

	level = codec_effective_level(&codec_zstd, level);
	result = ZSTD_compressCCtx(cctx, dst, (size_t) dstcap, src,
							   (size_t) srclen, level);
	zstd_cctx_put(cctx);

	/* An error here is dstSize_tooSmall or out of memory. */
	if (ZSTD_isError(result) || result >= (size_t) srclen ||
		result > (size_t) dstcap)
		return -1;
	return (int32) result;
}

static bool
zstd_codec_decompress(const char *src, int32 srclen, char *dst, int32 rawlen)
{
	const unsigned char *s = (const unsigned char *) src;
	ZSTD_DCtx  *dctx;
	uint32		magic;
	size_t		framelen;
	size_t		result;

	if (srclen < 4 || rawlen < 0)
		return false;

	/* One standard frame, little-endian magic first. */
	magic = (uint32) s[0] | ((uint32) s[1] << 8) |
		((uint32) s[2] << 16) | ((uint32) s[3] << 24);
	if (magic != ZSTD_MAGICNUMBER)
		return false;
	framelen = ZSTD_findFrameCompressedSize(src, (size_t) srclen);
	if (ZSTD_isError(framelen) || framelen != (size_t) srclen)
		return false;

	dctx = zstd_dctx_get();
	if (dctx == NULL)
		return false;
	result = ZSTD_decompressDCtx(dctx, dst, (size_t) rawlen, src,
								 (size_t) srclen);
	zstd_dctx_put(dctx);

	return !ZSTD_isError(result) && result == (size_t) rawlen;
}

const Codec codec_zstd = {
	.id = CODEC_ZSTD,
	.name = "zstd",
	.min_level = ZSTD_CODEC_MIN_LEVEL,
	.max_level = ZSTD_CODEC_MAX_LEVEL,
	.default_level = ZSTD_CODEC_DEFAULT_LEVEL,
	.available = true,
	.bound = zstd_codec_bound,
	.compress = zstd_codec_compress,
	.decompress = zstd_codec_decompress,
};

#else							/* !CODEC_BUILD_ZSTD */

void
codec_zstd_release(void)
{
}

const Codec codec_zstd = {
	.id = CODEC_ZSTD,
	.name = "zstd",
	.min_level = ZSTD_CODEC_MIN_LEVEL,
	.max_level = ZSTD_CODEC_MAX_LEVEL,
	.default_level = ZSTD_CODEC_DEFAULT_LEVEL,
	.available = false,
};

#endif							/* CODEC_BUILD_ZSTD */
