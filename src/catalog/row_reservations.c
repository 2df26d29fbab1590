/*-------------------------------------------------------------------------
 *
 * row_reservations.c
 *	  Owns engine.row_reservation (see row_reservations.h).
 *
 *	  A row buffered by its inserting transaction already has its index
 *	  entries, but no stored bytes another session could find.  Heap
 *	  tells a unique check "in progress, wait for xmin" from the tuple; we
 *	  tell it from the reservation row, which the inserting transaction
 *	  wrote, so its xmin is that transaction.  A transaction deletes its
 *	  reservation rows just before it commits (its rows are stored by
 *	  then); rows of an aborted (sub)transaction are dead already.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "storage/procarray.h"
#include "utils/fmgroids.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "catalog/meta_tables.h"
#include "catalog/row_reservations.h"

typedef struct Recorded
{
	ItemPointerData tid;
	SubTransactionId subxid;
} Recorded;

static List *recorded = NIL;	/* in TopTransactionContext */

void
row_reservation_record(uint64 storage_id, uint64 first, uint64 n)
{
	Relation	rel = meta_table_open("row_reservation", RowExclusiveLock);
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	HeapTuple	tuple;
	MemoryContext old;
	Recorded   *r;

	values[0] = Int64GetDatum((int64) storage_id);
	values[1] = Int64GetDatum((int64) first);
	values[2] = Int64GetDatum((int64) n);
	tuple = heap_form_tuple(RelationGetDescr(rel), values, nulls);
	CatalogTupleInsert(rel, tuple);
	table_close(rel, NoLock);

	old = MemoryContextSwitchTo(TopTransactionContext);
	r = palloc(sizeof(Recorded));
	r->tid = tuple->t_self;
	r->subxid = GetCurrentSubTransactionId();
	recorded = lappend(recorded, r);
	MemoryContextSwitchTo(old);
}

TransactionId
row_reservation_owner(uint64 storage_id, uint64 from, uint64 end)
{
	Relation	rel = meta_table_open("row_reservation", AccessShareLock);
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tuple;
	TransactionId owner = InvalidTransactionId;
	SnapshotData dirty;

	InitDirtySnapshot(dirty);
	meta_storage_key(&keys[0], 1, storage_id);
	ScanKeyInit(&keys[1], 2, BTLessStrategyNumber, F_INT8LT,
				Int64GetDatum((int64) end));
	scan = systable_beginscan(rel, meta_table_relid("row_reservation_key"),
							  true, &dirty, 2, keys);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		bool		isnull;
		uint64		first = (uint64) DatumGetInt64(heap_getattr(tuple, 2, RelationGetDescr(rel), &isnull));
		uint64		n = (uint64) DatumGetInt64(heap_getattr(tuple, 3, RelationGetDescr(rel), &isnull));
		TransactionId xmin = HeapTupleHeaderGetXmin(tuple->t_data);

		if (first + n > from &&
			!TransactionIdIsCurrentTransactionId(xmin) &&
			TransactionIdIsInProgress(xmin))
		{
			owner = xmin;
			break;
		}
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return owner;
}

static void
xact_callback(XactEvent event, void *arg)
{
	ListCell   *lc;
	Relation	rel;

	if (event == XACT_EVENT_PRE_COMMIT || event == XACT_EVENT_PARALLEL_PRE_COMMIT ||
		event == XACT_EVENT_PRE_PREPARE)
	{
		if (recorded == NIL)
			return;
		/* rows inserted by the command still running are deletable after this */
		CommandCounterIncrement();
		rel = meta_table_open("row_reservation", RowExclusiveLock);
		foreach(lc, recorded)
			CatalogTupleDelete(rel, &((Recorded *) lfirst(lc))->tid);
		table_close(rel, NoLock);
		recorded = NIL;
	}
	else
		recorded = NIL;			/* commit or abort: the context is gone */
}

static void
subxact_callback(SubXactEvent event, SubTransactionId mySubid,
				 SubTransactionId parentSubid, void *arg)
{
	ListCell   *lc;

	foreach(lc, recorded)
	{
		Recorded   *r = lfirst(lc);

		if (r->subxid != mySubid)
			continue;
		if (event == SUBXACT_EVENT_COMMIT_SUB)
			r->subxid = parentSubid;
		else if (event == SUBXACT_EVENT_ABORT_SUB)
			recorded = foreach_delete_current(recorded, lc);
	}
}

void
row_reservations_init(void)
{
	RegisterXactCallback(xact_callback, NULL);
	RegisterSubXactCallback(subxact_callback, NULL);
}
