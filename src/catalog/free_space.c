/*-------------------------------------------------------------------------
 *
 * free_space.c
 *	  Owns engine.retired_stream and engine.free_extent: which blocks of a
 *	  storage a rewrite gave up, and when they may be written again.
 *
 *	  A rewrite (colcompress_merge) deletes a stream's metadata and inserts
 *	  its retired_stream row in one transaction, so snapshots older than
 *	  its commit keep reading the stream.  Once the retiring transaction is
 *	  older than every snapshot (VACUUM's oldest xmin), VACUUM deletes the
 *	  retired row and inserts a free extent, again in one transaction: a
 *	  VACUUM that fails frees nothing, and one that commits frees each
 *	  stream once.
 *
 *	  A writer takes an extent by locking its row (skipping rows another
 *	  transaction is taking) and deleting it, giving back what it does not
 *	  need as a new extent; if the writer aborts, the extent is free again,
 *	  with whatever the writer put there left unreferenced.  Extents stay
 *	  rows even when VACUUM truncates the relation's free tail: a writer
 *	  taking such an extent extends the relation again, so the truncation,
 *	  which is not transactional, never has to be undone.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "utils/fmgroids.h"
#include "utils/snapmgr.h"

#include "catalog/free_space.h"
#include "catalog/meta_tables.h"

#define Anum_retired_storage_id			1
#define Anum_retired_stream_num			2
#define Anum_retired_first_block		3
#define Anum_retired_block_count		4
#define Anum_retired_first_row_number	5
#define Anum_retired_last_row_number	6
#define Anum_retired_row_runs			7
#define Natts_retired					7

#define Anum_extent_storage_id			1
#define Anum_extent_first_block			2
#define Anum_extent_block_count			3
#define Natts_extent					3

void
free_space_retire(uint64 storage_id, const RetiredStream *s)
{
	Relation	rel = meta_table_open("retired_stream", RowExclusiveLock);
	Datum		values[Natts_retired];
	bool		nulls[Natts_retired] = {0};
	HeapTuple	tuple;

	values[Anum_retired_storage_id - 1] = Int64GetDatum((int64) storage_id);
	values[Anum_retired_stream_num - 1] = Int64GetDatum((int64) s->stream_num);
	values[Anum_retired_first_block - 1] = Int64GetDatum((int64) s->first_block);
	values[Anum_retired_block_count - 1] = Int64GetDatum((int64) s->block_count);
	values[Anum_retired_first_row_number - 1] = Int64GetDatum((int64) s->first_row_number);
	values[Anum_retired_last_row_number - 1] = Int64GetDatum((int64) s->last_row_number);
	values[Anum_retired_row_runs - 1] =
		PointerGetDatum(meta_row_runs_array(s->runs, s->nruns));
	tuple = heap_form_tuple(RelationGetDescr(rel), values, nulls);
	CatalogTupleInsert(rel, tuple);
	table_close(rel, NoLock);
}

static RetiredStream *
retired_from_tuple(HeapTuple tuple, TupleDesc desc, uint64 storage_id)
{
	RetiredStream *s = palloc0(sizeof(RetiredStream));
	Datum		values[Natts_retired];
	bool		nulls[Natts_retired];

	heap_deform_tuple(tuple, desc, values, nulls);
	s->stream_num = (uint64) DatumGetInt64(values[Anum_retired_stream_num - 1]);
	s->first_block = (uint64) DatumGetInt64(values[Anum_retired_first_block - 1]);
	s->block_count = (uint64) DatumGetInt64(values[Anum_retired_block_count - 1]);
	s->first_row_number = (uint64) DatumGetInt64(values[Anum_retired_first_row_number - 1]);
	s->last_row_number = (uint64) DatumGetInt64(values[Anum_retired_last_row_number - 1]);
	s->runs = meta_row_runs_values(values[Anum_retired_row_runs - 1], &s->nruns);
	if (s->runs == NULL)
		meta_corrupted("retired_stream", storage_id, "malformed row runs");
	return s;
}

/*
 * Calls fn for every row of table (storage_id first, through index) that
 * a fresh snapshot sees; stops when fn returns false.
 */
static void
scan_storage(const char *table, const char *index, LOCKMODE lockmode,
			 uint64 storage_id,
			 bool (*fn) (Relation rel, HeapTuple tuple, void *arg), void *arg)
{
	Relation	rel = meta_table_open(table, lockmode);
	Snapshot	snapshot = RegisterSnapshot(GetLatestSnapshot());
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;

	meta_storage_key(&key, 1, storage_id);
	scan = systable_beginscan(rel, meta_table_relid(index), true, snapshot,
							  1, &key);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
		if (!fn(rel, tuple, arg))
			break;
	systable_endscan(scan);
	UnregisterSnapshot(snapshot);
	table_close(rel, NoLock);
}

typedef struct Collect
{
	uint64		storage_id;
	List	   *streams;
} Collect;

static bool
collect_retired(Relation rel, HeapTuple tuple, void *arg)
{
	Collect    *c = arg;

	c->streams = lappend(c->streams,
						 retired_from_tuple(tuple, RelationGetDescr(rel),
											c->storage_id));
	return true;
}

List *
free_space_retired(uint64 storage_id)
{
	Collect		c = {storage_id, NIL};

	scan_storage("retired_stream", "retired_stream_pkey", AccessShareLock,
				 storage_id, collect_retired, &c);
	return c.streams;
}

static void
insert_extent(Relation rel, uint64 storage_id, uint64 first, uint64 count)
{
	Datum		values[Natts_extent];
	bool		nulls[Natts_extent] = {0};
	HeapTuple	tuple;

	values[Anum_extent_storage_id - 1] = Int64GetDatum((int64) storage_id);
	values[Anum_extent_first_block - 1] = Int64GetDatum((int64) first);
	values[Anum_extent_block_count - 1] = Int64GetDatum((int64) count);
	tuple = heap_form_tuple(RelationGetDescr(rel), values, nulls);
	CatalogTupleInsert(rel, tuple);
}

typedef struct Reclaim
{
	uint64		storage_id;
	TransactionId oldest_xmin;
	Relation	extents;
	List	   *reclaimed;
} Reclaim;

static bool
reclaim_one(Relation rel, HeapTuple tuple, void *arg)
{
	Reclaim    *r = arg;
	TransactionId xmin = HeapTupleHeaderGetXmin(tuple->t_data);
	RetiredStream *s;

	/*
	 * Some snapshot may still read the stream.  Never when this transaction
	 * retired it: freed, its blocks would be written over before the
	 * transaction commits, and an error after that would bring back
	 * streams whose bytes are gone (a horizon that left out a lazy
	 * VACUUM's own xid once made that happen; storage_vacuum.c).
	 */
	if (!TransactionIdPrecedes(xmin, r->oldest_xmin) ||
		TransactionIdIsCurrentTransactionId(xmin))
		return true;
	s = retired_from_tuple(tuple, RelationGetDescr(rel), r->storage_id);
	s->retired_by = xmin;
	CatalogTupleDelete(rel, &tuple->t_self);
	if (s->block_count > 0)
		insert_extent(r->extents, r->storage_id, s->first_block, s->block_count);
	r->reclaimed = lappend(r->reclaimed, s);
	return true;
}

/* The free extents of a storage, in block order. */
typedef struct Extents
{
	int			n;
	int			max;
	uint64	   *first;
	uint64	   *count;
	ItemPointerData *tid;
} Extents;

static bool
collect_extent(Relation rel, HeapTuple tuple, void *arg)
{
	Extents    *t = arg;
	bool		isnull;

	if (t->n == t->max)
	{
		t->max = t->max == 0 ? 16 : t->max * 2;
		t->first = t->first ? repalloc(t->first, sizeof(uint64) * t->max) :
			palloc(sizeof(uint64) * t->max);
		t->count = t->count ? repalloc(t->count, sizeof(uint64) * t->max) :
			palloc(sizeof(uint64) * t->max);
		t->tid = t->tid ? repalloc(t->tid, sizeof(ItemPointerData) * t->max) :
			palloc(sizeof(ItemPointerData) * t->max);
	}
	t->tid[t->n] = tuple->t_self;
	t->first[t->n] = (uint64) DatumGetInt64(heap_getattr(tuple, Anum_extent_first_block,
														 RelationGetDescr(rel), &isnull));
	t->count[t->n] = (uint64) DatumGetInt64(heap_getattr(tuple, Anum_extent_block_count,
														 RelationGetDescr(rel), &isnull));
	t->n++;
	return true;
}

static bool
lock_extent(Relation rel, ItemPointer tid)
{
	HeapTupleData tuple;
	Buffer		buffer;
	TM_FailureData tmfd;
	TM_Result	result;

	tuple.t_self = *tid;
	result = heap_lock_tuple(rel, &tuple, GetCurrentCommandId(true),
							 LockTupleExclusive, LockWaitSkip, false,
							 &buffer, &tmfd);
	ReleaseBuffer(buffer);
	return result == TM_Ok;
}

/*
 * Joins adjacent free extents into one, so that a stream larger than any
 * one freed stream still fits.  Extents a writer is taking are left alone.
 */
static void
coalesce(uint64 storage_id)
{
	Extents		t = {0};
	Relation	rel;
	int			i = 0;

	scan_storage("free_extent", "free_extent_pkey", RowExclusiveLock,
				 storage_id, collect_extent, &t);
	rel = meta_table_open("free_extent", RowExclusiveLock);
	while (i < t.n)
	{
		int			j = i;
		int			k;
		bool		locked = true;

		while (j + 1 < t.n && t.first[j] + t.count[j] == t.first[j + 1])
			j++;
		for (k = i; k <= j && j > i && locked; k++)
			locked = lock_extent(rel, &t.tid[k]);
		if (j > i && locked)
		{
			for (k = i; k <= j; k++)
				CatalogTupleDelete(rel, &t.tid[k]);
			insert_extent(rel, storage_id, t.first[i],
						  t.first[j] + t.count[j] - t.first[i]);
		}
		i = j + 1;
	}
	table_close(rel, NoLock);
	CommandCounterIncrement();
}

bool
free_space_retired_settled(uint64 storage_id, TransactionId horizon)
{
	return meta_rows_settled("retired_stream", "retired_stream_pkey",
							 storage_id, horizon, NULL);
}

List *
free_space_reclaim(uint64 storage_id, TransactionId oldest_xmin)
{
	Reclaim		r = {storage_id, oldest_xmin, NULL, NIL};

	r.extents = meta_table_open("free_extent", RowExclusiveLock);
	scan_storage("retired_stream", "retired_stream_pkey", RowExclusiveLock,
				 storage_id, reclaim_one, &r);
	table_close(r.extents, NoLock);
	CommandCounterIncrement();
	if (r.reclaimed != NIL)
		coalesce(storage_id);
	return r.reclaimed;
}

typedef struct Take
{
	uint64		storage_id;
	uint64		nblocks;
	bool		taken;
	uint64		first_block;
} Take;

static bool
take_one(Relation rel, HeapTuple tuple, void *arg)
{
	Take	   *t = arg;
	bool		isnull;
	uint64		first = (uint64) DatumGetInt64(heap_getattr(tuple, Anum_extent_first_block,
															RelationGetDescr(rel), &isnull));
	uint64		count = (uint64) DatumGetInt64(heap_getattr(tuple, Anum_extent_block_count,
															RelationGetDescr(rel), &isnull));
	if (count < t->nblocks)
		return true;
	/* another writer taking it holds the row: look further */
	if (!lock_extent(rel, &tuple->t_self))
		return true;
	CatalogTupleDelete(rel, &tuple->t_self);
	if (count > t->nblocks)
		insert_extent(rel, t->storage_id, first + t->nblocks, count - t->nblocks);
	t->taken = true;
	t->first_block = first;
	return false;
}

bool
free_space_take(uint64 storage_id, uint64 nblocks, uint64 *first_block)
{
	Take		t = {storage_id, nblocks, false, 0};

	scan_storage("free_extent", "free_extent_pkey", RowExclusiveLock,
				 storage_id, take_one, &t);
	if (t.taken)
	{
		CommandCounterIncrement();
		*first_block = t.first_block;
	}
	return t.taken;
}

void
free_space_add(uint64 storage_id, uint64 first, uint64 count)
{
	Relation	rel = meta_table_open("free_extent", RowExclusiveLock);

	insert_extent(rel, storage_id, first, count);
	table_close(rel, NoLock);
	CommandCounterIncrement();
	coalesce(storage_id);
}

void
free_space_extents(uint64 storage_id, uint64 **first, uint64 **count, int *n)
{
	Extents		t = {0};

	scan_storage("free_extent", "free_extent_pkey", AccessShareLock,
				 storage_id, collect_extent, &t);
	*first = t.first;
	*count = t.count;
	*n = t.n;
}

uint64
free_space_free_tail(uint64 storage_id, uint64 nblocks)
{
	Extents		t = {0};
	uint64		tail = nblocks;
	bool		moved = true;
	int			i;

	scan_storage("free_extent", "free_extent_pkey", AccessShareLock,
				 storage_id, collect_extent, &t);
	/* extents come in block order; walk down from the end while they touch */
	while (moved)
	{
		moved = false;
		for (i = t.n - 1; i >= 0; i--)
		{
			if (t.first[i] < tail && t.first[i] + t.count[i] >= tail)
			{
				tail = t.first[i];
				moved = true;
			}
		}
	}
	return tail;
}

void
free_space_delete_storage(uint64 storage_id)
{
	meta_delete_rows("retired_stream", "retired_stream_pkey", storage_id, -1);
	meta_delete_rows("free_extent", "free_extent_pkey", storage_id, -1);
}
