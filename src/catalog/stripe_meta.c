/*-------------------------------------------------------------------------
 *
 * stripe_meta.c
 *	  Reading and writing colcompress metadata rows.
 *
 *	  One engine.stripe row per stripe, one engine.chunk_group row per
 *	  chunk group, one engine.chunk row per column per chunk group.  The
 *	  rows are inserted by the transaction that wrote the stripe, after its
 *	  data pages: a snapshot sees a stripe exactly when it sees the rows.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "catalog/chunk_cache.h"
#include "catalog/meta_tables.h"
#include "catalog/stream_runs.h"
#include "catalog/stripe_meta.h"

/* Column numbers of engine.stripe, engine.chunk_group and engine.chunk. */
enum
{
	Anum_stripe_storage_id = 1,
	Anum_stripe_stripe_num,
	Anum_stripe_first_block,
	Anum_stripe_data_length,
	Anum_stripe_row_count,
	Anum_stripe_first_row_number,
	Anum_stripe_last_row_number,
	Anum_stripe_row_runs,
	Anum_stripe_command_ids,
	Anum_stripe_chunk_group_count,
	Anum_stripe_chunk_group_row_limit,
	Anum_stripe_column_count,
	Anum_stripe_attr_min,
	Anum_stripe_attr_max,
	Anum_stripe_attr_null_count,
	Anum_stripe_attr_type,
	Anum_stripe_attr_collation,
	Anum_stripe_attr_dict_offset,
	Anum_stripe_sorted_by,
	Natts_stripe = Anum_stripe_sorted_by
};

enum
{
	Anum_chunk_group_storage_id = 1,
	Anum_chunk_group_stripe_num,
	Anum_chunk_group_chunk_group_num,
	Anum_chunk_group_row_count,
	Natts_chunk_group = Anum_chunk_group_row_count
};

enum
{
	Anum_chunk_storage_id = 1,
	Anum_chunk_stripe_num,
	Anum_chunk_chunk_group_num,
	Anum_chunk_attr_num,
	Anum_chunk_codec,
	Anum_chunk_stored_offset,
	Anum_chunk_stored_length,
	Anum_chunk_raw_length,
	Anum_chunk_value_count,
	Anum_chunk_null_count,
	Anum_chunk_checksum,
	Anum_chunk_min_value,
	Anum_chunk_max_value,
	Anum_chunk_encoding,
	Natts_chunk = Anum_chunk_encoding
};

/*
 * Where a stripe's metadata row is decoded before flatten_stripe copies it
 * out; reset at the start of each row's decoding.
 */
static MemoryContext stripe_decode_cxt = NULL;

/*
 * A decoded stripe's own fields copied out to CurrentMemoryContext as one
 * allocation: a scan keeps every stripe it lists until it ends, and the
 * separate allocations of decoding (a few bytes each, and a header each)
 * made most of its memory.
 */
static StripeMeta *
flatten_stripe(const StripeMeta *src)
{
	Size		size;
	char	   *at;
	StripeMeta *s;

	size = MAXALIGN(sizeof(StripeMeta)) +
		MAXALIGN(sizeof(RowRun) * src->nruns) +
		MAXALIGN(sizeof(CidRun) * src->ncids) +
		(src->sorted_by ? MAXALIGN(strlen(src->sorted_by) + 1) : 0);
	at = palloc(size);
	s = meta_flat_copy(&at, src, sizeof(StripeMeta));
	s->runs = meta_flat_copy(&at, src->runs, sizeof(RowRun) * src->nruns);
	s->cids = meta_flat_copy(&at, src->cids, sizeof(CidRun) * src->ncids);
	if (src->sorted_by != NULL)
		s->sorted_by = meta_flat_copy(&at, src->sorted_by,
									  strlen(src->sorted_by) + 1);
	return s;
}

/*
 * The per-column arrays of a stripe's metadata row (values), decoded into s
 * in CurrentMemoryContext.
 */
static void
decode_columns(StripeMeta *s, const Datum *values)
{
	MetaZoneMap *zone = meta_zone_map_values(&values[Anum_stripe_attr_min - 1],
											 s->column_count);
	int			n;

	if (zone == NULL)
		meta_corrupted("stripe", s->storage_id, "malformed zone map");
	s->zone = *zone;
	s->zone_block = zone;
	s->attr_dict_offset = meta_int8_array_values(values[Anum_stripe_attr_dict_offset - 1], &n);
	if (s->attr_dict_offset == NULL || n != s->column_count)
		meta_corrupted("stripe", s->storage_id, "malformed attr_dict_offset");
	s->columns_loaded = true;
}

/*
 * A stripe from its metadata row, in CurrentMemoryContext; its columns'
 * arrays too when with_columns.
 */
static StripeMeta *
decode_stripe(HeapTuple tuple, TupleDesc desc, bool with_columns)
{
	Datum		values[Natts_stripe];
	bool		nulls[Natts_stripe];
	MemoryContext result_cxt = CurrentMemoryContext;
	StripeMeta *s;
	StripeMeta *flat;

	if (stripe_decode_cxt == NULL)
		stripe_decode_cxt = AllocSetContextCreate(TopMemoryContext,
												  "colcompress stripe row",
												  ALLOCSET_DEFAULT_SIZES);
	MemoryContextReset(stripe_decode_cxt);
	MemoryContextSwitchTo(stripe_decode_cxt);
	s = palloc0(sizeof(StripeMeta));

	meta_check_columns("stripe", desc, Natts_stripe);
	heap_deform_tuple(tuple, desc, values, nulls);
	s->storage_id = DatumGetInt64(values[Anum_stripe_storage_id - 1]);
	s->stripe_num = DatumGetInt64(values[Anum_stripe_stripe_num - 1]);
	s->first_block = DatumGetInt64(values[Anum_stripe_first_block - 1]);
	s->data_length = DatumGetInt64(values[Anum_stripe_data_length - 1]);
	s->row_count = DatumGetInt64(values[Anum_stripe_row_count - 1]);
	s->first_row_number = DatumGetInt64(values[Anum_stripe_first_row_number - 1]);
	s->last_row_number = DatumGetInt64(values[Anum_stripe_last_row_number - 1]);
	s->chunk_group_count = DatumGetInt32(values[Anum_stripe_chunk_group_count - 1]);
	s->chunk_group_row_limit = DatumGetInt32(values[Anum_stripe_chunk_group_row_limit - 1]);
	s->column_count = DatumGetInt32(values[Anum_stripe_column_count - 1]);
	s->written_by_me =
		TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data));
	s->meta_tid = tuple->t_self;

	s->runs = meta_row_runs_values(values[Anum_stripe_row_runs - 1], &s->nruns);
	if (s->runs == NULL)
		meta_corrupted("stripe", s->storage_id, "malformed row_runs");
	s->cids = meta_cid_runs_values(values[Anum_stripe_command_ids - 1], &s->ncids);
	if (s->cids == NULL)
		meta_corrupted("stripe", s->storage_id, "malformed command_ids");
	s->sorted_by = nulls[Anum_stripe_sorted_by - 1] ? NULL :
		TextDatumGetCString(values[Anum_stripe_sorted_by - 1]);

	MemoryContextSwitchTo(result_cxt);
	flat = flatten_stripe(s);
	MemoryContextReset(stripe_decode_cxt);
	if (with_columns)
		decode_columns(flat, values);
	return flat;
}

static void *
stripe_from_tuple(HeapTuple tuple, TupleDesc desc)
{
	return decode_stripe(tuple, desc, true);
}

static void *
listed_stripe_from_tuple(HeapTuple tuple, TupleDesc desc)
{
	return decode_stripe(tuple, desc, false);
}

static int
stripe_cmp(const ListCell *a, const ListCell *b)
{
	uint64		x = ((StripeMeta *) lfirst(a))->stripe_num;
	uint64		y = ((StripeMeta *) lfirst(b))->stripe_num;

	return (x > y) - (x < y);
}

List *
stripe_meta_list(uint64 storage_id, Snapshot snapshot)
{
	List	   *stripes = meta_list_storage("stripe", "stripe_pkey", storage_id,
											snapshot, listed_stripe_from_tuple,
											stripe_cmp);
	ListCell   *lc;

	foreach(lc, stripes)
		((StripeMeta *) lfirst(lc))->snapshot = snapshot;
	return stripes;
}

bool
stripe_meta_columns(StripeMeta *s)
{
	MemoryContext old;
	StripeMeta *full;
	ItemPointerData tid = s->meta_tid;

	if (s->columns_loaded)
		return true;
	old = MemoryContextSwitchTo(GetMemoryChunkContext(s));
	/* no snapshot (ANALYZE's): a catalog snapshot, as the list was read */
	full = s->snapshot == NULL ?
		stripe_meta_get(s->storage_id, s->stripe_num, NULL, NULL) :
		stripe_meta_fetch(s->storage_id, s->stripe_num, s->snapshot, &tid);
	MemoryContextSwitchTo(old);
	if (full == NULL)
		return false;
	s->zone = full->zone;
	s->zone_block = full->zone_block;
	s->attr_dict_offset = full->attr_dict_offset;
	s->columns_loaded = true;
	pfree(full);
	return true;
}

void
stripe_meta_release_columns(StripeMeta *s)
{
	/* a stripe the writer built holds its own arrays */
	if (!s->columns_loaded || s->zone_block == NULL)
		return;
	pfree(s->zone_block);
	pfree(s->attr_dict_offset);
	s->zone_block = NULL;
	memset(&s->zone, 0, sizeof(MetaZoneMap));
	s->attr_dict_offset = NULL;
	s->columns_loaded = false;
}

StripeMeta *
stripe_meta_get(uint64 storage_id, uint64 stripe_num, Snapshot snapshot,
		ItemPointer tid)
{
	return meta_get_stream("stripe", "stripe_pkey", storage_id, stripe_num,
						   snapshot, tid, stripe_from_tuple);
}

StripeMeta *
stripe_meta_fetch(uint64 storage_id, uint64 stripe_num, Snapshot snapshot,
				  ItemPointer tid)
{
	return meta_fetch_stream("stripe", storage_id, stripe_num, snapshot, tid,
							 stripe_from_tuple);
}

static void
chunk_from_values(ChunkMeta *c, const Datum *values, const bool *nulls)
{
	c->codec = DatumGetInt16(values[Anum_chunk_codec - 1]);
	c->encoding = DatumGetInt16(values[Anum_chunk_encoding - 1]);
	c->stored_offset = DatumGetInt64(values[Anum_chunk_stored_offset - 1]);
	c->stored_length = (uint32) DatumGetInt32(values[Anum_chunk_stored_length - 1]);
	c->raw_length = (uint32) DatumGetInt32(values[Anum_chunk_raw_length - 1]);
	c->value_count = (uint32) DatumGetInt32(values[Anum_chunk_value_count - 1]);
	c->null_count = (uint32) DatumGetInt32(values[Anum_chunk_null_count - 1]);
	c->checksum = (uint32) DatumGetInt32(values[Anum_chunk_checksum - 1]);
	c->min_value = nulls[Anum_chunk_min_value - 1] ? NULL :
		DatumGetByteaPCopy(values[Anum_chunk_min_value - 1]);
	c->max_value = nulls[Anum_chunk_max_value - 1] ? NULL :
		DatumGetByteaPCopy(values[Anum_chunk_max_value - 1]);
}

/*
 * The chunks of chunk groups [first, first + ngroups) of the stripe,
 * [ngroups * column_count] in group-major order, each checked present once.
 *
 * NULL when chunks are missing because the stripe itself is gone: a snapshot
 * that is not MVCC (a unique check's dirty snapshot) sees each metadata row
 * as of the moment it reads it, so the stripe found a moment ago may since
 * have been rolled back or retired by a commit.  Its rows are then gone too.
 */
static ChunkMeta *
read_chunks(const StripeMeta *stripe, Snapshot snap, int first, int ngroups)
{
	int			ncols = stripe->column_count;
	ChunkMeta  *chunks = palloc0(sizeof(ChunkMeta) * Max(ngroups * ncols, 1));
	bool	   *seen = palloc0(sizeof(bool) * Max(ngroups * ncols, 1));
	ScanKeyData keys[3];
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tuple;
	int			i;

	meta_storage_key(&keys[0], Anum_chunk_storage_id, stripe->storage_id);
	ScanKeyInit(&keys[1], Anum_chunk_stripe_num, BTEqualStrategyNumber,
				F_INT8EQ, Int64GetDatum((int64) stripe->stripe_num));
	ScanKeyInit(&keys[2], Anum_chunk_chunk_group_num, BTEqualStrategyNumber,
				F_INT4EQ, Int32GetDatum(first));
	rel = meta_table_open("chunk", AccessShareLock);
	scan = systable_beginscan(rel, meta_table_relid("chunk_pkey"), true,
							  snap, ngroups == 1 ? 3 : 2, keys);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Datum		values[Natts_chunk];
		bool		nulls[Natts_chunk];
		int			g;
		int			a;

		heap_deform_tuple(tuple, RelationGetDescr(rel), values, nulls);
		g = DatumGetInt32(values[Anum_chunk_chunk_group_num - 1]) - first;
		a = DatumGetInt32(values[Anum_chunk_attr_num - 1]);
		if (g < 0 || g >= ngroups || a < 1 || a > ncols || seen[g * ncols + a - 1])
			meta_corrupted("chunk", stripe->storage_id, "chunk number out of range");
		seen[g * ncols + a - 1] = true;
		chunk_from_values(&chunks[g * ncols + a - 1], values, nulls);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);

	for (i = 0; i < ngroups * ncols; i++)
		if (!seen[i])
		{
			if (snap != NULL && !IsMVCCSnapshot(snap) &&
				stripe_meta_get(stripe->storage_id, stripe->stripe_num, snap,
								NULL) == NULL)
				return NULL;
			meta_corrupted("chunk", stripe->storage_id, "a column chunk is missing");
		}
	pfree(seen);
	return chunks;
}

ChunkMeta *
stripe_meta_chunks(const StripeMeta *stripe, Snapshot snapshot,
				   uint32 *group_rows)
{
	int			ngroups = stripe->chunk_group_count;
	bool	   *group_seen;
	Snapshot	snap;
	ChunkMeta  *chunks;
	ScanKeyData keys[2];
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tuple;
	int			i;

	/* under a snapshot that is not MVCC the stripe may be gone (read_chunks) */
	if (snapshot != NULL && IsMVCCSnapshot(snapshot))
	{
		chunks = chunk_cache_get_stripe(stripe, group_rows);
		if (chunks != NULL)
			return chunks;
	}
	group_seen = palloc0(sizeof(bool) * Max(ngroups, 1));
	snap = meta_snapshot_for(snapshot, stripe->storage_id);
	meta_storage_key(&keys[0], Anum_chunk_group_storage_id, stripe->storage_id);
	ScanKeyInit(&keys[1], Anum_chunk_group_stripe_num, BTEqualStrategyNumber,
				F_INT8EQ, Int64GetDatum((int64) stripe->stripe_num));

	rel = meta_table_open("chunk_group", AccessShareLock);
	scan = systable_beginscan(rel, meta_table_relid("chunk_group_pkey"), true,
							  snap, 2, keys);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		Datum		values[Natts_chunk_group];
		bool		nulls[Natts_chunk_group];
		int			g;

		heap_deform_tuple(tuple, RelationGetDescr(rel), values, nulls);
		g = DatumGetInt32(values[Anum_chunk_group_chunk_group_num - 1]);
		if (g < 0 || g >= ngroups || group_seen[g])
			meta_corrupted("chunk_group", stripe->storage_id, "chunk group number out of range");
		group_seen[g] = true;
		group_rows[g] = (uint32) DatumGetInt32(values[Anum_chunk_group_row_count - 1]);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);

	for (i = 0; i < ngroups; i++)
		if (!group_seen[i])
			meta_corrupted("chunk_group", stripe->storage_id, "a chunk group is missing");
	pfree(group_seen);
	chunks = read_chunks(stripe, snap, 0, ngroups);
	if (chunks == NULL)
		meta_corrupted("chunk", stripe->storage_id,
					   "the chunks of a stripe being scanned are gone");
	chunk_cache_put_stripe(stripe, group_rows, chunks);
	return chunks;
}

ChunkMeta *
stripe_meta_group_chunks(const StripeMeta *stripe, Snapshot snapshot,
						 int group)
{
	const ChunkMeta *cached = chunk_cache_get(stripe, group);
	ChunkMeta  *chunks;
	int			a;

	if (cached != NULL)
	{
		chunks = palloc(sizeof(ChunkMeta) * Max(stripe->column_count, 1));
		memcpy(chunks, cached, sizeof(ChunkMeta) * stripe->column_count);
		return chunks;
	}
	chunks = read_chunks(stripe, meta_snapshot_for(snapshot, stripe->storage_id),
						 group, 1);
	if (chunks == NULL)
		return NULL;
	chunk_cache_put(stripe, group, chunks);
	/* the same answer whether it came from the cache or not */
	for (a = 0; a < stripe->column_count; a++)
	{
		chunks[a].min_value = NULL;
		chunks[a].max_value = NULL;
	}
	return chunks;
}

/*
 * Rows are inserted leaves first: chunk groups and chunks, then the stripe,
 * then its row runs.  A reader finds a stripe through its runs and its chunks
 * through the stripe, so under a dirty snapshot (unique checks), which sees
 * a writer's rows as they go in, whatever it found first has what it reads
 * next already in place.
 */
void
stripe_meta_insert(const StripeMeta *s, const uint32 *group_rows,
				   const ChunkMeta *chunks)
{
	Relation	rel;
	int			i;
	int			g;

	rel = meta_table_open("chunk_group", RowExclusiveLock);
	for (g = 0; g < s->chunk_group_count; g++)
	{
		Datum		values[Natts_chunk_group];
		bool		nulls[Natts_chunk_group] = {0};
		HeapTuple	tuple;

		values[Anum_chunk_group_storage_id - 1] = Int64GetDatum(s->storage_id);
		values[Anum_chunk_group_stripe_num - 1] = Int64GetDatum(s->stripe_num);
		values[Anum_chunk_group_chunk_group_num - 1] = Int32GetDatum(g);
		values[Anum_chunk_group_row_count - 1] = Int32GetDatum((int32) group_rows[g]);
		tuple = heap_form_tuple(RelationGetDescr(rel), values, nulls);
		CatalogTupleInsert(rel, tuple);
		heap_freetuple(tuple);
	}
	table_close(rel, RowExclusiveLock);

	rel = meta_table_open("chunk", RowExclusiveLock);
	for (g = 0; g < s->chunk_group_count; g++)
	{
		for (i = 0; i < s->column_count; i++)
		{
			const ChunkMeta *c = &chunks[g * s->column_count + i];
			Datum		values[Natts_chunk];
			bool		nulls[Natts_chunk] = {0};
			HeapTuple	tuple;

			values[Anum_chunk_storage_id - 1] = Int64GetDatum(s->storage_id);
			values[Anum_chunk_stripe_num - 1] = Int64GetDatum(s->stripe_num);
			values[Anum_chunk_chunk_group_num - 1] = Int32GetDatum(g);
			values[Anum_chunk_attr_num - 1] = Int32GetDatum(i + 1);
			values[Anum_chunk_codec - 1] = Int16GetDatum(c->codec);
			values[Anum_chunk_stored_offset - 1] = Int64GetDatum(c->stored_offset);
			values[Anum_chunk_stored_length - 1] = Int32GetDatum((int32) c->stored_length);
			values[Anum_chunk_raw_length - 1] = Int32GetDatum((int32) c->raw_length);
			values[Anum_chunk_value_count - 1] = Int32GetDatum((int32) c->value_count);
			values[Anum_chunk_null_count - 1] = Int32GetDatum((int32) c->null_count);
			values[Anum_chunk_checksum - 1] = Int32GetDatum((int32) c->checksum);
			values[Anum_chunk_min_value - 1] = PointerGetDatum(c->min_value);
			nulls[Anum_chunk_min_value - 1] = (c->min_value == NULL);
			values[Anum_chunk_max_value - 1] = PointerGetDatum(c->max_value);
			nulls[Anum_chunk_max_value - 1] = (c->max_value == NULL);
			values[Anum_chunk_encoding - 1] = Int16GetDatum(c->encoding);
			tuple = heap_form_tuple(RelationGetDescr(rel), values, nulls);
			CatalogTupleInsert(rel, tuple);
			heap_freetuple(tuple);
		}
	}
	table_close(rel, RowExclusiveLock);

	/* the stripe */
	{
		Datum		values[Natts_stripe];
		bool		nulls[Natts_stripe] = {0};
		HeapTuple	tuple;

		values[Anum_stripe_storage_id - 1] = Int64GetDatum(s->storage_id);
		values[Anum_stripe_stripe_num - 1] = Int64GetDatum(s->stripe_num);
		values[Anum_stripe_first_block - 1] = Int64GetDatum(s->first_block);
		values[Anum_stripe_data_length - 1] = Int64GetDatum(s->data_length);
		values[Anum_stripe_row_count - 1] = Int64GetDatum(s->row_count);
		values[Anum_stripe_first_row_number - 1] = Int64GetDatum(s->first_row_number);
		values[Anum_stripe_last_row_number - 1] = Int64GetDatum(s->last_row_number);
		values[Anum_stripe_row_runs - 1] = PointerGetDatum(meta_row_runs_array(s->runs, s->nruns));
		values[Anum_stripe_command_ids - 1] = PointerGetDatum(meta_cid_runs_array(s->cids, s->ncids));
		values[Anum_stripe_chunk_group_count - 1] = Int32GetDatum(s->chunk_group_count);
		values[Anum_stripe_chunk_group_row_limit - 1] = Int32GetDatum(s->chunk_group_row_limit);
		values[Anum_stripe_column_count - 1] = Int32GetDatum(s->column_count);
		values[Anum_stripe_attr_min - 1] = PointerGetDatum(meta_bytea_array(s->zone.min, s->column_count));
		values[Anum_stripe_attr_max - 1] = PointerGetDatum(meta_bytea_array(s->zone.max, s->column_count));
		values[Anum_stripe_attr_null_count - 1] =
			PointerGetDatum(meta_int8_array(s->zone.null_count, s->column_count));
		values[Anum_stripe_attr_type - 1] =
			PointerGetDatum(meta_oid_array(s->zone.type, s->column_count));
		values[Anum_stripe_attr_collation - 1] =
			PointerGetDatum(meta_oid_array(s->zone.collation, s->column_count));
		values[Anum_stripe_attr_dict_offset - 1] =
			PointerGetDatum(meta_int8_array(s->attr_dict_offset, s->column_count));
		values[Anum_stripe_sorted_by - 1] =
			s->sorted_by ? CStringGetTextDatum(s->sorted_by) : (Datum) 0;
		nulls[Anum_stripe_sorted_by - 1] = s->sorted_by == NULL;

		rel = meta_table_open("stripe", RowExclusiveLock);
		meta_check_columns("stripe", RelationGetDescr(rel), Natts_stripe);
		tuple = heap_form_tuple(RelationGetDescr(rel), values, nulls);
		CatalogTupleInsert(rel, tuple);
		table_close(rel, RowExclusiveLock);
	}
	stream_runs_insert(s->storage_id, s->stripe_num, s->runs, s->nruns);
}

void
stripe_meta_delete_stripe(uint64 storage_id, uint64 stripe_num)
{
	stream_runs_delete(storage_id, (int64) stripe_num);
	meta_delete_rows("chunk", "chunk_pkey", storage_id, (int64) stripe_num);
	meta_delete_rows("chunk_group", "chunk_group_pkey", storage_id, (int64) stripe_num);
	meta_delete_rows("stripe", "stripe_pkey", storage_id, (int64) stripe_num);
}

void
stripe_meta_delete_storage(uint64 storage_id)
{
	stream_runs_delete(storage_id, -1);
	meta_delete_rows("chunk", "chunk_pkey", storage_id, -1);
	meta_delete_rows("chunk_group", "chunk_group_pkey", storage_id, -1);
	meta_delete_rows("stripe", "stripe_pkey", storage_id, -1);
	CommandCounterIncrement();
}

uint64
stripe_visible_rows(const StripeMeta *stripe, Snapshot snapshot)
{
	return row_runs_visible(stripe->cids, stripe->ncids, stripe->row_count,
							stripe->written_by_me, snapshot);
}
