/*-------------------------------------------------------------------------
 *
 * codec.c
 *	  The codec registry: one table of Codec records indexed by the id that
 *	  is stored on disk, and the lookups by id and by name.  This is the
 *	  only place that lists the codecs; everything else goes through the
 *	  records, so adding a codec means adding a file and a line here.
 *
 *	  Like the codecs themselves this file is pure (no palloc, no ereport)
 *	  and builds both into the server module and into the standalone fuzz
 *	  harness (with FRONTEND defined).
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

/* Indexed by CodecId; every entry's id must equal its index. */
static const Codec *const codec_registry[CODEC_COUNT] = {
	[CODEC_NONE] = &codec_none,
	[CODEC_PGLZ] = &codec_pglz,
	[CODEC_LZ4] = &codec_lz4,
	[CODEC_ZSTD] = &codec_zstd,
	[CODEC_DEFLATE] = &codec_deflate,
};

StaticAssertDecl(CODEC_DEFLATE + 1 == CODEC_COUNT,
				 "CODEC_COUNT must follow the last codec id");

const Codec *
codec_by_id(int id)
{
	if (id < 0 || id >= CODEC_COUNT)
		return NULL;
	return codec_registry[id];
}

/* ASCII case-insensitive equality; codec names are plain ASCII. */
static bool
codec_name_equal(const char *a, const char *b)
{
	for (;;)
	{
		unsigned char ca = (unsigned char) *a++;
		unsigned char cb = (unsigned char) *b++;

		if (ca >= 'A' && ca <= 'Z')
			ca += 'a' - 'A';
		if (cb >= 'A' && cb <= 'Z')
			cb += 'a' - 'A';
		if (ca != cb)
			return false;
		if (ca == '\0')
			return true;
	}
}

const Codec *
codec_by_name(const char *name)
{
	int			i;

	if (name == NULL)
		return NULL;
	for (i = 0; i < CODEC_COUNT; i++)
	{
		if (codec_name_equal(name, codec_registry[i]->name))
			return codec_registry[i];
	}
	return NULL;
}

const char *
codec_names_list(void)
{
	/*
	 * Kept in registry order by hand; the fuzz harness checks that it
	 * matches the records' names.
	 */
	return "none, pglz, lz4, zstd, deflate";
}

void
codec_release_resources(void)
{
	codec_lz4_release();
	codec_zstd_release();
	codec_deflate_release();
}
