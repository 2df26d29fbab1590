/*-------------------------------------------------------------------------
 *
 * codec.h
 *	  TEMPORARY STUB of the codec registry API, so that the options branch
 *	  compiles before the real codec module is merged.  Reverted before the
 *	  branch is merged; the real header (same API) replaces it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_CODEC_H
#define STORAGE_ENGINE_CODEC_H

typedef enum CodecId
{
	CODEC_NONE = 0,
	CODEC_PGLZ = 1,
	CODEC_LZ4 = 2,
	CODEC_ZSTD = 3,
	CODEC_DEFLATE = 4
} CodecId;

typedef struct Codec
{
	CodecId		id;
	const char *name;
	int			min_level;
	int			max_level;
	int			default_level;
	bool		available;
} Codec;

extern const Codec *codec_by_id(int id);
extern const Codec *codec_by_name(const char *name);
extern const char *codec_names_list(void);

#endif							/* STORAGE_ENGINE_CODEC_H */
