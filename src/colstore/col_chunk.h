/*-------------------------------------------------------------------------
 *
 * col_chunk.h
 *	  Decoding one column chunk from the relation's pages: all of it (a
 *	  scan) or one frame of it (fetching a row by TID).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COL_CHUNK_H
#define STORAGE_ENGINE_COL_CHUNK_H

#include "access/tupdesc.h"
#include "storage/bufmgr.h"
#include "utils/relcache.h"

#include "catalog/stripe_meta.h"
#include "codec/frames.h"
#include "codec/numeric_format.h"
#include "codec/value_encoding.h"
#include "format/storage.h"
#include "format/stream_dict.h"

/*
 * A buffer reused from chunk to chunk or frame to frame, allocated in cxt:
 * scans and fetches decode into these instead of a palloc (and a free at
 * the next reset) each time.
 */
typedef struct ColBuffer
{
	char	   *data;
	Size		cap;
	MemoryContext cxt;
} ColBuffer;

/* buf's bytes, at least size of them (MAXALIGNed; earlier contents lost). */
extern char *col_buffer(ColBuffer *buf, Size size);

/* Which chunk, and what to name in an error about it. */
typedef struct ColChunkRef
{
	Relation	rel;
	const StripeMeta *stripe;
	int			group;
	Form_pg_attribute attr;		/* the column's type and name */
	const ChunkMeta *chunk;
	uint32		rows;			/* rows of the chunk group */
	BufferAccessStrategy strategy;	/* NULL: the default */
	StoragePin *pin;			/* a fetch's page kept pinned, or NULL */
	StreamDictHint *dict_hint;	/* a fetch's column's dictionary, or NULL */
	FrameDirectoryHint *dir_hint;	/* a fetch's column's frame directory,
									 * or NULL */
	bool		keep_frames;	/* a fetch's frames may go to the frame cache */
	bool		share_frames;	/* else to the shared one only
								 * (frame_cache_share) */
} ColChunkRef;

/* Raises ERRCODE_DATA_CORRUPTED naming the chunk's table, stripe, group and column. */
pg_noreturn extern void col_chunk_corrupted(const ColChunkRef *ref,
											const char *what);

/*
 * Decodes all value_count rows into values/isnull, reading the chunk into
 * stored; by-reference values point into raw.  With scaled (room for
 * value_count), a chunk of packed decimals is decoded into it instead, as
 * scaled integers, values left unwritten, and true returned (a reader
 * whose consumer adds them needs no numeric written).
 */
extern bool col_chunk_decode(const ColChunkRef *ref, ColBuffer *stored,
							 ColBuffer *raw, Datum *values, bool *isnull,
							 ScaledNumeric *scaled);

/*
 * Finds the frame holding row (within the chunk group) through the chunk's
 * frame directory, read and checked once and then kept for the backend
 * (format/storage.h, storage_find_frame).
 */
extern void col_chunk_find_frame(const ColChunkRef *ref, uint32 row,
								 FrameSpot *spot);

/*
 * Reads the frame at spot (its bytes into stored) and produces its value
 * layout in raw, decompressed and delta-decoded, followed by room for the
 * values its decoder makes; returns the layout's length.
 */
extern uint32 col_chunk_read_frame(const ColChunkRef *ref,
								   const FrameSpot *spot, ColBuffer *stored,
								   ColBuffer *raw);

/*
 * A fetch of one row from a frame stored uncompressed reads only what that
 * row's decoding looks at (codec/value_encoding.h, VALUE_PREFIX_BYTES):
 * when col_chunk_reads_rows says the chunk's layout allows it and the
 * frame's stored length equals its raw length, col_chunk_read_frame_start
 * reads the frame's first bytes into raw (room as col_chunk_read_frame
 * leaves) and returns the layout's length, then col_chunk_read_row reads
 * each row's own bytes before it is decoded.  The frame's CRC covers all
 * its bytes, so it is checked only when a frame is read whole.  With
 * ref->keep_frames, what they read is kept in the frame cache, and found
 * there by the next fetches of the same rows.
 */
extern bool col_chunk_reads_rows(const ColChunkRef *ref, const FrameEntry *e);
extern uint32 col_chunk_read_frame_start(const ColChunkRef *ref,
										 const FrameSpot *spot,
										 ColBuffer *raw);
extern void col_chunk_read_row(const ColChunkRef *ref, const FrameSpot *spot,
							   char *raw, uint32 row);

/*
 * Whether the frame cache would keep spot's frame if it were read whole
 * now (format/frame_cache.h, frame_cache_wants): a frame met again is read
 * whole, to be kept, instead of row by row.
 */
extern bool col_chunk_frame_wanted(const ColChunkRef *ref,
								   const FrameSpot *spot);

/*
 * Decodes row (within spot's frame) straight from the backend's frame cache
 * (format/frame_cache.h), without copying the frame, when the cache holds
 * the frame (a delta-encoded one with its deltas undone).  A by-reference
 * *value points into the cache, valid only until the next frame is
 * decoded, or into made, when the layout makes values (packed decimals and
 * characters).  false when the frame is not there.
 */
extern bool col_chunk_decode_cached(const ColChunkRef *ref,
									const FrameSpot *spot, uint32 row,
									ColBuffer *made, Datum *value,
									bool *isnull);

/*
 * Decodes the nrows values of a frame's value layout (pointing into raw,
 * which holds the room col_chunk_read_frame leaves after the layout).
 */
extern void col_chunk_decode_values(const ColChunkRef *ref, char *raw,
									uint32 rawlen, uint32 nrows,
									Datum *values, bool *isnull);

/*
 * Decodes only the value of row (within the frame) of a value layout, going
 * on from where walk (value_decode_row) stopped in the same layout.
 */
extern void col_chunk_decode_value(const ColChunkRef *ref, char *raw,
								   uint32 rawlen, uint32 nrows, uint32 row,
								   ValueWalk *walk, Datum *value,
								   bool *isnull);

#endif							/* STORAGE_ENGINE_COL_CHUNK_H */
