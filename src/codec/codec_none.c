/*-------------------------------------------------------------------------
 *
 * codec_none.c
 *	  The "none" codec: data stored as it is.  Its compress never succeeds
 *	  (output is never smaller than the input), so callers store raw bytes
 *	  through the same path they use when a real codec declines; its
 *	  decompress is a length-checked copy, so a reader can treat every
 *	  chunk alike.
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

static int32
none_bound(int32 srclen)
{
	return srclen < 0 ? -1 : srclen;
}

static int32
none_compress(const char *src, int32 srclen, char *dst, int32 dstcap,
			  int level)
{
	/* Copying is never smaller than the input: the caller stores raw. */
	return -1;
}

static bool
none_decompress(const char *src, int32 srclen, char *dst, int32 rawlen)
{
	if (srclen < 0 || rawlen != srclen)
		return false;
	if (rawlen > 0)
		memcpy(dst, src, rawlen);
	return true;
}

const Codec codec_none = {
	.id = CODEC_NONE,
	.name = "none",
	.min_level = 0,
	.max_level = 0,
	.default_level = 0,
	.available = true,
	.bound = none_bound,
	.compress = none_compress,
	.decompress = none_decompress,
};
