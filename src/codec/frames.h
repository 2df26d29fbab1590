/*-------------------------------------------------------------------------
 *
 * frames.h
 *	  Framed units: a unit of stored data (a colcompress column chunk, a
 *	  rowcompress batch) split into frames of consecutive rows, each
 *	  compressed on its own, behind a directory.
 *
 *	  A scan decompresses every frame; fetching one row by TID reads the
 *	  directory and decompresses the one frame holding the row, which is
 *	  what keeps an index lookup from decoding ten thousand values to
 *	  return one.  Frames are bounded by rows and by raw bytes
 *	  (FRAME_MAX_ROWS, FRAME_TARGET_RAW_BYTES), so a wide column (jsonb,
 *	  long text) gets short frames and a narrow one long frames.
 *
 *	  Stored layout (integers as in memory, unaligned):
 *
 *		uint32		frame_count
 *		FrameEntry	entries[frame_count]	16 bytes each
 *		the frames' stored bytes, back to back, in entry order
 *
 *	  A frame whose stored_length equals its raw_length is stored
 *	  uncompressed (the writer keeps compressed bytes only when they are
 *	  smaller).  Readers never trust a directory: frames_directory()
 *	  proves that the entries tile the rows and the stored bytes before any
 *	  frame is used.
 *
 *	  Pure functions: no ereport, and no palloc in the readers but
 *	  frames_parse, so test/fuzz runs them outside the server.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_FRAMES_H
#define STORAGE_ENGINE_FRAMES_H

#include "postgres.h"

#include "lib/stringinfo.h"

#include "codec/codec.h"

#define FRAME_MAX_ROWS			1024
#define FRAME_TARGET_RAW_BYTES	(64 * 1024)

/*
 * Frames compressed with a dictionary shared by the unit's neighbours
 * compress about as well as long frames, so they can be shorter: fetching
 * a row then decodes a quarter as much.  A column's not shorter than 16 kB:
 * every scan decodes every frame, and decompressing a column in 4 kB frames
 * took 80% longer than in 64 kB frames, in 16 kB frames 23% longer (a
 * rowcompress batch's frames, whole rows, end at 6 kB: row_writer.c).  The
 * exceptions are entropy-bound data, which decodes as fast in 4 kB frames,
 * narrow data, which takes few bytes more in them, and wide data taking
 * little more in 8 kB frames (col_writer.c, column_framing).  A writer tries
 * them on part of its data against long frames without a dictionary and
 * keeps them when frames_dict_pays; otherwise long frames and no
 * dictionary.  Some data compresses much better in long frames (values
 * repeating at long distances), whatever the dictionary.
 */
#define FRAME_DICT_TARGET_RAW_BYTES	(16 * 1024)

/* Dictionaries are trained on samples this long: more samples, better. */
#define FRAMES_DICT_SAMPLE_FRAME_BYTES	(4 * 1024)

/*
 * The most of one sampled frame a dictionary is trained on: a sample is
 * bytes to learn from, and a frame of one wide value (up to a gigabyte)
 * would only take memory and training time.
 */
#define FRAMES_DICT_SAMPLE_MAX_BYTES	(2 * FRAMES_DICT_SAMPLE_FRAME_BYTES)

/*
 * Dictionaries are trained on about FRAMES_DICT_SAMPLE_BYTES of data, to
 * at most 1/64 of the data they will serve, within these bounds: a small
 * stripe or batch must not pay for a large dictionary.
 */
#define FRAMES_DICT_MIN_BYTES		(2 * 1024)
#define FRAMES_DICT_MAX_BYTES		(16 * 1024)
#define FRAMES_DICT_SAMPLE_BYTES	(64 * 1024)

/*
 * Short frames pay when they and their share of the dictionary take at
 * most max_growth times the bytes of long frames, plus slack bytes (the
 * writers say how much size they trade, and why).  Size is what the tables
 * are for, but a few percent buys fetches by TID two to three times faster
 * (measured in docs/storage-format.md and docs/rowcompress-format.md).
 */
static inline bool
frames_dict_pays(double short_bytes, double long_bytes, double max_growth,
				 double slack)
{
	return short_bytes <= long_bytes * max_growth + slack;
}

/*
 * A frame is kept compressed only when that saves at least an eighth of
 * its bytes.  Values that barely compress (random floats: 7%) cost as much
 * to decompress as any, on every scan and every fetch by TID, for a few
 * percent of their size; stored raw, a fetch copies the row's bytes.
 */
static inline bool
frames_compression_pays(uint32 stored_length, uint32 raw_length)
{
	return stored_length <= raw_length - raw_length / 8;
}

/* A frame's raw bytes are one palloc: MaxAllocSize, spelled FRONTEND-safe. */
#define FRAME_MAX_RAW_LENGTH	((uint32) 0x3fffffff)

typedef struct FrameEntry
{
	uint32		first_row;		/* within the unit */
	uint32		raw_length;
	uint32		stored_length;
	uint32		checksum;		/* CRC-32C of the frame's stored bytes */
} FrameEntry;

/* A unit's directory, checked by frames_directory(). */
typedef struct FrameDirectory
{
	uint32		nframes;
	FrameEntry *entries;
	uint64	   *offsets;		/* of each frame within the unit */
} FrameDirectory;

/*
 * One frame of a unit, as a fetch by row number needs it: the directory
 * entry, where its stored bytes start within the unit, its row count.
 */
typedef struct FrameSpot
{
	uint32		index;			/* in the unit's directory */
	uint32		nrows;
	uint64		offset;
	FrameEntry	entry;
} FrameSpot;

#define FRAMES_HEADER_SIZE(n)	(sizeof(uint32) + (Size) (n) * sizeof(FrameEntry))

/* Collects a unit's frames; frames_finish() lays out the stored unit. */
typedef struct FrameWriter
{
	const Codec *codec;
	int			level;
	const CodecDict *dict;		/* loaded for compression, or NULL */
	StringInfoData entries;
	StringInfoData data;
	uint32		nframes;
	uint64		raw_total;
	bool		last_raw;		/* the last frame added did not compress */
	bool		raw_literals;	/* compress_dict's: faster to decode, larger */
} FrameWriter;

/*
 * A frame after one that did not compress is compressed only when its
 * first quarter, at most this many bytes, does (frame_worth_compressing);
 * frames under four times the least probe are always tried.
 */
#define FRAMES_PROBE_BYTES		(2 * 1024)
#define FRAMES_PROBE_MIN_BYTES	256

extern void frames_begin(FrameWriter *fw, const Codec *codec, int level,
						 const CodecDict *dict);
extern void frames_add(FrameWriter *fw, uint32 first_row,
					   const char *raw, uint32 raw_length);
extern void frames_finish(FrameWriter *fw, StringInfo out);
/* Frees fw's frames, for a writer whose unit is not kept (a trial). */
extern void frames_discard(FrameWriter *fw);

/*
 * Reads the frame count from the first sizeof(uint32) bytes of a stored
 * unit of stored_length bytes holding row_count rows.
 */
extern const char *frames_count(const char *head, uint64 stored_length,
								uint32 row_count, uint32 *nframes);

/*
 * Checks nframes entries (the bytes right after the count) against the
 * unit: first rows start at 0 and increase below row_count, stored bytes
 * add up to the unit, raw bytes to raw_total.  Fills entries and, for
 * each frame, its offset within the stored unit.
 */
extern const char *frames_directory(const char *entry_bytes, uint32 nframes,
									uint64 stored_length, uint32 row_count,
									uint64 raw_total, FrameEntry *entries,
									uint64 *offsets);

/*
 * frames_count and frames_directory over a unit whose directory is in
 * memory at unit; allocates dir's arrays.
 */
extern const char *frames_parse(const char *unit, uint64 stored_length,
								uint32 row_count, uint64 raw_total,
								FrameDirectory *dir);

/* Index of the frame holding row (entries checked by frames_directory). */
extern uint32 frames_find(const FrameEntry *entries, uint32 nframes, uint32 row);

/* Rows in frame i of a unit of row_count rows. */
static inline uint32
frames_rows(const FrameEntry *entries, uint32 nframes, uint32 i,
			uint32 row_count)
{
	return (i + 1 < nframes ? entries[i + 1].first_row : row_count) -
		entries[i].first_row;
}

/*
 * Produces frame e's raw bytes in raw (room for e->raw_length) from its
 * stored bytes, with dict (loaded for decompression) when the unit's frames
 * were compressed with one; checks the frame's CRC when check_crc.
 */
extern const char *frames_decode(const FrameEntry *e, const char *stored,
								 const Codec *codec, const CodecDict *dict,
								 bool check_crc, char *raw);

/*
 * A stored dictionary, shared by the frames of several units:
 *
 *		uint32		length				of the dictionary bytes
 *		uint32		checksum			CRC-32C of the dictionary bytes
 *		the dictionary bytes
 */
#define FRAMES_DICT_HEADER_SIZE		(2 * sizeof(uint32))
#define FRAMES_DICT_MAX_LENGTH		(64 * 1024)

extern void frames_dict_write(StringInfo out, const char *dict, uint32 length);

/*
 * Trains a dictionary for data_bytes of data on nsamples samples laid end
 * to end, and loads it for compression at level.  Returns it, its bytes in
 * *dict (palloc'd; they must stay while it is used), or NULL (and *dict
 * NULL) when the codec has no dictionaries or the samples train none.
 */
extern const CodecDict *frames_dict_train(const Codec *codec, int level,
										  uint64 data_bytes,
										  const char *samples,
										  const size_t *sample_sizes,
										  uint32 nsamples, char **dict,
										  int32 *dictlen);

/*
 * Reads a stored dictionary's header; available is how many bytes the
 * stored dictionary may take at most (to the end of its container).
 */
extern const char *frames_dict_header(const char *header, uint64 available,
									  uint32 *length, uint32 *checksum);

/* Checks the dictionary bytes against the checksum of their header. */
extern const char *frames_dict_check(const char *dict, uint32 length,
									 uint32 checksum);

#endif							/* STORAGE_ENGINE_FRAMES_H */
