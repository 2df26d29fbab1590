/*-------------------------------------------------------------------------
 *
 * col_merge.c
 *	  engine.colcompress_merge(regclass): rewrite a table globally sorted
 *	  by its orderby option, so that stripes do not overlap and zone maps
 *	  prune as well as they can.
 *
 *	  MVCC-safe without blocking readers or inserts: the merge reads the
 *	  stripes its snapshot sees, writes their rows sorted (a tuplesort,
 *	  spilling to disk beyond maintenance_work_mem) as new stripes in the
 *	  same storage, and deletes the metadata of the stripes it read, all in
 *	  its transaction.  Snapshots older than its commit keep seeing the old
 *	  stripes, newer ones see the new ones; stripes that concurrent
 *	  sessions insert meanwhile are not touched and keep their rows.
 *	  ShareUpdateExclusiveLock keeps two merges (or VACUUM) apart; the
 *	  rewrite lock (storage_lock_for_rewrite) waits for and holds off
 *	  DELETE, UPDATE and row locks, whose marks name old row numbers.  Until
 *	  VACUUM reclaims the pages of the retired stripes (catalog/free_space.c),
 *	  the table keeps their space.  A crash or cancel before commit leaves the old stripes as they
 *	  were.  A table whose stripes are already in order is left alone.
 *	  Indexes get entries for the new row numbers and keep those of the
 *	  old ones, which older snapshots still use (index scans skip rows
 *	  whose stripe their snapshot does not see).
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/relation.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/tuplesort.h"

#include "catalog/options.h"
#include "catalog/stripe_meta.h"
#include "catalog/zone_map.h"
#include "colstore/col_ddl.h"
#include "colstore/col_reader.h"
#include "colstore/col_tableam.h"
#include "colstore/col_writer.h"
#include "format/pending_writes.h"
#include "format/storage.h"
#include "format/storage_am.h"

PG_FUNCTION_INFO_V1(colcompress_merge);

/*
 * Are the stripes already globally sorted: each sorted by the current
 * orderby, without NULLs in the first key, and the first key's ranges
 * ascending (descending for DESC) in stripe order?  Ranges may touch when
 * the first key is the only one (equal keys may sit in either stripe);
 * with more keys they must not, or the later keys could be out of order.  Then a merge
 * would write the same rows again: a table loaded in key order stays as it
 * is, without the space a rewrite would take until VACUUM reclaims it.
 */
static bool
already_sorted(Relation rel, List *stripes, const char *orderby,
			   ColcompressOrderbyKey *key, int nkeys)
{
	Form_pg_attribute attr = TupleDescAttr(RelationGetDescr(rel), key->attnum - 1);
	FmgrInfo   *cmp = zone_map_cmp(attr);
	StripeMeta *prev = NULL;
	ListCell   *lc;

	if (cmp == NULL)
		return false;
	foreach(lc, stripes)
	{
		StripeMeta *s = lfirst(lc);
		int			a = key->attnum - 1;

		if (!stripe_meta_columns(s))
			return false;
		if (s->sorted_by == NULL || strcmp(s->sorted_by, orderby) != 0 ||
			a >= s->column_count || s->zone.null_count[a] > 0 ||
			s->zone.min[a] == NULL || s->zone.max[a] == NULL ||
			!zone_bounds_apply(attr, s->zone.type[a], s->zone.collation[a]))
			return false;
		if (prev != NULL)
		{
			Datum		prev_edge = zone_bound_deserialize(key->descending ?
														   prev->zone.min[a] : prev->zone.max[a], attr);
			Datum		edge = zone_bound_deserialize(key->descending ?
													  s->zone.max[a] : s->zone.min[a], attr);
			int			c = DatumGetInt32(FunctionCall2Coll(cmp, key->collation,
															prev_edge, edge));

			if (key->descending)
				c = -c;
			if (c > 0 || (c == 0 && nkeys > 1))
				return false;
			stripe_meta_release_columns(prev);
		}
		prev = s;
	}
	return true;
}

Datum
colcompress_merge(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Relation	rel = relation_open(relid, ShareUpdateExclusiveLock);
	TupleDesc	desc = RelationGetDescr(rel);
	ColcompressOptions opts;
	ColcompressOrderbyKey *keys;
	int			nkeys;
	AttrNumber *attnums;
	Oid		   *sortops;
	Oid		   *collations;
	bool	   *nulls_first;
	Tuplesortstate *sort;
	TupleTableSlot *slot;
	ColReader  *reader;
	ColWriter  *writer;
	StorageIndexInserter *indexes;
	Snapshot	snapshot;
	CommandId	cid;
	ListCell   *lc;
	int			i;

	if (!is_colcompress(rel))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a colcompress table", RelationGetRelationName(rel))));
	if (!object_ownercheck(RelationRelationId, relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, RelationGetRelationName(rel));
	colcompress_options_get(relid, &opts);
	if (opts.orderby == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" has no orderby option", RelationGetRelationName(rel)),
				 errhint("Set one first, for example ALTER TABLE %s SET (orderby = 'column ASC').",
						 RelationGetRelationName(rel))));
	/* rows get new numbers: no delete or lock may be pending on old ones */
	storage_lock_for_rewrite(rel);

	/* this transaction's own buffered rows are merged too */
	pending_flush_for_read(rel);
	CommandCounterIncrement();
	cid = GetCurrentCommandId(true);

	keys = colcompress_orderby_resolve(rel, opts.orderby, &nkeys);
	attnums = palloc(sizeof(AttrNumber) * nkeys);
	sortops = palloc(sizeof(Oid) * nkeys);
	collations = palloc(sizeof(Oid) * nkeys);
	nulls_first = palloc(sizeof(bool) * nkeys);
	for (i = 0; i < nkeys; i++)
	{
		attnums[i] = keys[i].attnum;
		sortops[i] = keys[i].sortop;
		collations[i] = keys[i].collation;
		nulls_first[i] = keys[i].nulls_first;
	}
	sort = tuplesort_begin_heap(desc, nkeys, attnums, sortops, collations,
								nulls_first, maintenance_work_mem, NULL,
								TUPLESORT_NONE);

	/*
	 * Read with a snapshot taken now that no DML runs: the statement's was
	 * taken before the rewrite lock, and would bring back rows deleted by
	 * transactions that committed while we waited for it.
	 */
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	reader = col_reader_begin(rel, snapshot, NULL, NULL);
	if (already_sorted(rel, reader->stripes, opts.orderby, &keys[0], nkeys))
	{
		ereport(NOTICE,
				(errmsg("table \"%s\" is already sorted by its orderby option",
						RelationGetRelationName(rel))));
		tuplesort_end(sort);
		col_reader_end(reader);
		UnregisterSnapshot(snapshot);
		relation_close(rel, NoLock);
		PG_RETURN_VOID();
	}

	slot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
	while (col_reader_next_slot(reader, true, slot))
	{
		CHECK_FOR_INTERRUPTS();
		tuplesort_puttupleslot(sort, slot);
	}
	tuplesort_performsort(sort);
	ExecDropSingleTupleTableSlot(slot);

	slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	writer = col_writer_create(rel, CurrentMemoryContext);
	indexes = storage_index_inserter_begin(rel);
	while (tuplesort_gettupleslot(sort, true, false, slot, NULL))
	{
		CHECK_FOR_INTERRUPTS();
		col_writer_insert(writer, rel, slot, cid);
		storage_index_inserter_add(indexes, slot);
	}
	col_writer_flush(writer, rel);
	col_writer_free(writer);
	storage_index_inserter_end(indexes);
	tuplesort_end(sort);
	ExecDropSingleTupleTableSlot(slot);

	/*
	 * The stripes just rewritten go, for every snapshot after ours; VACUUM
	 * frees their blocks once no snapshot reads them.
	 */
	foreach(lc, reader->stripes)
	{
		StripeMeta *s = lfirst(lc);
		StreamInfo	info;

		col_stripe_stream_info(s, &info);
		storage_retire_stream(&colcompress_storage_am, s->storage_id, &info);
	}
	col_reader_end(reader);
	UnregisterSnapshot(snapshot);
	CommandCounterIncrement();

	relation_close(rel, NoLock);
	PG_RETURN_VOID();
}
