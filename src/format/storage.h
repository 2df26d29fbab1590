/*-------------------------------------------------------------------------
 *
 * storage.h
 *	  Byte streams in a relation's main fork.
 *
 *	  Block 0 is the metapage; every other block holds payload bytes of
 *	  one stream (a stripe or a batch) in a standard page.  A stream starts
 *	  on a page boundary and occupies consecutive blocks, so a stream is
 *	  addressed by (first block, length).  See docs/storage-format.md.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_STORAGE_H
#define STORAGE_ENGINE_STORAGE_H

#include "storage/bufmgr.h"
#include "utils/relcache.h"

#include "format/frame_cache.h"

#define STORAGE_MAGIC			0x53454E47	/* "SENG" */
#define STORAGE_FORMAT_VERSION	1
#define STORAGE_METAPAGE_BLOCK	0
#define STORAGE_FIRST_DATA_BLOCK 1

/* Payload bytes of one data page. */
#define STORAGE_PAGE_HEADER	MAXALIGN(SizeOfPageHeaderData)
#define STORAGE_PAGE_PAYLOAD	(BLCKSZ - STORAGE_PAGE_HEADER)

/* Row numbers start at 1 so that 0 can mean "none". */
#define STORAGE_FIRST_ROW_NUMBER 1

typedef struct StorageMeta
{
	uint32		magic;
	uint32		version;
	uint64		storage_id;		/* key of this storage's metadata rows */
	uint64		next_block;		/* first block not yet reserved */
	uint64		next_row_number;	/* first row number not yet reserved */
	uint64		next_stream_num;	/* number of the next stripe or batch */

	/*
	 * Set when the storage is VACUUM FULL's or CLUSTER's copy of another:
	 * the transaction that wrote it, and the horizon from which on every
	 * snapshot saw what it copied, or InvalidTransactionId when not every
	 * snapshot then running did (format/storage_rewrite.h).  Zero
	 * otherwise, and in metapages written before these fields existed,
	 * which end before them.
	 */
	TransactionId rewrite_xid;
	TransactionId rewrite_horizon;
} StorageMeta;

#define STORAGE_META_MIN_SIZE	offsetof(StorageMeta, rewrite_xid)

/* Reads the metapage; false when the relation has no storage yet. */
extern bool storage_read_meta(Relation rel, StorageMeta *meta);

/* Storage id of the relation, creating the metapage on first use. */
extern uint64 storage_ensure_meta(Relation rel, StorageMeta *meta);

/*
 * Takes a storage id from the sequence for rel's new storage relnumber,
 * when it is made (outside parallel mode), for its metapage made later,
 * perhaps in parallel mode.
 */
extern void storage_reserve_id(Relation rel, RelFileNumber relnumber);

/* Records in rel's metapage that a rewrite by xid wrote its storage. */
extern void storage_set_rewrite(Relation rel, TransactionId xid,
								TransactionId horizon);

/* Reserves count row numbers; returns the first.  Never reused. */
extern uint64 storage_reserve_rows(Relation rel, uint64 count);

/*
 * Reserves nblocks blocks past every stream and writes them as empty
 * pages (WAL-logged); returns the first.  For space kept for its own sake
 * (format/tid_blocks.c), given to the free space by the caller.
 */
extern uint64 storage_reserve_empty_blocks(Relation rel, uint64 nblocks);

/*
 * Writes len bytes as a new stream at block at_block (free blocks the
 * caller took, catalog/free_space.h) or, with STORAGE_NEW_BLOCKS, at newly
 * reserved blocks; returns its first block and sets *stream_num to a
 * number unique within this storage (the stripe or batch number).
 */
#define STORAGE_NEW_BLOCKS		0
extern uint64 storage_write_stream(Relation rel, uint64 at_block,
								   const char *data, uint64 len,
								   uint64 *stream_num);

/*
 * What a read of a stream is for, as its errors name it: "stripe 3, column
 * \"price\"", "Batch 7".  Formatted only for an error: a lookup by TID
 * reads a few streams per column of every row, and spent 3% of its time
 * printing names it never showed.
 */
typedef struct StreamPlace
{
	const char *unit;			/* "stripe", "Batch" */
	uint64		num;
	const char *column;			/* NULL for a whole row */
} StreamPlace;

extern void storage_place_text(const StreamPlace *place, char *buf,
							   size_t size);

/*
 * The buffer ring a scan of rel reads through, or NULL for none: as heap's
 * sequential scans, a ring only for a table large for shared buffers, so
 * that a smaller one stays cached from one scan to the next.
 */
extern BufferAccessStrategy storage_scan_strategy(Relation rel);

/*
 * Reads len bytes at offset of the stream starting at first_block into
 * dest.  Every page is checked; damage raises ERRCODE_DATA_CORRUPTED
 * naming place.
 */
extern void storage_read_stream(Relation rel, uint64 first_block,
								uint64 offset, char *dest, uint64 len,
								BufferAccessStrategy strategy,
								const StreamPlace *place);

/*
 * A page kept pinned from one read to the next by a reader that reads a few
 * bytes at a time: a fetch by TID reads a frame of each column, and the
 * small chunks of a chunk group's columns share pages, so pinning each
 * page once per row, not once per column, saves a buffer lookup per column.
 * The reader releases it (storage_pin_release) before the pin's resource
 * owner ends, at latest when it is done with the row.
 */
typedef struct StoragePin
{
	Buffer		buffer;			/* InvalidBuffer: none */
	uint64		block;
	bool		viewing;		/* buffer share-locked for a view */
} StoragePin;

/* As storage_read_stream, reusing and leaving pinned the page in *pin. */
extern void storage_read_stream_pinned(Relation rel, uint64 first_block,
									   uint64 offset, char *dest, uint64 len,
									   BufferAccessStrategy strategy,
									   const StreamPlace *place,
									   StoragePin *pin);
extern void storage_pin_release(StoragePin *pin);

struct FrameEntry;
struct Codec;
struct CodecDict;

/*
 * Decodes frame e, stored at offset of the stream, into raw (frames_decode,
 * CRC checked) straight from its page when one page holds it, else from a
 * copy in copy (room for its stored bytes): a fetch by TID decompresses a
 * frame without copying it first.  The frame's unit has stored bytes of
 * checksum unit_checksum.  Unless keep is FRAME_KEEP_NONE (a scan), a frame
 * decompressed before is copied from the backend's frame cache
 * (format/frame_cache.h) instead, and one decoded now is offered to it as
 * keep says.  pin as storage_read_stream_pinned's, or NULL.  Returns NULL,
 * or what is wrong for the caller to report.
 */
extern const char *storage_decode_frame(Relation rel, uint64 first_block,
										uint64 offset, uint32 unit_checksum,
										const struct FrameEntry *e,
										const struct Codec *codec,
										const struct CodecDict *dict,
										char *copy, char *raw, FrameKeep keep,
										BufferAccessStrategy strategy,
										const StreamPlace *place,
										StoragePin *pin);

/*
 * Makes a hot standby cancel the queries whose snapshots may not see
 * transaction horizon as committed (their xmin is not past it), a query on
 * a standby not being seen by the primary's horizon (unless
 * hot_standby_feedback is on): before blocks that a VACUUM frees are written
 * again (one reading a retired stream whose blocks were reused found bytes
 * of another stream, "data ... is damaged"), and before relfrozenxid passes
 * a rewrite (storage_vacuum.c).  PostgreSQL logs the same conflict when
 * it reuses a btree page (XLOG_BTREE_REUSE_PAGE), whose redo touches no
 * page and only resolves the conflict, in the relation's database: that is
 * the record logged, naming this relation.  Nothing without hot standby
 * information in the WAL (wal_level minimal) or for unlogged relations.
 */
extern void storage_log_reuse_conflict(Relation rel, TransactionId horizon);

struct FrameSpot;
struct FrameEntry;

/*
 * Where storage_find_frame last found a unit's directory among those it
 * keeps, for a caller that looks up many rows of one unit (a fetch's column
 * within a chunk group, a bitmap scan's rowcompress batch): the next
 * lookup in the same unit reads the directory there without probing the
 * cache, while nothing has left the cache since.  Zeroed: empty.
 */
typedef struct FrameDirectoryHint
{
	bool		valid;
	uint64		drops;			/* the cache's drops when it was found */
	CompatRelFileLocator file;
	uint64		first_block;
	uint64		offset;
	uint32		unit_checksum;
	uint32		nframes;
	const struct FrameEntry *entries;
	const uint64 *offsets;
} FrameDirectoryHint;

/*
 * Finds the frame holding row (within the unit) through the frame directory
 * (codec/frames.h) of the unit stored in stored_length bytes at offset of
 * the stream, holding row_count rows and raw_total uncompressed bytes, with
 * stored bytes of checksum unit_checksum (as its metadata records it).
 * Returns NULL, or what is wrong with the directory for the caller to
 * report.  Directories read are kept for the backend's later calls: this is
 * for fetches by row number, which read a few frames of many units, not for
 * scans.  Only the one entry is copied to *spot, not the whole directory
 * (9 kB for a rowcompress batch of 10,000 rows, 3 kB for a colcompress chunk
 * of URLs in 4 kB frames).  With hint (NULL: none), as above.
 */
extern const char *storage_find_frame(Relation rel, uint64 first_block,
									  uint64 offset, uint64 stored_length,
									  uint32 row_count, uint64 raw_total,
									  uint32 unit_checksum,
									  BufferAccessStrategy strategy,
									  const StreamPlace *place, uint32 row,
									  FrameDirectoryHint *hint,
									  struct FrameSpot *spot);

/* Number of blocks a stream of len bytes occupies. */
static inline uint64
storage_stream_blocks(uint64 len)
{
	return (len + STORAGE_PAGE_PAYLOAD - 1) / STORAGE_PAGE_PAYLOAD;
}

#endif							/* STORAGE_ENGINE_STORAGE_H */
