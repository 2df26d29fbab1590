/*-------------------------------------------------------------------------
 *
 * codec_deflate.c
 *	  The "deflate" codec: raw DEFLATE (RFC 1951, no zlib or gzip wrapper:
 *	  the caller records the lengths) through libdeflate, levels 1 to 12,
 *	  default 6.
 *
 *	  libdeflate wants an allocated compressor per level and a
 *	  decompressor; the last compressor used (with its level) and one
 *	  decompressor are cached per thread, and codec_deflate_release() frees
 *	  them.
 *
 *	  libdeflate's decoder never reads past the end of its input (it feeds
 *	  itself virtual zero bytes and fails if it consumed them) and never
 *	  writes past the output size it is given.  Decoding succeeds only when
 *	  the stream ends (final block) exactly at src + srclen, byte-aligned,
 *	  having produced exactly rawlen bytes.
 *
 *	  Built only with HAVE_LIBDEFLATE and its header present (see
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
#ifdef CODEC_BUILD_DEFLATE
#include <libdeflate.h>
#endif

#define DEFLATE_CODEC_MIN_LEVEL		1
#define DEFLATE_CODEC_MAX_LEVEL		12
#define DEFLATE_CODEC_DEFAULT_LEVEL	6

#ifdef CODEC_BUILD_DEFLATE

#ifdef CODEC_THREAD_LOCAL
static CODEC_THREAD_LOCAL struct libdeflate_compressor *deflate_compressor = NULL;
static CODEC_THREAD_LOCAL int deflate_compressor_level = 0;
static CODEC_THREAD_LOCAL struct libdeflate_decompressor *deflate_decompressor = NULL;
#endif

/* A compressor for level: the cached one if its level matches, else new. */
static struct libdeflate_compressor *
deflate_compressor_get(int level)
{
#ifdef CODEC_THREAD_LOCAL
	if (deflate_compressor != NULL && deflate_compressor_level != level)
	{
		libdeflate_free_compressor(deflate_compressor);
		deflate_compressor = NULL;
	}
	if (deflate_compressor == NULL)
	{
		deflate_compressor = libdeflate_alloc_compressor(level);
		deflate_compressor_level = level;
	}
	return deflate_compressor;
#else
	return libdeflate_alloc_compressor(level);
#endif
}

static void
deflate_compressor_put(struct libdeflate_compressor *compressor)
{
#ifndef CODEC_THREAD_LOCAL
	libdeflate_free_compressor(compressor);
#endif
}

static struct libdeflate_decompressor *
deflate_decompressor_get(void)
{
#ifdef CODEC_THREAD_LOCAL
	if (deflate_decompressor == NULL)
		deflate_decompressor = libdeflate_alloc_decompressor();
	return deflate_decompressor;
#else
	return libdeflate_alloc_decompressor();
#endif
}

static void
deflate_decompressor_put(struct libdeflate_decompressor *decompressor)
{
#ifndef CODEC_THREAD_LOCAL
	libdeflate_free_decompressor(decompressor);
#endif
}

void
codec_deflate_release(void)
{
#ifdef CODEC_THREAD_LOCAL
	libdeflate_free_compressor(deflate_compressor);	/* both accept NULL */
	libdeflate_free_decompressor(deflate_decompressor);
	deflate_compressor = NULL;
	deflate_compressor_level = 0;
	deflate_decompressor = NULL;
#endif
}

static int32
deflate_codec_bound(int32 srclen)
{
	size_t		bound;

	if (srclen < 0)
		return -1;
	/* A NULL compressor gives the bound over every level. */
	bound = libdeflate_deflate_compress_bound(NULL, (size_t) srclen);
	if (bound > (size_t) PG_INT32_MAX)
		return -1;
	return (int32) bound;
}

static int32
deflate_codec_compress(const char *src, int32 srclen, char *dst, int32 dstcap,
					   int level)
{
	struct libdeflate_compressor *compressor;
	size_t		result;

	if (srclen <= 0 || dstcap <= 0)
		return -1;
	level = codec_effective_level(&codec_deflate, level);
	compressor = deflate_compressor_get(level);
	if (compressor == NULL)
		return -1;

	/* 0 means the output did not fit in dstcap. */
	result = libdeflate_deflate_compress(compressor, src, (size_t) srclen,
										 dst, (size_t) dstcap);
	deflate_compressor_put(compressor);

	if (result == 0 || result >= (size_t) srclen || result > (size_t) dstcap)
		return -1;
	return (int32) result;
}

static bool
deflate_codec_decompress(const char *src, int32 srclen, char *dst,
						 int32 rawlen)
{
	struct libdeflate_decompressor *decompressor;
	enum libdeflate_result result;
	size_t		in_used = 0;
	size_t		out_made = 0;

	if (srclen <= 0 || rawlen < 0)
		return false;
	decompressor = deflate_decompressor_get();
	if (decompressor == NULL)
		return false;

	result = libdeflate_deflate_decompress_ex(decompressor,
											  src, (size_t) srclen,
											  dst, (size_t) rawlen,
											  &in_used, &out_made);
	deflate_decompressor_put(decompressor);

	return result == LIBDEFLATE_SUCCESS &&
		in_used == (size_t) srclen &&
		out_made == (size_t) rawlen;
}

const Codec codec_deflate = {
	.id = CODEC_DEFLATE,
	.name = "deflate",
	.min_level = DEFLATE_CODEC_MIN_LEVEL,
	.max_level = DEFLATE_CODEC_MAX_LEVEL,
	.default_level = DEFLATE_CODEC_DEFAULT_LEVEL,
	.available = true,
	.bound = deflate_codec_bound,
	.compress = deflate_codec_compress,
	.decompress = deflate_codec_decompress,
};

#else							/* !CODEC_BUILD_DEFLATE */

void
codec_deflate_release(void)
{
}

const Codec codec_deflate = {
	.id = CODEC_DEFLATE,
	.name = "deflate",
	.min_level = DEFLATE_CODEC_MIN_LEVEL,
	.max_level = DEFLATE_CODEC_MAX_LEVEL,
	.default_level = DEFLATE_CODEC_DEFAULT_LEVEL,
	.available = false,
};

#endif							/* CODEC_BUILD_DEFLATE */
