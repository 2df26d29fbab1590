/*-------------------------------------------------------------------------
 *
 * stream_runs.c
 *	  Owns engine.row_run: one row per run of consecutive row numbers of a
 *	  stream (RowRun, format/row_runs.h), written and deleted together with
 *	  the stream's metadata row, in the same transaction.
 *
 *	  Fetching a row by TID needs the stream holding its row number.  The
 *	  streams' own rows say it (first and last row number, runs), but
 *	  finding it there meant reading every stream's metadata row once per
 *	  statement: a lookup of one row in a table of 100,000 batches read
 *	  100,000 rows.  Here it is found through an index.  Row numbers are
 *	  handed out once (reservations in the metapage are never given back),
 *	  and every rewrite (VACUUM, repack, merge, moving a stream) gives the
 *	  rows it copies new numbers: no two run rows ever written for a
 *	  storage overlap, whether their streams live, died or never
 *	  committed.  So the run holding a row number is the one with the
 *	  greatest first row number at or below it, and it holds the row for a
 *	  snapshot exactly when that snapshot sees it: a backward index scan
 *	  that stops at the first row the snapshot sees finds it, under any
 *	  snapshot (a dirty one too).
 *
 *	  A StreamFinder uses the index for the first streams a fetch meets and
 *	  lists them all once it has met many (see stream_runs.h).
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "utils/fmgroids.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "catalog/meta_tables.h"
#include "catalog/stream_hints.h"
#include "catalog/stream_runs.h"

enum
{
	Anum_row_run_storage_id = 1,
	Anum_row_run_stream_num,
	Anum_row_run_first_row_number,
	Anum_row_run_row_count,
	Natts_row_run = Anum_row_run_row_count
};

void
stream_runs_insert(uint64 storage_id, uint64 stream_num, const RowRun *runs,
				   int nruns)
{
	Relation	rel = meta_table_open("row_run", RowExclusiveLock);
	CatalogIndexState indstate;
	int			i;

	meta_check_columns("row_run", RelationGetDescr(rel), Natts_row_run);
	indstate = CatalogOpenIndexes(rel);
	for (i = 0; i < nruns; i++)
	{
		Datum		values[Natts_row_run];
		bool		nulls[Natts_row_run] = {0};
		HeapTuple	tuple;

		if (runs[i].count == 0)
			continue;
		values[Anum_row_run_storage_id - 1] = Int64GetDatum((int64) storage_id);
		values[Anum_row_run_stream_num - 1] = Int64GetDatum((int64) stream_num);
		values[Anum_row_run_first_row_number - 1] = Int64GetDatum((int64) runs[i].first);
		values[Anum_row_run_row_count - 1] = Int64GetDatum((int64) runs[i].count);
		tuple = heap_form_tuple(RelationGetDescr(rel), values, nulls);
		CatalogTupleInsertWithInfo(rel, tuple, indstate);
		heap_freetuple(tuple);
	}
	CatalogCloseIndexes(indstate);
	table_close(rel, RowExclusiveLock);
}

/* The run a row of engine.row_run records. */
static StreamRun
run_from_tuple(HeapTuple tuple, TupleDesc desc)
{
	Datum		values[Natts_row_run];
	bool		nulls[Natts_row_run];
	StreamRun	run;

	heap_deform_tuple(tuple, desc, values, nulls);
	run.stream_num = (uint64) DatumGetInt64(values[Anum_row_run_stream_num - 1]);
	run.run.first = (uint64) DatumGetInt64(values[Anum_row_run_first_row_number - 1]);
	run.run.count = (uint64) DatumGetInt64(values[Anum_row_run_row_count - 1]);
	return run;
}

StreamRun *
stream_runs_read(uint64 storage_id, Snapshot snapshot, int *n)
{
	Relation	rel = meta_table_open("row_run", AccessShareLock);
	Relation	index = index_open(meta_table_relid("row_run_lookup"),
								   AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	int			max = 16;
	StreamRun  *runs = palloc(sizeof(StreamRun) * max);

	meta_check_columns("row_run", RelationGetDescr(rel), Natts_row_run);
	meta_storage_key(&key, Anum_row_run_storage_id, storage_id);
	scan = systable_beginscan_ordered(rel, index,
									  meta_snapshot_for(snapshot, storage_id),
									  1, &key);
	*n = 0;
	while (HeapTupleIsValid(tuple = systable_getnext_ordered(scan, ForwardScanDirection)))
	{
		if (*n == max)
		{
			max *= 2;
			runs = repalloc(runs, sizeof(StreamRun) * max);
		}
		runs[(*n)++] = run_from_tuple(tuple, RelationGetDescr(rel));
	}
	systable_endscan_ordered(scan);
	index_close(index, AccessShareLock);
	table_close(rel, AccessShareLock);
	return runs;
}

void
stream_runs_delete(uint64 storage_id, int64 stream_num)
{
	meta_delete_rows("row_run", "row_run_pkey", storage_id, stream_num);
}

bool
stream_runs_settled(uint64 storage_id, TransactionId horizon)
{
	return meta_rows_settled("row_run", "row_run_pkey", storage_id, horizon,
							 NULL);
}

bool
stream_runs_find(uint64 storage_id, uint64 rownum, Snapshot snapshot,
				 uint64 *stream_num, TransactionId *writer)
{
	Relation	rel = meta_table_open("row_run", AccessShareLock);
	Relation	index = index_open(meta_table_relid("row_run_lookup"),
								   AccessShareLock);
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tuple;
	bool		found = false;

	meta_check_columns("row_run", RelationGetDescr(rel), Natts_row_run);
	meta_storage_key(&keys[0], Anum_row_run_storage_id, storage_id);
	ScanKeyInit(&keys[1], Anum_row_run_first_row_number,
				BTLessEqualStrategyNumber, F_INT8LE,
				Int64GetDatum((int64) rownum));
	scan = systable_beginscan_ordered(rel, index,
									  meta_snapshot_for(snapshot, storage_id),
									  2, keys);
	tuple = systable_getnext_ordered(scan, BackwardScanDirection);
	if (HeapTupleIsValid(tuple))
	{
		StreamRun	run = run_from_tuple(tuple, RelationGetDescr(rel));

		found = rownum - run.run.first < run.run.count;
		if (found)
			*stream_num = run.stream_num;
		if (found && writer != NULL)
			*writer = HeapTupleHeaderGetXmin(tuple->t_data);
	}
	systable_endscan_ordered(scan);
	index_close(index, AccessShareLock);
	table_close(rel, AccessShareLock);
	return found;
}

void
stream_finder_init(StreamFinder *f, const StreamFinderOps *ops, Relation rel,
				   uint64 storage_id, Snapshot snapshot, MemoryContext cxt)
{
	memset(f, 0, sizeof(StreamFinder));
	f->ops = ops;
	f->rel = rel;
	f->storage_id = storage_id;
	f->snapshot = snapshot;
	f->cxt = cxt;
}

/* Adds stream (in f->cxt) at the end of the finder's streams. */
static void
add_stream(StreamFinder *f, void *stream)
{
	if (f->n == f->max)
	{
		f->max = Max(8, f->max * 2);
		f->streams = f->streams == NULL ?
			MemoryContextAlloc(f->cxt, sizeof(void *) * f->max) :
			repalloc(f->streams, sizeof(void *) * f->max);
		f->entries = f->entries == NULL ?
			MemoryContextAlloc(f->cxt, sizeof(StreamLookupEntry) * f->max) :
			repalloc(f->entries, sizeof(StreamLookupEntry) * f->max);
		f->nums = f->nums == NULL ?
			MemoryContextAlloc(f->cxt, sizeof(uint64) * f->max) :
			repalloc(f->nums, sizeof(uint64) * f->max);
	}
	f->ops->describe(stream, &f->nums[f->n], &f->entries[f->n]);
	f->streams[f->n++] = stream;
}

/*
 * Adds every stream the snapshot sees that the finder does not know yet
 * (those it knows keep their index) and builds the lookup over all.
 */
static void
list_all(StreamFinder *f)
{
	MemoryContext old = MemoryContextSwitchTo(f->cxt);
	List	   *all = f->ops->list(f->storage_id, f->snapshot);
	int			known = f->n;
	ListCell   *lc;

	foreach(lc, all)
	{
		uint64		num;
		StreamLookupEntry entry;
		int			i;

		f->ops->describe(lfirst(lc), &num, &entry);
		for (i = 0; i < known && f->nums[i] != num; i++)
			;
		if (i == known)
			add_stream(f, lfirst(lc));
	}
	f->lookup = row_runs_lookup_build(f->entries, f->n);
	MemoryContextSwitchTo(old);
}

void
stream_finder_known(StreamFinder *f, List *streams)
{
	MemoryContext old = MemoryContextSwitchTo(f->cxt);
	ListCell   *lc;

	foreach(lc, streams)
		add_stream(f, lfirst(lc));
	f->lookup = row_runs_lookup_build(f->entries, f->n);
	MemoryContextSwitchTo(old);
}

/*
 * Adds the stream a hint gives for rownum when the snapshot sees it and it
 * holds rownum; its index in the finder, or -1.
 */
static int
find_hinted(StreamFinder *f, uint64 rownum, uint64 *pos)
{
	MemoryContext old;
	ItemPointerData tid;
	uint64		num;
	uint64		found_num;
	StreamLookupEntry entry;
	void	   *stream;

	/* other snapshots (SnapshotAny) could see two streams holding rownum */
	if (f->snapshot == NULL || !IsMVCCSnapshot(f->snapshot) ||
		!stream_hint_find(f->storage_id, rownum, &num, &tid))
		return -1;
	old = MemoryContextSwitchTo(f->cxt);
	stream = f->ops->fetch(f->storage_id, num, f->snapshot, &tid);
	MemoryContextSwitchTo(old);
	if (stream == NULL)
		return -1;
	f->ops->describe(stream, &found_num, &entry);
	if (rownum < entry.first || rownum > entry.last ||
		!row_runs_find(entry.runs, entry.nruns, rownum, pos))
		return -1;
	add_stream(f, stream);
	return f->n - 1;
}

int
stream_finder_find(StreamFinder *f, uint64 rownum, uint64 *pos)
{
	MemoryContext old;
	ItemPointerData tid;
	void	   *stream;
	uint64		num;
	int			i;

	if (f->lookup != NULL)
		return row_runs_lookup(f->lookup, rownum, pos);
	for (i = 0; i < f->n; i++)
	{
		const StreamLookupEntry *e = &f->entries[i];

		if (rownum >= e->first && rownum <= e->last &&
			row_runs_find(e->runs, e->nruns, rownum, pos))
			return i;
	}
	if ((i = find_hinted(f, rownum, pos)) >= 0)
		return i;
	if (f->lookups >= STREAM_FINDER_LOOKUPS_BEFORE_LIST)
	{
		list_all(f);
		return row_runs_lookup(f->lookup, rownum, pos);
	}

	f->lookups++;
	if (!stream_runs_find(f->storage_id, rownum, f->snapshot, &num, NULL))
		return -1;
	old = MemoryContextSwitchTo(f->cxt);
	ItemPointerSetInvalid(&tid);
	stream = f->ops->get(f->storage_id, num, f->snapshot, &tid);
	MemoryContextSwitchTo(old);
	if (stream != NULL)
		add_stream(f, stream);
	else if (f->snapshot != NULL && !IsMVCCSnapshot(f->snapshot) &&
			 !stream_runs_find(f->storage_id, rownum, f->snapshot, &num, NULL))
	{
		/*
		 * Not an MVCC snapshot: the stream's writer rolled back, or its
		 * retirement committed, between the two reads.
		 */
		return -1;
	}
	i = f->n - 1;
	if (stream == NULL ||
		!row_runs_find(f->entries[i].runs, f->entries[i].nruns, rownum, pos))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("metadata of table \"%s\" is damaged",
						RelationGetRelationName(f->rel)),
				 errdetail("engine.row_run gives row number " UINT64_FORMAT " to %s " UINT64_FORMAT ", which %s.",
						   rownum, f->ops->kind, num,
						   stream == NULL ? "has no metadata row" : "does not hold it"),
				 errhint("Check the table with %s.", f->ops->verify_function)));
	stream_hint_add(f->storage_id, num, &tid, f->entries[i].runs,
					f->entries[i].nruns);
	return i;
}
