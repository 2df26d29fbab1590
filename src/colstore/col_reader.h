/*-------------------------------------------------------------------------
 *
 * col_reader.h
 *	  Reading a colcompress relation one chunk group at a time, as batches.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COL_READER_H
#define STORAGE_ENGINE_COL_READER_H

#include "access/relscan.h"
#include "executor/tuptable.h"
#include "port/atomics.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "catalog/stripe_meta.h"
#include "catalog/zone_map.h"
#include "vector/batch.h"

/*
 * Shared state of a parallel scan: participants claim ranges of chunk
 * groups in turn, numbered across the stripe list.
 */
typedef struct ColParallelScanDescData
{
	ParallelTableScanDescData base;
	pg_atomic_uint64 next_group;
} ColParallelScanDescData;

typedef struct ColReader
{
	Relation	rel;
	TupleDesc	desc;			/* how the stored columns are typed */
	int			capacity;		/* columns the arrays have room for */
	Snapshot	snapshot;
	bool	   *projected;		/* [natts] */
	bool	   *scaled_only;	/* [natts] packed decimals left scaled, or NULL */
	ColParallelScanDescData *parallel;
	BufferAccessStrategy strategy;

	List	   *stripes;		/* StripeMeta *, in stripe order */
	int			nstripes;

	/* parallel scans: number of the first group of each stripe [nstripes + 1] */
	uint64	   *group_start;
	int			claim_stripe;	/* stripe of the group claimed last */
	uint64		claim_next;		/* groups [claim_next, claim_end) are ours */
	uint64		claim_end;
	int			claim_tested;	/* stripe whose filter result is claim_excluded */
	bool		claim_excluded;

	/* the stripe whose chunk metadata is loaded */
	int			stripe_index;
	StripeMeta *stripe;
	ChunkMeta  *chunks;
	uint32	   *group_rows;
	uint64	   *group_first_row;	/* row index in stripe of each group */
	uint64		visible_rows;
	uint64	   *deleted;		/* row numbers the snapshot sees deleted */
	int			ndeleted;

	/* the batch loaded: group group_index of stripe stripe_index */
	int			group_index;
	RowBatch	batch;

	/* row-at-a-time position in the batch (col_reader_next_slot) */
	bool		have_batch;
	int64		pos;
	/* the slot whose unread columns are already NULL, for which batch */
	TupleTableSlot *filled_slot;
	ColumnBatch *filled_batch;
	int		   *loaded;			/* indexes of the loaded columns */
	int			nloaded;

	MemoryContext stripe_cxt;
	MemoryContext batch_cxt;
	MemoryContext buffers_cxt;	/* the reader's life: buffers */
	struct ColumnBuffers *buffers;	/* [natts], reused by every chunk group */
	struct ColBuffer *rownums_buffer;

	/* zone-map filter (NULL: none) and what it saved, for EXPLAIN */
	ZoneFilterFn filter;
	void	   *filter_arg;
	StripeMeta *zone_stripe;	/* the stripe the filter is testing */
	uint64		stripes_read;
	uint64		stripes_pruned;
	uint64		groups_read;
	uint64		groups_pruned;

	/* optional: does every row of a zone satisfy the filter? */
	ZoneFilterFn all_match;
	bool		batch_all_match;	/* for the loaded batch */
	uint64		groups_matched;
} ColReader;

extern ColReader *col_reader_begin(Relation rel, Snapshot snapshot,
								   const bool *projected,
								   ColParallelScanDescData *parallel);
extern void col_reader_end(ColReader *reader);

/*
 * Skip stripes and chunk groups the filter excludes (before reading); with
 * all_match, also tell (batch_all_match) when a chunk group's bounds show
 * that each of its rows satisfies the filter.
 */
extern void col_reader_set_filter(ColReader *reader, ZoneFilterFn filter,
								  ZoneFilterFn all_match, void *arg);

/*
 * Decode with desc instead of the relation's descriptor.  ALTER COLUMN
 * TYPE reads the old rows after the catalog already has the new types; it
 * passes the old descriptor in its slot.
 */
extern void col_reader_use_desc(ColReader *reader, TupleDesc desc);

/*
 * Has the batches leave the packed decimals of the columns scaled[attno]
 * marks as scaled integers, their numerics written only when read
 * (vector/batch.h, ColumnBatch.made): for a consumer that adds them.
 */
extern void col_reader_scaled_columns(ColReader *reader, const bool *scaled);

/*
 * Loads the next (forward) or previous (backward) non-empty chunk group;
 * false when there is none.  In a parallel scan only forward works, over
 * the stripes this participant claims.
 */
extern bool col_reader_next_batch(ColReader *reader, bool forward);

/*
 * Stores the next row (in direction forward or backward) into slot as a
 * virtual tuple with its TID; false at the end.  Rows are built from the
 * current batch, which is loaded as needed.
 */
extern bool col_reader_next_slot(ColReader *reader, bool forward,
								 TupleTableSlot *slot);

/* Stores row row of the current batch into slot. */
extern void col_reader_store_row(ColReader *reader, uint32 row,
								 TupleTableSlot *slot);

/* Loads chunk group group of stripe stripe (indexes into the list). */
extern void col_reader_load_group(ColReader *reader, int stripe, int group);

/* Back to before the first chunk group (or after the last, for backward). */
extern void col_reader_reset(ColReader *reader, bool forward);

extern uint64 col_reader_total_rows(ColReader *reader);

/* Does test hold for every stripe the reader lists? */
extern bool col_reader_zones_all(ColReader *reader, ZoneTestFn test,
								 void *arg);

#endif							/* STORAGE_ENGINE_COL_READER_H */
