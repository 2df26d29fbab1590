/*-------------------------------------------------------------------------
 *
 * codec_stub.c
 *	  TEMPORARY STUB of the codec registry (names, ids and levels only), so
 *	  that the options branch links before the real codec module is merged.
 *	  Reverted before the branch is merged.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "codec/codec.h"

#ifdef HAVE_LIBLZ4
#define STUB_LZ4 true
#else
#define STUB_LZ4 false
#endif
#ifdef HAVE_LIBZSTD
#define STUB_ZSTD true
#else
#define STUB_ZSTD false
#endif
#ifdef HAVE_LIBDEFLATE
#define STUB_DEFLATE true
#else
#define STUB_DEFLATE false
#endif

static const Codec stub_codecs[] = {
	{CODEC_NONE, "none", 0, 0, 0, true},
	{CODEC_PGLZ, "pglz", 0, 0, 0, true},
	{CODEC_LZ4, "lz4", 1, 12, 1, STUB_LZ4},
	{CODEC_ZSTD, "zstd", 1, 19, 3, STUB_ZSTD},
	{CODEC_DEFLATE, "deflate", 1, 12, 6, STUB_DEFLATE},
};

const Codec *
codec_by_id(int id)
{
	if (id < 0 || id >= lengthof(stub_codecs))
		return NULL;
	return &stub_codecs[id];
}

const Codec *
codec_by_name(const char *name)
{
	int			i;

	if (name == NULL)
		return NULL;
	for (i = 0; i < lengthof(stub_codecs); i++)
		if (pg_strcasecmp(name, stub_codecs[i].name) == 0)
			return &stub_codecs[i];
	return NULL;
}

const char *
codec_names_list(void)
{
	return "none, pglz, lz4, zstd, deflate";
}
