/*-------------------------------------------------------------------------
 *
 * meta_tables.c
 *	  Lookup of the metadata tables in schema "engine".
 *
 *	  The tables are ordinary heap tables created by the extension script;
 *	  we write them with the catalog tuple routines (heap insert plus index
 *	  maintenance, no permission checks: users never write them directly).
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "executor/tuptable.h"
#include "catalog/pg_type.h"
#include "storage/bufmgr.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"

#include "catalog/meta_tables.h"
#include "format/storage_rewrite.h"

Oid
meta_table_relid(const char *name)
{
	Oid			nsp = get_namespace_oid("engine", true);
	Oid			relid = OidIsValid(nsp) ? get_relname_relid(name, nsp) : InvalidOid;

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("metadata table engine.%s does not exist", name),
				 errhint("Create the extension with CREATE EXTENSION storage_engine.")));
	return relid;
}

Relation
meta_table_open(const char *name, LOCKMODE lockmode)
{
	return table_open(meta_table_relid(name), lockmode);
}

void
meta_check_columns(const char *table, TupleDesc desc, int expected)
{
	if (desc->natts != expected)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("metadata table engine.%s has %d columns, this storage_engine library expects %d",
						table, desc->natts, expected),
				 errhint("The extension was installed by another build: dump the data, then DROP EXTENSION storage_engine CASCADE and CREATE EXTENSION storage_engine.")));
}

Snapshot
meta_snapshot_for(Snapshot snapshot, uint64 storage_id)
{
	Snapshot	copy;

	if (snapshot == NULL || !IsMVCCSnapshot(snapshot))
		return snapshot;
	snapshot = storage_rewrite_snapshot(snapshot, storage_id);

	/*
	 * A shallow copy: the xid arrays are shared with the original, which
	 * outlives the metadata scans this copy is used for.
	 */
	copy = palloc(sizeof(SnapshotData));
	memcpy(copy, snapshot, sizeof(SnapshotData));
	copy->curcid = InvalidCommandId;
	copy->copied = true;
	copy->regd_count = 0;
	copy->active_count = 0;
	return copy;
}

void
meta_corrupted(const char *table, uint64 storage_id, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("metadata table engine.%s is damaged", table),
			 errdetail("Storage " UINT64_FORMAT ": %s.", storage_id, what)));
}

void
meta_storage_key(ScanKey key, AttrNumber attno, uint64 storage_id)
{
	ScanKeyInit(key, attno, BTEqualStrategyNumber, F_INT8EQ,
				Int64GetDatum((int64) storage_id));
}

void
meta_delete_rows(const char *table, const char *index, uint64 storage_id,
				 int64 stream_num)
{
	Relation	rel = meta_table_open(table, RowExclusiveLock);
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tuple;

	meta_storage_key(&keys[0], 1, storage_id);
	ScanKeyInit(&keys[1], 2, BTEqualStrategyNumber, F_INT8EQ,
				Int64GetDatum(stream_num));
	scan = systable_beginscan(rel, meta_table_relid(index), true,
							  SnapshotSelf, stream_num < 0 ? 1 : 2, keys);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
		CatalogTupleDelete(rel, &tuple->t_self);
	systable_endscan(scan);
	table_close(rel, RowExclusiveLock);
}

void
meta_index_insert(Relation rel, HeapTuple tuple)
{
	List	   *indexes = RelationGetIndexList(rel);
	TupleTableSlot *slot = MakeSingleTupleTableSlot(RelationGetDescr(rel),
													&TTSOpsHeapTuple);
	ListCell   *lc;

	ExecStoreHeapTuple(tuple, slot, false);
	foreach(lc, indexes)
	{
		Relation	index = index_open(lfirst_oid(lc), RowExclusiveLock);
		IndexInfo  *info = BuildIndexInfo(index);
		Datum		values[INDEX_MAX_KEYS];
		bool		isnull[INDEX_MAX_KEYS];

		/* metadata indexes are plain columns: no executor state needed */
		FormIndexDatum(info, slot, NULL, values, isnull);
		index_insert(index, values, isnull, &tuple->t_self, rel,
					 index->rd_index->indisunique ? UNIQUE_CHECK_YES : UNIQUE_CHECK_NO,
					 false, info);
		compat_index_insert_cleanup(index, info);
		index_close(index, RowExclusiveLock);
	}
	ExecDropSingleTupleTableSlot(slot);
	list_free(indexes);
}

ArrayType *
meta_int8_array(const uint64 *values, int n)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));
	int			i;

	for (i = 0; i < n; i++)
		d[i] = Int64GetDatum((int64) values[i]);
	return construct_array(d, n, INT8OID, 8, true, TYPALIGN_DOUBLE);
}

/*
 * Frees what reading an array's elements allocated: its detoasted copy and
 * deconstruct_array's element arrays.  A scan lists every stream's metadata
 * row, so these would otherwise stay with each stream it keeps.
 */
static void
array_values_done(Datum array, ArrayType *arr, Datum *elems, bool *nulls)
{
	if ((Pointer) arr != DatumGetPointer(array))
		pfree(arr);
	pfree(elems);
	pfree(nulls);
}

uint64 *
meta_int8_array_values(Datum array, int *n)
{
	ArrayType  *arr = DatumGetArrayTypeP(array);
	Datum	   *elems;
	bool	   *nulls;
	uint64	   *out;
	int			i;

	deconstruct_array(arr, INT8OID, 8, true, TYPALIGN_DOUBLE,
					  &elems, &nulls, n);
	out = palloc(sizeof(uint64) * Max(*n, 1));
	for (i = 0; i < *n && out != NULL; i++)
	{
		if (nulls[i])
		{
			pfree(out);
			out = NULL;
		}
		else
			out[i] = (uint64) DatumGetInt64(elems[i]);
	}
	array_values_done(array, arr, elems, nulls);
	return out;
}

/* RowRun and CidRun are both two uint64s: one pair layout serves both. */
StaticAssertDecl(sizeof(RowRun) == 2 * sizeof(uint64), "RowRun is a pair");
StaticAssertDecl(sizeof(CidRun) == 2 * sizeof(uint64), "CidRun is a pair");

static ArrayType *
pairs_array(const uint64 *pairs, int npairs)
{
	return meta_int8_array(pairs, 2 * npairs);
}

static uint64 *
pairs_values(Datum array, int *npairs)
{
	int			n;
	uint64	   *values = meta_int8_array_values(array, &n);

	if (values == NULL || n == 0 || n % 2 != 0)
		return NULL;
	*npairs = n / 2;
	return values;
}

ArrayType *
meta_row_runs_array(const RowRun *runs, int nruns)
{
	return pairs_array((const uint64 *) runs, nruns);
}

RowRun *
meta_row_runs_values(Datum array, int *nruns)
{
	return (RowRun *) pairs_values(array, nruns);
}

ArrayType *
meta_cid_runs_array(const CidRun *cids, int ncids)
{
	return pairs_array((const uint64 *) cids, ncids);
}

CidRun *
meta_cid_runs_values(Datum array, int *ncids)
{
	return (CidRun *) pairs_values(array, ncids);
}

/*
 * Rows of storage_id (of stream stream_num unless it is negative); the last
 * one's TID in *tid when tid is not NULL.
 */
static List *
read_rows(const char *table, const char *index, uint64 storage_id,
		  int64 stream_num, Snapshot snapshot, ItemPointer tid,
		  void *(*from_tuple) (HeapTuple tuple, TupleDesc desc))
{
	Relation	rel = meta_table_open(table, AccessShareLock);
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tuple;
	List	   *rows = NIL;

	meta_storage_key(&keys[0], 1, storage_id);
	ScanKeyInit(&keys[1], 2, BTEqualStrategyNumber, F_INT8EQ,
				Int64GetDatum(stream_num));
	scan = systable_beginscan(rel, meta_table_relid(index), true,
							  meta_snapshot_for(snapshot, storage_id),
							  stream_num < 0 ? 1 : 2, keys);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		rows = lappend(rows, from_tuple(tuple, RelationGetDescr(rel)));
		if (tid != NULL)
			*tid = tuple->t_self;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return rows;
}

void *
meta_get_stream(const char *table, const char *index, uint64 storage_id,
				uint64 stream_num, Snapshot snapshot, ItemPointer tid,
				void *(*from_tuple) (HeapTuple tuple, TupleDesc desc))
{
	List	   *rows = read_rows(table, index, storage_id, (int64) stream_num,
								 snapshot, tid, from_tuple);

	if (list_length(rows) > 1)
		meta_corrupted(table, storage_id, "a stream has two visible rows");
	return rows == NIL ? NULL : linitial(rows);
}

void *
meta_fetch_stream(const char *table, uint64 storage_id, uint64 stream_num,
				  Snapshot snapshot, ItemPointer tid,
				  void *(*from_tuple) (HeapTuple tuple, TupleDesc desc))
{
	Relation	rel = meta_table_open(table, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	HeapTupleData tuple;
	Buffer		buffer;
	void	   *result = NULL;

	/*
	 * heap_fetch reads the block, so one past the end (the table truncated
	 * by VACUUM since the TID was taken; VACUUM cannot truncate it while we
	 * hold our lock) must be refused first.  It checks the offset itself.
	 */
	if (ItemPointerIsValid(tid) &&
		ItemPointerGetBlockNumber(tid) < RelationGetNumberOfBlocks(rel))
	{
		tuple.t_self = *tid;
		if (heap_fetch(rel, meta_snapshot_for(snapshot, storage_id), &tuple,
					   &buffer, false))
		{
			bool		null_storage;
			bool		null_stream;
			Datum		s = heap_getattr(&tuple, 1, desc, &null_storage);
			Datum		n = heap_getattr(&tuple, 2, desc, &null_stream);

			if (!null_storage && !null_stream &&
				(uint64) DatumGetInt64(s) == storage_id &&
				(uint64) DatumGetInt64(n) == stream_num)
				result = from_tuple(&tuple, desc);
			ReleaseBuffer(buffer);
		}
	}
	table_close(rel, AccessShareLock);
	return result;
}

bool
meta_rows_settled(const char *table, const char *index, uint64 storage_id,
				  TransactionId horizon,
				  bool (*counts) (HeapTuple tuple, TupleDesc desc))
{
	Relation	rel = meta_table_open(table, AccessShareLock);
	Snapshot	snapshot = RegisterSnapshot(GetLatestSnapshot());
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	bool		settled = true;

	meta_storage_key(&key, 1, storage_id);
	scan = systable_beginscan(rel, meta_table_relid(index), true, snapshot,
							  1, &key);
	while (settled && HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		if ((counts == NULL || counts(tuple, RelationGetDescr(rel))) &&
			!TransactionIdPrecedes(HeapTupleHeaderGetXmin(tuple->t_data),
								   horizon))
			settled = false;
	}
	systable_endscan(scan);
	UnregisterSnapshot(snapshot);
	table_close(rel, AccessShareLock);
	return settled;
}

List *
meta_list_storage(const char *table, const char *index, uint64 storage_id,
				  Snapshot snapshot,
				  void *(*from_tuple) (HeapTuple tuple, TupleDesc desc),
				  list_sort_comparator cmp)
{
	List	   *rows = read_rows(table, index, storage_id, -1, snapshot,
								 NULL, from_tuple);

	/* the index returns them in order, unless system indexes are ignored */
	list_sort(rows, cmp);
	return rows;
}

ArrayType *
meta_bytea_array(bytea **values, int n)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));
	bool	   *nulls = palloc(sizeof(bool) * Max(n, 1));
	int			dims[1] = {n};
	int			lbs[1] = {1};
	int			i;

	for (i = 0; i < n; i++)
	{
		d[i] = PointerGetDatum(values[i]);
		nulls[i] = values[i] == NULL;
	}
	return construct_md_array(d, nulls, 1, dims, lbs, BYTEAOID, -1, false,
							  TYPALIGN_INT);
}

bytea	  **
meta_bytea_array_values(Datum array, int expected)
{
	ArrayType  *arr = DatumGetArrayTypeP(array);
	Datum	   *elems;
	bool	   *nulls;
	bytea	  **out;
	int			n;
	int			i;

	deconstruct_array(arr, BYTEAOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	out = NULL;
	if (n == expected)
	{
		out = palloc0(sizeof(bytea *) * Max(n, 1));
		for (i = 0; i < n; i++)
			out[i] = nulls[i] ? NULL : DatumGetByteaPCopy(elems[i]);
	}
	array_values_done(array, arr, elems, nulls);
	return out;
}

ArrayType *
meta_oid_array(const Oid *values, int n)
{
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));
	int			i;

	for (i = 0; i < n; i++)
		d[i] = ObjectIdGetDatum(values[i]);
	return construct_array(d, n, OIDOID, sizeof(Oid), true, TYPALIGN_INT);
}

Oid *
meta_oid_array_values(Datum array, int expected)
{
	ArrayType  *arr = DatumGetArrayTypeP(array);
	Datum	   *elems;
	bool	   *nulls;
	Oid		   *out;
	int			n;
	int			i;

	deconstruct_array(arr, OIDOID, sizeof(Oid), true, TYPALIGN_INT, &elems, &nulls, &n);
	out = n == expected ? palloc(sizeof(Oid) * Max(n, 1)) : NULL;
	for (i = 0; i < n && out != NULL; i++)
	{
		if (nulls[i])
		{
			pfree(out);
			out = NULL;
		}
		else
			out[i] = DatumGetObjectId(elems[i]);
	}
	array_values_done(array, arr, elems, nulls);
	return out;
}

void *
meta_flat_copy(char **at, const void *src, Size len)
{
	void	   *dst = *at;

	if (len > 0)
		memcpy(dst, src, len);
	*at += MAXALIGN(len);
	return dst;
}

/*
 * One allocation, not one per array and per bound: a scan holds the zone
 * maps of the streams it tests, and the allocations' headers were a good
 * part of them.
 */
MetaZoneMap *
meta_zone_map_values(const Datum *arrays, int ncols)
{
	bytea	  **min = meta_bytea_array_values(arrays[0], ncols);
	bytea	  **max = meta_bytea_array_values(arrays[1], ncols);
	int			n = -1;
	uint64	   *null_count = meta_int8_array_values(arrays[2], &n);
	Oid		   *type = meta_oid_array_values(arrays[3], ncols);
	Oid		   *collation = meta_oid_array_values(arrays[4], ncols);
	MetaZoneMap *zone = NULL;
	int			a;

	if (min != NULL && max != NULL && null_count != NULL && n == ncols &&
		type != NULL && collation != NULL)
	{
		Size		size = MAXALIGN(sizeof(MetaZoneMap)) +
			2 * MAXALIGN(sizeof(bytea *) * ncols) +
			MAXALIGN(sizeof(uint64) * ncols) +
			2 * MAXALIGN(sizeof(Oid) * ncols);
		char	   *at;

		for (a = 0; a < ncols; a++)
			size += (min[a] ? MAXALIGN(VARSIZE(min[a])) : 0) +
				(max[a] ? MAXALIGN(VARSIZE(max[a])) : 0);
		at = palloc(size);
		zone = meta_flat_copy(&at, &(MetaZoneMap) {0}, sizeof(MetaZoneMap));
		zone->min = meta_flat_copy(&at, min, sizeof(bytea *) * ncols);
		zone->max = meta_flat_copy(&at, max, sizeof(bytea *) * ncols);
		zone->null_count = meta_flat_copy(&at, null_count, sizeof(uint64) * ncols);
		zone->type = meta_flat_copy(&at, type, sizeof(Oid) * ncols);
		zone->collation = meta_flat_copy(&at, collation, sizeof(Oid) * ncols);
		for (a = 0; a < ncols; a++)
		{
			if (min[a] != NULL)
				zone->min[a] = meta_flat_copy(&at, min[a], VARSIZE(min[a]));
			if (max[a] != NULL)
				zone->max[a] = meta_flat_copy(&at, max[a], VARSIZE(max[a]));
		}
		Assert(at <= (char *) zone + size);
	}
	for (a = 0; a < ncols; a++)
	{
		if (min != NULL && min[a] != NULL)
			pfree(min[a]);
		if (max != NULL && max[a] != NULL)
			pfree(max[a]);
	}
	if (min != NULL)
		pfree(min);
	if (max != NULL)
		pfree(max);
	if (null_count != NULL)
		pfree(null_count);
	if (type != NULL)
		pfree(type);
	if (collation != NULL)
		pfree(collation);
	return zone;
}
