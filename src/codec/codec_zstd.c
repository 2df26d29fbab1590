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
 *	  Dictionaries (codec.h): trained with fastCover at fixed parameters
 *	  (one pass, no search: a stripe's sixteen columns train in a few
 *	  milliseconds), stored without their id in the frames that use them,
 *	  loaded by reference into the caller's workspace.  A dictionary from
 *	  disk must be a complete zstd dictionary (magic number and entropy
 *	  tables, ZSTD_dct_fullDict); the library checks its tables as it loads
 *	  them.
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
/*
 * Dictionaries are made ready in caller-provided memory
 * (ZSTD_initStaticCDict/DDict) and trained with fastCover: "static" APIs
 * of the libzstd we link against, exported by its shared library.
 */
#define ZSTD_STATIC_LINKING_ONLY
#define ZDICT_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zdict.h>
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

/*
 * A compression call's result as the codec contract wants it: -1 for an
 * error (dstSize_tooSmall or out of memory) or output not smaller than the
 * input.
 */
static int32
zstd_compressed_length(size_t result, int32 srclen, int32 dstcap)
{
	if (ZSTD_isError(result) || result >= (size_t) srclen ||
		result > (size_t) dstcap)
		return -1;
	return (int32) result;
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
	return zstd_compressed_length(result, srclen, dstcap);
}

/* One standard frame spanning exactly srclen bytes, checked before decoding. */
static bool
zstd_one_frame(const char *src, int32 srclen)
{
	const unsigned char *s = (const unsigned char *) src;
	uint32		magic;
	size_t		framelen;

	if (srclen < 4)
		return false;
	/* little-endian magic first */
	magic = (uint32) s[0] | ((uint32) s[1] << 8) |
		((uint32) s[2] << 16) | ((uint32) s[3] << 24);
	if (magic != ZSTD_MAGICNUMBER)
		return false;
	framelen = ZSTD_findFrameCompressedSize(src, (size_t) srclen);
	return !ZSTD_isError(framelen) && framelen == (size_t) srclen;
}

static bool
zstd_codec_decompress(const char *src, int32 srclen, char *dst, int32 rawlen)
{
	ZSTD_DCtx  *dctx;
	size_t		result;

	if (rawlen < 0 || !zstd_one_frame(src, srclen))
		return false;
	dctx = zstd_dctx_get();
	if (dctx == NULL)
		return false;
	result = ZSTD_decompressDCtx(dctx, dst, (size_t) rawlen, src,
								 (size_t) srclen);
	zstd_dctx_put(dctx);

	return !ZSTD_isError(result) && result == (size_t) rawlen;
}

/*
 * fastCover at one parameter set (k, d, f): good enough on column data,
 * where the search over parameters (steps > 0) costs 20 times as long for a
 * dictionary a few percent better.
 */
#define ZSTD_DICT_SEGMENT		1024
#define ZSTD_DICT_DMER			8
#define ZSTD_DICT_FREQ_LOG		14

/* The buffer size compression parameters of a dictionary are tuned for. */
#define ZSTD_DICT_SRC_HINT		(16 * 1024)

static int32
zstd_codec_dict_train(const char *samples, const size_t *sample_sizes,
					  uint32 nsamples, char *dict, int32 dictcap, int level)
{
	ZDICT_fastCover_params_t params;
	size_t		result;

	if (dictcap < ZSTD_DICT_SEGMENT || nsamples == 0)
		return -1;
	memset(&params, 0, sizeof(params));
	params.k = ZSTD_DICT_SEGMENT;
	params.d = ZSTD_DICT_DMER;
	params.f = ZSTD_DICT_FREQ_LOG;
	params.nbThreads = 1;
	params.splitPoint = 1.0;
	params.accel = 1;
	params.zParams.compressionLevel = codec_effective_level(&codec_zstd, level);
	result = ZDICT_trainFromBuffer_fastCover(dict, (size_t) dictcap, samples,
											 sample_sizes, nsamples, params);
	if (ZDICT_isError(result) || result == 0 || result > (size_t) dictcap)
		return -1;
	return (int32) result;
}

static ZSTD_compressionParameters
zstd_dict_cparams(int32 dictlen, int level)
{
	return ZSTD_getCParams(codec_effective_level(&codec_zstd, level),
						   ZSTD_DICT_SRC_HINT, (size_t) dictlen);
}

static size_t
zstd_codec_dict_workspace(int32 dictlen, bool for_compression, int level)
{
	size_t		size;

	if (dictlen <= 0)
		return 0;
	if (for_compression)
		size = ZSTD_estimateCDictSize_advanced((size_t) dictlen,
											   zstd_dict_cparams(dictlen, level),
											   ZSTD_dlm_byRef);
	else
		size = ZSTD_estimateDDictSize((size_t) dictlen, ZSTD_dlm_byRef);
	return ZSTD_isError(size) ? 0 : size;
}

static const CodecDict *
zstd_codec_dict_load(const char *dict, int32 dictlen, bool for_compression,
					 int level, void *workspace, size_t workspace_size)
{
	if (dictlen <= 0 || workspace == NULL ||
		workspace_size < zstd_codec_dict_workspace(dictlen, for_compression, level))
		return NULL;
	if (for_compression)
		return (const CodecDict *)
			ZSTD_initStaticCDict(workspace, workspace_size, dict, (size_t) dictlen,
								 ZSTD_dlm_byRef, ZSTD_dct_fullDict,
								 zstd_dict_cparams(dictlen, level));
	return (const CodecDict *)
		ZSTD_initStaticDDict(workspace, workspace_size, dict, (size_t) dictlen,
							 ZSTD_dlm_byRef, ZSTD_dct_fullDict);
}

static int32
zstd_codec_compress_dict(const char *src, int32 srclen, char *dst,
						 int32 dstcap, const CodecDict *dict,
						 bool raw_literals)
{
	ZSTD_CCtx  *cctx;
	size_t		result;

	if (srclen <= 0 || dstcap <= 0 || dict == NULL)
		return -1;
	cctx = zstd_cctx_get();
	if (cctx == NULL)
		return -1;

	/*
	 * The frame names no dictionary (the reader knows which one) and no
	 * content size (the frame directory has it): 5 bytes a frame saved.
	 * The dictionary's tables are used in place: above a size cutoff that
	 * frames just over 16 kB cross, zstd would copy them into the context
	 * for every frame, which took a fifth of a colcompress load.
	 */
	result = ZSTD_CCtx_refCDict(cctx, (const ZSTD_CDict *) dict);
	if (!ZSTD_isError(result))
		result = ZSTD_CCtx_setParameter(cctx, ZSTD_c_forceAttachDict,
										ZSTD_dictForceAttach);
	if (!ZSTD_isError(result))
		result = ZSTD_CCtx_setParameter(cctx, ZSTD_c_dictIDFlag, 0);
	if (!ZSTD_isError(result))
		result = ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
	if (!ZSTD_isError(result) && raw_literals)
		result = ZSTD_CCtx_setParameter(cctx, ZSTD_c_literalCompressionMode,
										ZSTD_ps_disable);
	if (!ZSTD_isError(result))
		result = ZSTD_compress2(cctx, dst, (size_t) dstcap, src, (size_t) srclen);
	/* the next call, with or without a dictionary, starts clean */
	ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
	zstd_cctx_put(cctx);
	return zstd_compressed_length(result, srclen, dstcap);
}

static bool
zstd_codec_decompress_dict(const char *src, int32 srclen, char *dst,
						   int32 rawlen, const CodecDict *dict)
{
	ZSTD_DCtx  *dctx;
	size_t		result;

	if (rawlen < 0 || dict == NULL || !zstd_one_frame(src, srclen))
		return false;
	dctx = zstd_dctx_get();
	if (dctx == NULL)
		return false;
	result = ZSTD_decompress_usingDDict(dctx, dst, (size_t) rawlen, src,
										(size_t) srclen,
										(const ZSTD_DDict *) dict);
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
	.dict_train = zstd_codec_dict_train,
	.dict_workspace = zstd_codec_dict_workspace,
	.dict_load = zstd_codec_dict_load,
	.compress_dict = zstd_codec_compress_dict,
	.decompress_dict = zstd_codec_decompress_dict,
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
