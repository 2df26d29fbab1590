/*-------------------------------------------------------------------------
 *
 * row_reader.h
 *	  Reading a rowcompress relation one batch at a time, and fetching
 *	  single rows by row number.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_ROW_READER_H
#define STORAGE_ENGINE_ROW_READER_H

#include "access/relscan.h"
#include "executor/tuptable.h"
#include "port/atomics.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "catalog/batch_meta.h"
#include "catalog/zone_map.h"
#include "catalog/stream_runs.h"
#include "codec/frames.h"
#include "format/stream_dict.h"
#include "rowstore/row_batch.h"

/* Shared state of a parallel scan: participants claim batches in turn. */
typedef struct RowParallelScanDescData
{
	ParallelTableScanDescData base;
	pg_atomic_uint64 next_batch;
} RowParallelScanDescData;

typedef struct RowReader
{
	Relation	rel;
	TupleDesc	desc;			/* how the rows are deformed */
	RowBatchAttr *attrs;		/* desc's column layout */
	uint8	   *masks;			/* and its alignments (row_batch_layout) */
	bool		layout_checked; /* row_batch_layout found masks good */
	Snapshot	snapshot;
	RowParallelScanDescData *parallel;
	BufferAccessStrategy strategy;

	List	   *batches;		/* BatchMeta *, in batch order */
	int			nbatches;
	int			position;		/* batch the scan is in; -1 before the first */
	bool		have_batch;		/* row_reader_next_slot: a batch is loaded */
	int64		pos;			/* and its row last returned */

	/* the batch loaded (index into batches; -1 for none) */
	int			batch_index;
	BatchMeta  *batch;
	const char *raw;			/* decompressed and checked; may be in the
								 * shared frame cache, pinned: read only */
	uint64		raw_length;
	uint64		prefetched;		/* raw's bytes asked for up to here */
	uint32	   *row_offsets;	/* [row_count] MinimalTuple of each row */
	uint64	   *rownums;		/* [row_count] row number of each row */
	uint32		nrows;			/* rows visible to the snapshot */

	/*
	 * A cursor (row_reader_cursor) decodes one frame at a time: raw and
	 * row_offsets are then frame frame's, frames the batch's directory.
	 */
	struct RowReader *shared;	/* whose batches */
	StreamFinder *finder;		/* a fetch reader's batches, as met */
	bool		keep_deleted;	/* positions must stay the stored ones */
	bool		no_columns;		/* rows are counted, not read (count(*)) */

	/*
	 * With read_upto > 0, rows of the batches loaded are checked only as
	 * far as their lengths, and a row stored in a slot becomes the virtual
	 * tuple of its first read_upto columns, each checked as it is read,
	 * the others NULL: a scan reading a few columns of every row walks each
	 * row once, and only as far as it reads.  Its plan must read no column
	 * past read_upto.  0: rows are checked whole and stored as they are.
	 * Set before the first batch is loaded.
	 */
	int			read_upto;
	bool		share_decided;	/* share_batches is set (row_reader.c) */
	bool		share_batches;	/* the scan keeps batches in the shared
								 * frame cache */
	int			frame;			/* -1: the whole batch is loaded */
	StreamDictHint dict_hint;	/* the dictionary found last */
	FrameDirectoryHint dir_hint;	/* the frame directory found last */
	FrameSpot	spot;			/* the fetched frame, when frame >= 0 */

	/* a cursor's rows kept whole in the frame cache (format/row_cache.h) */
	uint64		fetched_bytes;	/* of the rows its fetches returned */
	uint64		fetched_lowest; /* the row numbers they spanned (0: none) */
	uint64		fetched_highest;
	bool		reads_storage;	/* none: every fetch reads its frame */
	char	   *row_copy;		/* a row kept whole, copied out */
	Size		row_copy_size;

	MemoryContext batch_cxt;	/* the loaded batch; reset when moving on */
	MemoryContext cxt;			/* the reader's own allocations */

	/* zone-map filter (NULL: none) and what it saved, for EXPLAIN */
	ZoneFilterFn filter;
	void	   *filter_arg;
	BatchMeta  *zone_batch;		/* the batch the filter is testing */
	uint64		batches_read;
	uint64		batches_pruned;
} RowReader;

extern RowReader *row_reader_begin(Relation rel, Snapshot snapshot,
								   RowParallelScanDescData *parallel);

/*
 * A reader for fetches by row number (row_reader_cursor, row_fetch) that
 * reads no batch list: it finds the batches its fetches need
 * (catalog/stream_runs.h).
 */
extern RowReader *row_reader_begin_fetch(Relation rel, Snapshot snapshot);
extern void row_reader_end(RowReader *reader);

/*
 * The next row in the direction given into slot; false at the end (a scan
 * in the other direction then resumes from there).
 */
extern bool row_reader_next_slot(RowReader *reader, bool forward,
								 TupleTableSlot *slot);

/* Skip the batches the filter excludes by their zone maps (before reading). */
extern void row_reader_set_filter(RowReader *reader, ZoneFilterFn filter,
								  void *arg);

/*
 * The scan needs no column (count(*)): batches are not read, their rows
 * are counted from the metadata, and every row is all NULL.
 */
extern void row_reader_no_columns(RowReader *reader);

/*
 * A reader for row_fetch that decodes batches of its own but shares the
 * batch list and lookup of shared (which must outlive it), so that the
 * rows it stores stay valid whatever other fetches of shared do.
 */
extern RowReader *row_reader_cursor(RowReader *shared);

/*
 * Deform rows with desc instead of the relation's descriptor.  ALTER
 * COLUMN TYPE reads the old rows after the catalog already has the new
 * types; it passes the old descriptor in its slot.
 */
extern void row_reader_use_desc(RowReader *reader, TupleDesc desc);

/*
 * Loads the next (forward) or previous (backward) batch with visible
 * rows; false when there is none.  In a parallel scan only forward works,
 * over the batches this participant claims.
 */
extern bool row_reader_next_batch(RowReader *reader, bool forward);

/* Loads batch index (into the list); every byte is checked. */
extern void row_reader_load_batch(RowReader *reader, int index);

/* Back to before the first batch (or after the last, going backward). */
extern void row_reader_reset(RowReader *reader);

/* Stores row i of the loaded batch in slot, with its TID. */
extern void row_reader_store_row(RowReader *reader, uint32 i,
								 TupleTableSlot *slot);

/*
 * Row i's first upto columns (upto at most read_upto) into values/isnull,
 * without a slot; false, nothing read, when the row lacks one of them (a
 * column added since: row_reader_store_row supplies its value).
 */
extern bool row_reader_read_columns(RowReader *reader, uint32 i, int upto,
									Datum *values, bool *isnull);

/*
 * Stores the row with row number rownum in slot (with slot NULL, decodes
 * nothing) if the reader's snapshot sees it; false otherwise, and then
 * *later_own (if given) says whether the row is this transaction's from a
 * command the snapshot may not see.  The reader must be a cursor
 * (row_reader_cursor): it decodes the frame holding the row and keeps it,
 * so further rows of the same frame cost no decoding.
 */
extern bool row_fetch(RowReader *reader, uint64 rownum, TupleTableSlot *slot,
					  bool *later_own);

extern uint64 row_reader_total_rows(RowReader *reader);

/* Does test hold for every batch the reader lists? */
extern bool row_reader_zones_all(RowReader *reader, ZoneTestFn test,
								 void *arg);

#endif							/* STORAGE_ENGINE_ROW_READER_H */
