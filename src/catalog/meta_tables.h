/*-------------------------------------------------------------------------
 *
 * meta_tables.h
 *	  Finding and writing the extension's metadata tables in schema
 *	  "engine".
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_META_TABLES_H
#define STORAGE_ENGINE_META_TABLES_H

#include "access/htup.h"
#include "storage/itemptr.h"
#include "access/skey.h"
#include "storage/lockdefs.h"
#include "utils/array.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "format/row_runs.h"

/* OID of engine.<name>; errors clearly when the extension is missing. */
extern Oid	meta_table_relid(const char *name);

extern Relation meta_table_open(const char *name, LOCKMODE lockmode);

/*
 * A copy of snapshot for reading storage_id's metadata rows, that also sees
 * every row this transaction wrote, whatever its command id: metadata rows
 * are written when data is flushed, which may be in a later command than
 * the rows they describe.  Which of those rows a scan sees is decided per
 * row from the command ids recorded with the data.  It sees the rewrite
 * that wrote the storage when snapshot predates it (format/storage_rewrite.h).
 */
extern Snapshot meta_snapshot_for(Snapshot snapshot, uint64 storage_id);

/*
 * Helpers shared by the metadata modules of both access methods
 * (stripe_meta.c, batch_meta.c).
 */

/* Raises ERRCODE_DATA_CORRUPTED about a row of engine.<table>. */
/* ERROR unless metadata table engine.table has the columns this build knows. */
extern void meta_check_columns(const char *table, TupleDesc desc, int expected);

extern void meta_corrupted(const char *table, uint64 storage_id,
						   const char *what);

/* Equality scan key on the storage id column attno. */
extern void meta_storage_key(ScanKey key, AttrNumber attno, uint64 storage_id);

/*
 * The rows of one storage in table (key column 1 = storage_id, through its
 * primary key index), read with meta_snapshot_for(snapshot), each turned
 * into a struct by from_tuple, and sorted by cmp.
 */
extern List *meta_list_storage(const char *table, const char *index,
							   uint64 storage_id, Snapshot snapshot,
							   void *(*from_tuple) (HeapTuple tuple, TupleDesc desc),
							   list_sort_comparator cmp);

/*
 * The row of stream stream_num (key column 2) of storage_id in table that
 * snapshot sees, as from_tuple makes it, or NULL; its TID in *tid when tid
 * is not NULL.
 */
extern void *meta_get_stream(const char *table, const char *index,
							 uint64 storage_id, uint64 stream_num,
							 Snapshot snapshot, ItemPointer tid,
							 void *(*from_tuple) (HeapTuple tuple, TupleDesc desc));

/*
 * The same row read at tid, without the index: NULL unless the row there is
 * one snapshot sees and has that key (tid may be stale, or out of range).
 */
extern void *meta_fetch_stream(const char *table, uint64 storage_id,
							   uint64 stream_num, Snapshot snapshot,
							   ItemPointer tid,
							   void *(*from_tuple) (HeapTuple tuple, TupleDesc desc));

/*
 * Deletes the rows of engine.<table> whose first column is storage_id and,
 * when stream_num >= 0, whose second column (the stripe or batch number)
 * is stream_num, through its primary key index engine.<index>.
 */
extern void meta_delete_rows(const char *table, const char *index,
							 uint64 storage_id, int64 stream_num);

/*
 * Were the rows of storage_id in table (through index engine.<index>, whose
 * first column is the storage id) that the latest snapshot sees, and that
 * counts (NULL: every row) says matter, all written by transactions before
 * horizon, which every snapshot sees?
 */
extern bool meta_rows_settled(const char *table, const char *index,
							  uint64 storage_id, TransactionId horizon,
							  bool (*counts) (HeapTuple tuple, TupleDesc desc));

/*
 * Adds index entries for a tuple inserted into a metadata table without
 * CatalogTupleInsert (which cannot insert frozen tuples).
 */
extern void meta_index_insert(Relation rel, HeapTuple tuple);

/* bigint[] columns. */
/* bytea[] with NULL elements for NULL pointers, and back (NULL: not n elements) */
extern ArrayType *meta_bytea_array(bytea **values, int n);
extern bytea **meta_bytea_array_values(Datum array, int expected);
extern ArrayType *meta_int8_array(const uint64 *values, int n);
/* oid[] and back (NULL: not n elements, or a NULL one) */
extern ArrayType *meta_oid_array(const Oid *values, int n);
extern Oid *meta_oid_array_values(Datum array, int expected);
/* The elements of a bigint[]; NULL when one of them is NULL. */
extern uint64 *meta_int8_array_values(Datum array, int *n);

/*
 * A stream's zone map as its metadata row stores it (five arrays, in this
 * order), per column: bounds (NULL: none), NULL count, and the type and
 * collation the bounds were computed with.
 */
typedef struct MetaZoneMap
{
	bytea	  **min;
	bytea	  **max;
	uint64	   *null_count;
	Oid		   *type;
	Oid		   *collation;
} MetaZoneMap;

/*
 * Copies len bytes of src to *at and moves *at past them, MAXALIGNed: for
 * building metadata that is kept as one allocation.
 */
extern void *meta_flat_copy(char **at, const void *src, Size len);

/*
 * Decodes arrays[0 .. 5) of ncols elements each into one allocation in
 * CurrentMemoryContext (pfree frees it); NULL when they are malformed.
 */
extern MetaZoneMap *meta_zone_map_values(const Datum *arrays, int ncols);

/*
 * row_runs and command_ids columns: bigint[] of (first, count) and
 * (command id, rows so far) pairs.  The readers return NULL when the array
 * is empty or malformed.
 */
extern ArrayType *meta_row_runs_array(const RowRun *runs, int nruns);
extern RowRun *meta_row_runs_values(Datum array, int *nruns);
extern ArrayType *meta_cid_runs_array(const CidRun *cids, int ncids);
extern CidRun *meta_cid_runs_values(Datum array, int *ncids);

#endif							/* STORAGE_ENGINE_META_TABLES_H */
