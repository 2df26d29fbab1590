/*-------------------------------------------------------------------------
 *
 * codec.h
 *	  The compression codec interface.  A codec is one record in a
 *	  registry (codec.c); the rest of the tree looks codecs up by the id
 *	  stored on disk or by the name a user wrote in a table option, and
 *	  never switches on the codec itself.
 *
 *	  Codec functions are pure: they work in caller-provided buffers only,
 *	  never palloc, never ereport/elog, and keep no state that is not
 *	  private to the calling thread.  That keeps them usable from any
 *	  memory context, lets the caller decide how to report a failure (with
 *	  the table, stripe and column it knows about) and lets test/fuzz run
 *	  them outside the server.
 *
 *	  The ids are stored on disk: never renumber or reuse one.  See
 *	  docs/codecs.md for the full contract and how to add a codec.
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

#define CODEC_COUNT 5

/* A dictionary made ready by a codec's dict_load; opaque to callers. */
typedef struct CodecDict CodecDict;

typedef struct Codec
{
	CodecId		id;
	const char *name;			/* "none", "pglz", "lz4", "zstd", "deflate" */
	int			min_level;		/* 0 when the codec has no levels */
	int			max_level;
	int			default_level;
	bool		available;		/* false when built without the library */

	/*
	 * Worst-case compressed size for srclen input bytes.  Returns -1 when
	 * srclen is negative or the bound does not fit in an int32.
	 */
	int32		(*bound) (int32 srclen);

	/*
	 * Compresses srclen bytes at src into dst, which has room for dstcap
	 * bytes.  Returns the compressed length, or -1 when the output would not
	 * fit in dstcap or would not be smaller than the input (the caller then
	 * stores the data raw).  A result r >= 0 always satisfies r < srclen and
	 * r <= dstcap.  Level 0 selects default_level; other levels outside
	 * [min_level, max_level] are clamped into that range.  Never writes past
	 * dst + dstcap and never reads past src + srclen.
	 */
	int32		(*compress) (const char *src, int32 srclen, char *dst,
							 int32 dstcap, int level);

	/*
	 * Decompresses srclen bytes at src into dst, which has room for exactly
	 * rawlen bytes.  Returns true only when exactly rawlen bytes were
	 * produced from exactly srclen input bytes.  Must never read past
	 * src + srclen or write past dst + rawlen (nor before src or dst), on ANY
	 * input: src is untrusted bytes from disk.  On false the contents of dst
	 * are unspecified.
	 */
	bool		(*decompress) (const char *src, int32 srclen, char *dst,
							   int32 rawlen);

	/*
	 * Shared dictionaries; all NULL when the codec has none.  A dictionary
	 * is trained once from samples of many small buffers and stored once;
	 * each small buffer compressed with it then compresses almost as well as
	 * if it were part of one long buffer, yet decompresses on its own.
	 *
	 * dict_train trains at most dictcap bytes into dict from nsamples
	 * samples laid end to end at samples (their lengths in sample_sizes),
	 * for compression at level.  Returns the dictionary's length, or -1
	 * when the samples cannot train one (too few, too short).
	 */
	int32		(*dict_train) (const char *samples, const size_t *sample_sizes,
							   uint32 nsamples, char *dict, int32 dictcap,
							   int level);

	/*
	 * Bytes of workspace dict_load needs for a dictionary of dictlen bytes,
	 * to compress at level (for_compression) or to decompress; 0 when dictlen
	 * is impossible.
	 */
	size_t		(*dict_workspace) (int32 dictlen, bool for_compression,
								   int level);

	/*
	 * Makes the dictionary of dictlen bytes at dict ready in workspace
	 * (dict_workspace bytes, 8-byte aligned) for one direction.  The
	 * dictionary bytes must stay in place while the result is used; nothing
	 * needs freeing but the caller's workspace.  Returns NULL when the bytes
	 * are not a dictionary of this codec: they are untrusted, read from disk.
	 */
	const CodecDict *(*dict_load) (const char *dict, int32 dictlen,
								   bool for_compression, int level,
								   void *workspace, size_t workspace_size);

	/*
	 * compress and decompress with a dictionary loaded for that direction
	 * (the compression level is the dictionary's); the same contracts.
	 * With raw_literals, the bytes no match covers are stored as they are,
	 * not entropy-coded: larger output that decodes faster (zstd: a fifth
	 * more bytes of rows, a quarter faster to scan).
	 */
	int32		(*compress_dict) (const char *src, int32 srclen, char *dst,
								  int32 dstcap, const CodecDict *dict,
								  bool raw_literals);
	bool		(*decompress_dict) (const char *src, int32 srclen, char *dst,
									int32 rawlen, const CodecDict *dict);
} Codec;

/* Registry record for an id read from disk; NULL when the id is unknown. */
extern const Codec *codec_by_id(int id);

/* Registry record for a user-written name, case-insensitive; NULL if unknown. */
extern const Codec *codec_by_name(const char *name);

/* "none, pglz, lz4, zstd, deflate", for error hints. */
extern const char *codec_names_list(void);

/*
 * Frees the library contexts (zstd, lz4hc, libdeflate) that the calling
 * thread cached for reuse across calls.  Optional: they are otherwise freed
 * at process exit.  Safe to call at any time, and any number of times.
 */
extern void codec_release_resources(void);

#endif							/* STORAGE_ENGINE_CODEC_H */
