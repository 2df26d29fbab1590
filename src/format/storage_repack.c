/*-------------------------------------------------------------------------
 *
 * storage_repack.c
 *	  Rewriting streams (stripes, batches) without their deleted rows, for
 *	  both access methods: VACUUM rewrites the ones whose deleted rows
 *	  reach storage_engine.vacuum_rewrite_threshold and the small ones
 *	  together, and the repack functions (sql_api/repack_api.c) the ones
 *	  they are asked to.
 *
 *	  A rewrite is MVCC-safe the way colcompress_merge is: under the
 *	  rewrite lock (no DELETE, UPDATE or row lock runs), the rows a fresh
 *	  snapshot sees are written as new streams with new row numbers and
 *	  index entries, and the old streams are retired in the same
 *	  transaction; older snapshots keep reading the old streams until
 *	  VACUUM frees them (catalog/free_space.c).
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "catalog/free_space.h"
#include "format/row_number.h"
#include "format/storage.h"
#include "format/storage_am.h"

typedef struct Copy
{
	const StorageAm *am;
	Relation	rel;
	void	   *writer;
	StorageIndexInserter *indexes;
	CommandId	cid;
} Copy;

static void
copy_row(TupleTableSlot *slot, void *arg)
{
	Copy	   *c = arg;

	CHECK_FOR_INTERRUPTS();
	c->am->insert(c->writer, c->rel, slot, c->cid);
	storage_index_inserter_add(c->indexes, slot);
}

uint64
storage_stream_deleted_rows(uint64 storage_id, const StreamInfo *s,
							Snapshot snapshot)
{
	int			n;
	uint64	   *rows = storage_deleted_rows(storage_id, s->first_row_number,
											s->last_row_number, snapshot, &n);
	uint64		deleted = 0;
	uint64		pos;
	int			i;

	/* streams of concurrent writers interleave their row numbers */
	for (i = 0; i < n; i++)
		if (row_runs_find(s->runs, s->nruns, rows[i], &pos))
			deleted++;
	return deleted;
}

void
storage_retire_stream(const StorageAm *am, uint64 storage_id,
					  const StreamInfo *s)
{
	RetiredStream retired;

	retired.stream_num = s->stream_num;
	retired.first_block = s->first_block;
	retired.block_count = storage_stream_blocks(s->data_length);
	retired.first_row_number = s->first_row_number;
	retired.last_row_number = s->last_row_number;
	retired.runs = s->runs;
	retired.nruns = s->nruns;
	am->delete_stream(storage_id, s->stream_num);
	free_space_retire(storage_id, &retired);
}

/*
 * Writes the rows snapshot sees of the chosen streams (StreamInfo, in
 * stream order) into new streams with their index entries, and retires the
 * chosen ones.  Rows of several streams fill new streams together, unless
 * one_by_one: then each stream's rows make streams of their own, about its
 * size (a move into a hole that fits it).
 */
static void
rewrite_chosen(const StorageAm *am, Relation rel, uint64 storage_id,
			   Snapshot snapshot, List *chosen, bool one_by_one,
			   MemoryContext cxt)
{
	uint64	   *nums = palloc(sizeof(uint64) * list_length(chosen));
	ListCell   *lc;
	Copy		c;
	int			n = 0;
	int			step;
	int			i;

	foreach(lc, chosen)
		nums[n++] = ((StreamInfo *) lfirst(lc))->stream_num;
	c.am = am;
	c.rel = rel;
	c.cid = GetCurrentCommandId(true);
	c.writer = am->writer_ops->create(rel, cxt);
	c.indexes = storage_index_inserter_begin(rel);
	step = one_by_one ? 1 : n;
	for (i = 0; i < n; i += step)
	{
		am->copy_streams(rel, snapshot, &nums[i], step, copy_row, &c);
		pending_writer_flush(am->writer_ops, c.writer, rel);
	}
	am->writer_ops->free(c.writer);
	storage_index_inserter_end(c.indexes);
	foreach(lc, chosen)
		storage_retire_stream(am, storage_id, lfirst(lc));
	CommandCounterIncrement();
}

/* Chooses streams to rewrite; see the callers. */
typedef List *(*ChooseFn) (List *streams, uint64 storage_id, Snapshot snapshot,
						   void *arg);

static int
rewrite(const StorageAm *am, Relation rel, ChooseFn choose, void *arg,
		bool one_by_one)
{
	StorageMeta meta;
	Snapshot	snapshot;
	MemoryContext cxt;
	MemoryContext old;
	List	   *chosen;
	int			n;

	if (!storage_read_meta(rel, &meta))
		return 0;
	cxt = AllocSetContextCreate(CurrentMemoryContext, "storage rewrite",
								ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);

	/* this transaction's own buffered rows count too */
	pending_flush_for_read(rel);
	CommandCounterIncrement();
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	chosen = choose(am->list_streams(meta.storage_id, snapshot),
					meta.storage_id, snapshot, arg);
	n = list_length(chosen);
	if (n > 0)
		rewrite_chosen(am, rel, meta.storage_id, snapshot, chosen, one_by_one,
					   cxt);
	UnregisterSnapshot(snapshot);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return n;
}

static int
cmp_by_stream(const ListCell *a, const ListCell *b)
{
	uint64		x = ((StreamInfo *) lfirst(a))->stream_num;
	uint64		y = ((StreamInfo *) lfirst(b))->stream_num;

	return x < y ? -1 : x > y ? 1 : 0;
}

typedef struct ByDeletes
{
	double		deleted_fraction;
	uint64		from_stream;	/* in: first to consider; out: next call's */
	uint64		below_stream;
	uint64		max_bytes;		/* 0: no limit */
	uint64		small_rows;		/* streams of fewer rows merge; 0: none */
} ByDeletes;

/*
 * The streams of streams below b->below_stream that hold fewer than rows
 * rows and are not in chosen.  Both lists are in stream order, chosen a
 * sublist of streams: one walk, for tables of many thousand streams.
 */
static List *
streams_under(List *streams, List *chosen, const ByDeletes *b, uint64 rows)
{
	List	   *found = NIL;
	int			next = 0;
	ListCell   *lc;

	foreach(lc, streams)
	{
		StreamInfo *s = lfirst(lc);

		if (next < list_length(chosen) && list_nth(chosen, next) == s)
			next++;
		else if (s->stream_num < b->below_stream && s->row_count < rows)
			found = lappend(found, s);
	}
	return found;
}

static List *
choose_by_deletes(List *streams, uint64 storage_id, Snapshot snapshot,
				  void *arg)
{
	ByDeletes  *b = arg;
	List	   *chosen = NIL;
	uint64		bytes = 0;
	ListCell   *lc;

	/*
	 * In stream order, so that a step's successor goes on where it stopped:
	 * repacking a table of many streams must not look at the first ones
	 * again at every step (each look counts a stream's deleted rows).
	 */
	list_sort(streams, cmp_by_stream);
	foreach(lc, streams)
	{
		StreamInfo *s = lfirst(lc);
		uint64		deleted;

		if (s->stream_num < b->from_stream || s->stream_num >= b->below_stream)
			continue;
		if (b->max_bytes > 0 && chosen != NIL &&
			bytes + s->data_length > b->max_bytes)
		{
			b->from_stream = s->stream_num;
			return chosen;
		}
		if (b->deleted_fraction >= 0)
		{
			deleted = storage_stream_deleted_rows(storage_id, s, snapshot);
			if (deleted == 0 || s->row_count == 0 ||
				(double) deleted < b->deleted_fraction * (double) s->row_count)
				continue;
		}
		chosen = lappend(chosen, s);
		bytes += s->data_length;
	}
	b->from_stream = b->below_stream;

	/*
	 * A rewrite without a limit (VACUUM's) takes along the streams holding
	 * fewer rows than the fullest one it rewrites, to fill new streams
	 * together.  Left alone, such a stream at the end of the relation (an
	 * UPDATE's rows) keeps the space the rewrite freed before it from ever
	 * being truncated when it does not fit in it: 10% of the table after
	 * an UPDATE of every tenth row.
	 */
	if (chosen != NIL && b->max_bytes == 0)
	{
		uint64		fullest = 0;

		foreach(lc, chosen)
			fullest = Max(fullest, ((StreamInfo *) lfirst(lc))->row_count);
		chosen = list_concat(chosen, streams_under(streams, chosen, b, fullest));
		list_sort(chosen, cmp_by_stream);
	}

	/* VACUUM's: the small streams together, when there are two or more */
	if (b->small_rows > 0)
	{
		List	   *small = streams_under(streams, chosen, b, b->small_rows);

		if (list_length(small) >= 2)
		{
			chosen = list_concat(chosen, small);
			list_sort(chosen, cmp_by_stream);
		}
	}
	return chosen;
}

int
storage_rewrite_streams(const StorageAm *am, Relation rel,
						double deleted_fraction, uint64 *from_stream,
						uint64 below_stream, uint64 max_bytes)
{
	ByDeletes	b = {deleted_fraction, *from_stream, below_stream, max_bytes, 0};
	int			n = rewrite(am, rel, choose_by_deletes, &b, false);

	*from_stream = b.from_stream;
	return n;
}

/*
 * A stream holding less than this share of a full one is small: VACUUM
 * rewrites the small ones together.  A quarter bounds what it writes again
 * of the stream left partly filled at the end of the last such rewrite.
 */
#define SMALL_STREAM_SHARE	4

int
storage_vacuum_rewrite_streams(const StorageAm *am, Relation rel,
							   double deleted_fraction)
{
	ByDeletes	b = {deleted_fraction, 0, PG_UINT64_MAX, 0, 0};

	/* storage_engine.vacuum_rewrite_threshold = 1 turns both off */
	if (deleted_fraction < 1.0)
		b.small_rows = Max(am->stream_row_limit(rel) / SMALL_STREAM_SHARE, 1);
	return rewrite(am, rel, choose_by_deletes, &b, false);
}

static int
cmp_by_block_desc(const ListCell *a, const ListCell *b)
{
	uint64		x = ((StreamInfo *) lfirst(a))->first_block;
	uint64		y = ((StreamInfo *) lfirst(b))->first_block;

	return x > y ? -1 : x < y ? 1 : 0;
}

/*
 * The streams at the end of the relation that fit, first fit, into free
 * extents before them: moving them there lets a later VACUUM truncate the
 * end.
 */
static List *
choose_tail(List *streams, uint64 storage_id, Snapshot snapshot, void *arg)
{
	uint64	   *first;
	uint64	   *count;
	int			n;
	List	   *chosen = NIL;
	ListCell   *lc;

	free_space_extents(storage_id, &first, &count, &n);
	if (n == 0)
		return NIL;
	list_sort(streams, cmp_by_block_desc);
	foreach(lc, streams)
	{
		StreamInfo *s = lfirst(lc);
		uint64		blocks = storage_stream_blocks(s->data_length);
		int			i;

		for (i = 0; i < n; i++)
			if (first[i] < s->first_block && count[i] >= blocks)
				break;
		if (i == n)
			break;
		first[i] += blocks;
		count[i] -= blocks;
		chosen = lappend(chosen, s);
	}
	list_sort(chosen, cmp_by_stream);
	return chosen;
}

int
storage_compact_streams(const StorageAm *am, Relation rel)
{
	return rewrite(am, rel, choose_tail, NULL, true);
}
