/*-------------------------------------------------------------------------
 *
 * codec_impl.h
 *	  Private to src/codec: the records each codec file exports to the
 *	  registry, and small helpers shared by the codec implementations.
 *	  Code outside src/codec uses codec.h only.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_CODEC_IMPL_H
#define STORAGE_ENGINE_CODEC_IMPL_H

#include "codec.h"

/*
 * Which optional codecs to build.  The Makefile defines HAVE_LIBLZ4,
 * HAVE_LIBZSTD and HAVE_LIBDEFLATE when it finds the library's header.  But
 * PostgreSQL's own pg_config.h also defines HAVE_LIBLZ4 and HAVE_LIBZSTD
 * when the server was built with them (Debian's PostgreSQL 15 is), whether
 * or not the headers are installed on the machine building us, and we
 * cannot tell the two apart.  So a codec is built only when, in addition,
 * its header is really there; the Makefile then links its library too.
 */
#ifdef HAVE_LIBLZ4
#ifdef __has_include
#if __has_include(<lz4.h>) && __has_include(<lz4hc.h>)
#define CODEC_BUILD_LZ4 1
#endif
#else
#define CODEC_BUILD_LZ4 1
#endif
#endif

#ifdef HAVE_LIBZSTD
#ifdef __has_include
#if __has_include(<zstd.h>)
#define CODEC_BUILD_ZSTD 1
#endif
#else
#define CODEC_BUILD_ZSTD 1
#endif
#endif

#ifdef HAVE_LIBDEFLATE
#ifdef __has_include
#if __has_include(<libdeflate.h>)
#define CODEC_BUILD_DEFLATE 1
#endif
#else
#define CODEC_BUILD_DEFLATE 1
#endif
#endif

/* One record per codec file; codec.c indexes them by id. */
extern const Codec codec_none;
extern const Codec codec_pglz;
extern const Codec codec_lz4;
extern const Codec codec_zstd;
extern const Codec codec_deflate;

/*
 * Each codec that caches library contexts frees the calling thread's cache
 * here; codec_release_resources() calls them all.  Defined in every build,
 * a no-op when the library is absent.
 */
extern void codec_lz4_release(void);
extern void codec_zstd_release(void);
extern void codec_deflate_release(void);

/*
 * Library contexts are cached per thread, never in plain globals, so the
 * codec functions stay safe to call from several threads at once (the
 * server has one thread per process; tools built outside it may have
 * more).  Without a known thread-local storage class the codecs allocate
 * and free their contexts on every call instead.
 */
#if defined(__GNUC__) || defined(__clang__)
#define CODEC_THREAD_LOCAL __thread
#elif defined(_MSC_VER)
#define CODEC_THREAD_LOCAL __declspec(thread)
#endif

/*
 * The level a compress call runs at: 0 selects the codec's default, other
 * values are clamped into [min_level, max_level].
 */
static inline int
codec_effective_level(const Codec *codec, int level)
{
	if (level == 0)
		return codec->default_level;
	if (level < codec->min_level)
		return codec->min_level;
	if (level > codec->max_level)
		return codec->max_level;
	return level;
}

#endif							/* STORAGE_ENGINE_CODEC_IMPL_H */
