/*-------------------------------------------------------------------------
 *
 * col_reader.c
 *	  Reads a colcompress relation chunk group by chunk group, producing
 *	  RowBatches of the projected columns (vector/batch.h).
 *
 *	  The stripe list is read once, at the start, with the scan's snapshot
 *	  (plus this transaction's own stripes, see meta_snapshot_for); every
 *	  participant of a parallel scan builds the same list from the same
 *	  snapshot and claims ranges of chunk groups, numbered across that
 *	  list, from a shared counter.
 *
 *	  Chunks are decoded by col_chunk.c, which checks every stored byte
 *	  before use.
 *
 *	  Memory: the stripe list holds each stripe's own fields; its columns'
 *	  metadata (bounds, dictionary offsets) is decoded while the reader
 *	  tests or reads the stripe (stripe_meta_columns) and freed after.
 *	  stripe_cxt holds one stripe's chunk metadata, batch_cxt one chunk
 *	  group's decompressed columns; each is reset when the reader moves on.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/htup_details.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "colstore/col_chunk.h"
#include "colstore/col_reader.h"

/* A column's buffers: its arrays of one chunk group, its chunk's bytes. */
typedef struct ColumnBuffers
{
	ColBuffer	values;
	ColBuffer	isnull;
	ColBuffer	stored;
	ColBuffer	raw;
	ColBuffer	scaled;			/* packed decimals left scaled */
	ColBuffer	made;			/* their numerics, written when read */
} ColumnBuffers;
#include "format/row_number.h"
#include "format/storage.h"
#include "format/storage_am.h"

ColReader *
col_reader_begin(Relation rel, Snapshot snapshot, const bool *projected,
				 ColParallelScanDescData *parallel)
{
	ColReader  *r = palloc0(sizeof(ColReader));
	int			natts = RelationGetDescr(rel)->natts;
	StorageMeta meta;
	int			i;

	r->rel = rel;
	r->desc = RelationGetDescr(rel);
	r->capacity = natts;
	r->snapshot = snapshot;
	r->parallel = parallel;
	r->projected = palloc(sizeof(bool) * Max(natts, 1));
	for (i = 0; i < natts; i++)
		r->projected[i] = projected == NULL || projected[i];
	r->strategy = storage_scan_strategy(rel);
	r->stripe_cxt = AllocSetContextCreate(CurrentMemoryContext,
										  "colcompress stripe metadata",
										  ALLOCSET_DEFAULT_SIZES);
	r->batch_cxt = AllocSetContextCreate(CurrentMemoryContext,
										 "colcompress chunk group",
										 ALLOCSET_DEFAULT_SIZES);
	r->buffers_cxt = AllocSetContextCreate(CurrentMemoryContext,
										   "colcompress buffers",
										   ALLOCSET_DEFAULT_SIZES);
	r->buffers = MemoryContextAllocZero(r->buffers_cxt,
										sizeof(ColumnBuffers) * Max(natts, 1));
	for (i = 0; i < natts; i++)
	{
		r->buffers[i].values.cxt = r->buffers_cxt;
		r->buffers[i].isnull.cxt = r->buffers_cxt;
		r->buffers[i].stored.cxt = r->buffers_cxt;
		r->buffers[i].raw.cxt = r->buffers_cxt;
		r->buffers[i].scaled.cxt = r->buffers_cxt;
		r->buffers[i].made.cxt = r->buffers_cxt;
	}
	r->rownums_buffer = MemoryContextAllocZero(r->buffers_cxt, sizeof(ColBuffer));
	r->rownums_buffer->cxt = r->buffers_cxt;
	if (storage_read_meta(rel, &meta))
		r->stripes = stripe_meta_list(meta.storage_id, snapshot);
	r->nstripes = list_length(r->stripes);
	if (parallel != NULL)
	{
		r->group_start = palloc(sizeof(uint64) * (r->nstripes + 1));
		r->group_start[0] = 0;
		for (i = 0; i < r->nstripes; i++)
			r->group_start[i + 1] = r->group_start[i] +
				Max(((StripeMeta *) list_nth(r->stripes, i))->chunk_group_count, 0);
		r->claim_tested = -1;
	}
	r->stripe_index = -1;
	r->group_index = -1;
	r->batch.natts = natts;
	r->loaded = palloc(sizeof(int) * Max(natts, 1));
	return r;
}

/*
 * The layout the rows are stored in, when the slot's is not the table's:
 * ALTER TABLE rewriting them reads with the layout from before its
 * changes (a column's old type, fewer columns than it adds).  The reader's
 * arrays have room for the table's columns.
 */
void
col_reader_use_desc(ColReader *r, TupleDesc desc)
{
	if (desc->natts > r->capacity)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("scan of \"%s\" asked for %d columns, the table has %d",
						RelationGetRelationName(r->rel), desc->natts,
						r->capacity)));
	r->desc = desc;
}

void
col_reader_scaled_columns(ColReader *r, const bool *scaled)
{
	int			natts = r->batch.natts;

	if (r->scaled_only == NULL)
		r->scaled_only = palloc(sizeof(bool) * Max(natts, 1));
	memcpy(r->scaled_only, scaled, sizeof(bool) * natts);
}

void
col_reader_set_filter(ColReader *r, ZoneFilterFn filter,
					  ZoneFilterFn all_match, void *arg)
{
	r->filter = filter;
	r->all_match = all_match;
	r->filter_arg = arg;
}

/*
 * Makes stripe s's columns' metadata present.  The scan's snapshot still
 * sees every stripe it listed: an MVCC one by definition, and the others
 * scans use (an index build's) under locks that keep stripes in place.
 */
static void
stripe_columns(ColReader *r, StripeMeta *s)
{
	if (!stripe_meta_columns(s))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("stripe " UINT64_FORMAT " of table \"%s\" disappeared during a scan",
						s->stripe_num, RelationGetRelationName(r->rel))));
}

/* Frees stripe s's columns' metadata unless it is the current stripe. */
static void
stripe_columns_done(ColReader *r, StripeMeta *s)
{
	if (s != r->stripe)
		stripe_meta_release_columns(s);
}

/* Are stripe s's bounds of column attno (1-based) in r's ordering? */
static bool
bounds_apply(ColReader *r, const StripeMeta *s, AttrNumber attno)
{
	return attno <= s->column_count &&
		zone_bounds_apply(TupleDescAttr(r->desc, attno - 1),
						  s->zone.type[attno - 1], s->zone.collation[attno - 1]);
}

/* zone: the reader, whose zone_stripe is the stripe under test */
static bool
stripe_stats(void *zone, AttrNumber attno, ZoneStats *stats)
{
	ColReader  *r = zone;
	StripeMeta *s = r->zone_stripe;

	if (!bounds_apply(r, s, attno))
		return false;
	stats->min = s->zone.min[attno - 1];
	stats->max = s->zone.max[attno - 1];
	stats->null_count = s->zone.null_count[attno - 1];
	stats->row_count = s->row_count;
	return true;
}

bool
col_reader_zones_all(ColReader *r, ZoneTestFn test, void *arg)
{
	ListCell   *lc;

	foreach(lc, r->stripes)
	{
		StripeMeta *s = lfirst(lc);
		bool		passed;

		stripe_columns(r, s);
		r->zone_stripe = s;
		passed = test(arg, stripe_stats, r);
		stripe_columns_done(r, s);
		if (!passed)
			return false;
	}
	return true;
}

static bool
group_stats(void *zone, AttrNumber attno, ZoneStats *stats)
{
	ColReader  *r = zone;
	ChunkMeta  *c;

	if (!bounds_apply(r, r->stripe, attno))
		return false;
	c = &r->chunks[r->group_index * r->stripe->column_count + attno - 1];
	stats->min = c->min_value;
	stats->max = c->max_value;
	stats->null_count = c->null_count;
	stats->row_count = c->value_count;
	return true;
}

/*
 * Does the filter exclude stripe index si (without reading its data)?  The
 * stripe's columns' metadata stays decoded when it does not: the stripe is
 * read next.
 */
static bool
stripe_excluded(ColReader *r, int si)
{
	StripeMeta *s = list_nth(r->stripes, si);
	bool		excluded;

	if (r->filter == NULL)
		return false;
	stripe_columns(r, s);
	r->zone_stripe = s;
	excluded = r->filter(r->filter_arg, stripe_stats, r);
	if (excluded)
		stripe_columns_done(r, s);
	return excluded;
}

/* stripe_excluded, counting the stripe as pruned when it is */
static bool
skip_stripe(ColReader *r, int si)
{
	if (!stripe_excluded(r, si))
		return false;
	r->stripes_pruned++;
	return true;
}

void
col_reader_end(ColReader *r)
{
	MemoryContextDelete(r->stripe_cxt);
	MemoryContextDelete(r->batch_cxt);
	MemoryContextDelete(r->buffers_cxt);
	FreeAccessStrategy(r->strategy);
}

uint64
col_reader_total_rows(ColReader *r)
{
	uint64		total = 0;
	ListCell   *lc;

	foreach(lc, r->stripes)
		total += stripe_visible_rows(lfirst(lc), r->snapshot);
	return total;
}

static void
load_stripe(ColReader *r, int index)
{
	MemoryContext old;
	int			g;

	if (r->stripe_index == index)
		return;
	MemoryContextReset(r->stripe_cxt);
	if (r->stripe != NULL)
		stripe_meta_release_columns(r->stripe);
	old = MemoryContextSwitchTo(r->stripe_cxt);
	r->stripe_index = index;
	r->group_index = -1;
	r->stripe = list_nth(r->stripes, index);
	stripe_columns(r, r->stripe);
	r->group_rows = palloc0(sizeof(uint32) * Max(r->stripe->chunk_group_count, 1));
	r->group_first_row = palloc0(sizeof(uint64) * (r->stripe->chunk_group_count + 1));
	r->chunks = stripe_meta_chunks(r->stripe, r->snapshot, r->group_rows);
	for (g = 0; g < r->stripe->chunk_group_count; g++)
		r->group_first_row[g + 1] = r->group_first_row[g] + r->group_rows[g];
	if (r->group_first_row[r->stripe->chunk_group_count] != r->stripe->row_count)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("metadata of table \"%s\" is damaged",
						RelationGetRelationName(r->rel)),
				 errdetail("Stripe " UINT64_FORMAT ": chunk group row counts do not add up to the stripe's.",
						   r->stripe->stripe_num)));
	r->visible_rows = stripe_visible_rows(r->stripe, r->snapshot);
	r->deleted = storage_deleted_rows(r->stripe->storage_id,
									  r->stripe->first_row_number,
									  r->stripe->last_row_number,
									  r->snapshot, &r->ndeleted);
	MemoryContextSwitchTo(old);
}

/*
 * Column attno's value and null arrays for nrows rows: the reader's
 * buffers, reused by every chunk group (a group's arrays are dead once the
 * next one loads).
 */
static void
column_arrays(ColReader *r, int attno, uint32 nrows, ColumnBatch *col)
{
	col->values = (Datum *) col_buffer(&r->buffers[attno].values,
									   sizeof(Datum) * Max(nrows, 1));
	col->isnull = (bool *) col_buffer(&r->buffers[attno].isnull,
									  sizeof(bool) * Max(nrows, 1));
	col->scaled = NULL;
	col->made = NULL;
}

/* Decodes one column chunk of the current group. */
static void
load_column(ColReader *r, int attno, uint32 nrows, ColumnBatch *col)
{
	ColChunkRef ref;

	ref.rel = r->rel;
	ref.stripe = r->stripe;
	ref.group = r->group_index;
	ref.attr = TupleDescAttr(r->desc, attno);
	ref.chunk = &r->chunks[r->group_index * r->stripe->column_count + attno];
	ref.rows = nrows;
	ref.strategy = r->strategy;
	ref.pin = NULL;
	ref.keep_frames = false;
	ref.share_frames = false;
	ref.dict_hint = NULL;
	ref.dir_hint = NULL;
	column_arrays(r, attno, nrows, col);
#ifdef HAVE_SCALED_NUMERIC
	if (r->scaled_only != NULL && r->scaled_only[attno])
	{
		ColumnBuffers *buffers = &r->buffers[attno];
		ScaledNumeric *scaled = (ScaledNumeric *)
			col_buffer(&buffers->scaled, sizeof(ScaledNumeric) * Max(nrows, 1));

		if (col_chunk_decode(&ref, &buffers->stored, &buffers->raw,
							 col->values, col->isnull, scaled))
		{
			col->scaled = scaled;
			col->made = col_buffer(&buffers->made,
								   (Size) NUMERIC_WRITE_MAX_SIZE * Max(nrows, 1));
		}
		col->loaded = true;
		return;
	}
#endif
	col_chunk_decode(&ref, &r->buffers[attno].stored, &r->buffers[attno].raw,
					 col->values, col->isnull, NULL);
	col->loaded = true;
}

/* A column the stripe predates: every row has the column's missing value. */
static void
fill_missing(ColReader *r, int attno, uint32 nrows, ColumnBatch *col)
{
	bool		isnull;
	Datum		value = getmissingattr(r->desc, attno + 1, &isnull);
	uint32		i;

	column_arrays(r, attno, nrows, col);
	for (i = 0; i < nrows; i++)
	{
		col->values[i] = value;
		col->isnull[i] = isnull;
	}
	col->loaded = true;
}

/* Removes the rows the snapshot sees deleted from the loaded batch. */
static void
drop_deleted_rows(ColReader *r)
{
	RowBatch   *b = &r->batch;
	uint32		i;
	uint32		k = 0;
	int			a;

	for (i = 0; i < b->nrows; i++)
	{
		if (row_number_in(r->deleted, r->ndeleted, b->rownums[i]))
			continue;
		if (k != i)
		{
			for (a = 0; a < b->natts; a++)
			{
				if (!b->cols[a].loaded)
					continue;
				b->cols[a].values[k] = b->cols[a].values[i];
				b->cols[a].isnull[k] = b->cols[a].isnull[i];
#ifdef HAVE_SCALED_NUMERIC
				/* packed decimals left scaled: their array is the reader's */
				if (b->cols[a].scaled != NULL)
				{
					ScaledNumeric *scaled = (ScaledNumeric *) r->buffers[a].scaled.data;

					scaled[k] = scaled[i];
				}
#endif
			}
			b->rownums[k] = b->rownums[i];
		}
		k++;
	}
	b->nrows = k;
}

static void
load_group(ColReader *r, int group)
{
	TupleDesc	desc = r->desc;
	RowBatch   *b = &r->batch;
	uint64		first = r->group_first_row[group];
	uint32		nrows = r->group_rows[group];
	MemoryContext old;
	uint64		idx;
	int			run;
	uint64		run_start;
	uint32		i;
	int			a;

	MemoryContextReset(r->batch_cxt);
	old = MemoryContextSwitchTo(r->batch_cxt);
	r->group_index = group;

	/* rows of this transaction's later commands are not visible */
	if (first + nrows > r->visible_rows)
		nrows = r->visible_rows > first ? (uint32) (r->visible_rows - first) : 0;

	/* a chunk group the filter excludes is not read at all */
	r->batch_all_match = false;
	if (nrows > 0 && r->filter != NULL)
	{
		if (r->filter(r->filter_arg, group_stats, r))
		{
			r->groups_pruned++;
			nrows = 0;
		}
		else
		{
			r->groups_read++;
			if (r->all_match != NULL &&
				r->all_match(r->filter_arg, group_stats, r))
			{
				r->batch_all_match = true;
				r->groups_matched++;
			}
		}
	}
	else if (nrows > 0)
		r->groups_read++;

	b->natts = desc->natts;
	b->nrows = nrows;
	b->cols = palloc0(sizeof(ColumnBatch) * Max(desc->natts, 1));
	for (a = 0; a < desc->natts; a++)
	{
		CHECK_FOR_INTERRUPTS();
		if (!r->projected[a] || TupleDescAttr(desc, a)->attisdropped)
			continue;
		if (a >= r->stripe->column_count)
			fill_missing(r, a, nrows, &b->cols[a]);
		else
			load_column(r, a, r->group_rows[group], &b->cols[a]);
	}

	/* row numbers: walk the stripe's runs to the group's first row */
	b->rownums = (uint64 *) col_buffer(r->rownums_buffer,
									   sizeof(uint64) * Max(nrows, 1));
	run = 0;
	run_start = 0;
	idx = first;
	for (i = 0; i < nrows; i++, idx++)
	{
		while (run < r->stripe->nruns &&
			   idx >= run_start + r->stripe->runs[run].count)
		{
			run_start += r->stripe->runs[run].count;
			run++;
		}
		if (run >= r->stripe->nruns)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("metadata of table \"%s\" is damaged",
							RelationGetRelationName(r->rel)),
					 errdetail("Stripe " UINT64_FORMAT ": row runs cover fewer rows than the stripe has.",
							   r->stripe->stripe_num)));
		b->rownums[i] = r->stripe->runs[run].first + (idx - run_start);
	}
	if (r->deleted != NULL)
		drop_deleted_rows(r);
	b->sel = NULL;
	b->nsel = b->nrows;
	MemoryContextSwitchTo(old);
}

/*
 * Claims the next range of chunk groups: a share of what is left, so that
 * a participant's groups lie in few stripes (each stripe a participant
 * touches costs it the stripe's chunk metadata and dictionaries) while the
 * ranges shrink to single groups towards the end, where participants must
 * finish together.
 */
#define CLAIM_SHARE 6

static bool
claim_range(ColReader *r, uint64 total)
{
	uint64		next = pg_atomic_read_u64(&r->parallel->next_group);

	for (;;)
	{
		uint64		n;

		if (next >= total)
			return false;
		n = Max((total - next) / CLAIM_SHARE, 1);
		/* on failure next is reread */
		if (pg_atomic_compare_exchange_u64(&r->parallel->next_group, &next, next + n))
		{
			r->claim_next = next;
			r->claim_end = next + n;
			return true;
		}
	}
}

/*
 * A parallel scan's next chunk group: *si and *group; false when none is
 * left.  Participants claim groups, not stripes, so that they finish
 * together even over a few large stripes; every one lists the same
 * stripes (same snapshot), so a group's number means the same to all.  A
 * stripe is counted read or pruned by whoever claims its first group, so
 * EXPLAIN's counts are those of a serial scan.
 */
static bool
claim_group(ColReader *r, int *si, int *group)
{
	uint64		total = r->group_start[r->nstripes];

	for (;;)
	{
		uint64		unit;
		int			s = r->claim_stripe;
		uint64		g;

		if (r->claim_next >= r->claim_end && !claim_range(r, total))
			return false;
		unit = r->claim_next++;
		/* one participant's claims only grow */
		while (unit >= r->group_start[s + 1])
			s++;
		r->claim_stripe = s;
		g = unit - r->group_start[s];
		if (r->claim_tested != s)
		{
			r->claim_excluded = stripe_excluded(r, s);
			r->claim_tested = s;
		}
		if (g == 0)
		{
			if (r->claim_excluded)
				r->stripes_pruned++;
			else
				r->stripes_read++;
		}
		if (!r->claim_excluded)
		{
			*si = s;
			*group = (int) g;
			return true;
		}
	}
}

bool
col_reader_next_batch(ColReader *r, bool forward)
{
	for (;;)
	{
		int			si = r->stripe_index;
		int			gi = r->group_index;

		if (r->parallel != NULL)
		{
			int			group;

			if (!claim_group(r, &si, &group))
				return false;
			load_stripe(r, si);
			load_group(r, group);
		}
		else if (forward)
		{
			if (si < 0 || gi + 1 >= r->stripe->chunk_group_count)
			{
				do
					si++;
				while (si < r->nstripes && skip_stripe(r, si));
				if (si >= r->nstripes)
					return false;
				load_stripe(r, si);
				r->stripes_read++;
				gi = -1;
			}
			load_group(r, gi + 1);
		}
		else
		{
			if (si < 0)
				si = r->nstripes;
			if (si >= r->nstripes || gi <= 0)
			{
				do
					si--;
				while (si >= 0 && skip_stripe(r, si));
				if (si < 0)
					return false;
				load_stripe(r, si);
				r->stripes_read++;
				gi = r->stripe->chunk_group_count;
			}
			load_group(r, gi - 1);
		}
		if (r->batch.nrows > 0)
			return true;
	}
}

void
col_reader_store_row(ColReader *r, uint32 row, TupleTableSlot *slot)
{
	RowBatch   *b = &r->batch;
	int			natts = slot->tts_tupleDescriptor->natts;
	int			a;

	ExecClearTuple(slot);

	/*
	 * Columns not read stay NULL: set them once per batch and slot, then
	 * only the loaded columns change from row to row.
	 */
	if (r->filled_slot != slot || r->filled_batch != b->cols)
	{
		for (a = 0; a < natts; a++)
		{
			slot->tts_values[a] = (Datum) 0;
			slot->tts_isnull[a] = true;
		}
		r->nloaded = 0;
		for (a = 0; a < natts && a < b->natts; a++)
			if (b->cols[a].loaded)
				r->loaded[r->nloaded++] = a;
		r->filled_slot = slot;
		r->filled_batch = b->cols;
	}
	for (a = 0; a < r->nloaded; a++)
	{
		int			col = r->loaded[a];

		batch_make_value(&b->cols[col], row);
		slot->tts_values[col] = b->cols[col].values[row];
		slot->tts_isnull[col] = b->cols[col].isnull[row];
	}
	ExecStoreVirtualTuple(slot);
	row_number_to_tid(b->rownums[row], &slot->tts_tid);
	slot->tts_tableOid = RelationGetRelid(r->rel);
}

bool
col_reader_next_slot(ColReader *r, bool forward, TupleTableSlot *slot)
{
	if (r->desc != slot->tts_tupleDescriptor)
		col_reader_use_desc(r, slot->tts_tupleDescriptor);
	for (;;)
	{
		if (r->have_batch)
		{
			int64		next = r->pos + (forward ? 1 : -1);

			if (next >= 0 && next < (int64) r->batch.nrows)
			{
				r->pos = next;
				col_reader_store_row(r, (uint32) next, slot);
				return true;
			}
		}
		if (!col_reader_next_batch(r, forward))
		{
			/* stay past the end, so the opposite direction resumes */
			if (r->have_batch)
				r->pos = forward ? (int64) r->batch.nrows : -1;
			ExecClearTuple(slot);
			return false;
		}
		r->have_batch = true;
		r->pos = forward ? -1 : (int64) r->batch.nrows;
	}
}

void
col_reader_load_group(ColReader *r, int stripe, int group)
{
	load_stripe(r, stripe);
	load_group(r, group);
}

void
col_reader_reset(ColReader *r, bool forward)
{
	if (r->stripe != NULL)
		stripe_meta_release_columns(r->stripe);
	r->stripe_index = -1;
	r->group_index = -1;
	r->stripe = NULL;
	r->batch.nrows = 0;
	r->have_batch = false;
	r->claim_stripe = 0;
	r->claim_tested = -1;
	r->claim_next = r->claim_end = 0;
	MemoryContextReset(r->stripe_cxt);
	MemoryContextReset(r->batch_cxt);
}
