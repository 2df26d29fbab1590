/*-------------------------------------------------------------------------
 *
 * row_reservations.c
 *	  Owns engine.row_reservation and engine.pending_row (see
 *	  row_reservations.h).
 *
 *	  A row buffered by its inserting transaction already has its index
 *	  entries, but no stored bytes another session could find.  Heap
 *	  tells a unique check "in progress, wait for xmin" from the tuple; we
 *	  tell it from the reservation row, which the inserting transaction
 *	  wrote, so its xmin is that transaction.  A transaction deletes its
 *	  reservation rows just before it commits (its rows are stored by
 *	  then); rows of an aborted (sub)transaction are dead already.
 *
 *	  An exclusion constraint's check needs more than whom to wait for:
 *	  it compares the row's values (a lossy index rechecks every row it
 *	  finds).  Rows inserted into a table with one therefore leave their
 *	  image in engine.pending_row, where other sessions' checks read it
 *	  with a dirty snapshot, as they would read an in-progress heap tuple,
 *	  and where the inserting transaction's own checks find it without
 *	  writing out its buffer (which made a stripe per inserted row).
 *	  Images go the same way as reservation rows at commit.
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
#include "access/detoast.h"
#include "catalog/indexing.h"
#include "executor/tuptable.h"
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

/* storage ids of tables we left row images for, in TopTransactionContext */
static List *imaged_storages = NIL;

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

/* Scratch for one row's image, reset after every row: loads make many. */
static MemoryContext image_cxt = NULL;

bool
pending_row_record(uint64 storage_id, uint64 rownum, TupleTableSlot *slot)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;
	MemoryContext old;
	Datum	   *values;
	HeapTuple	image;
	bytea	   *bytes;
	Relation	rel;
	Datum		cols[3];
	bool		nulls[3] = {false, false, false};
	ListCell   *lc;
	uint64	   *id;
	int			a;

	if (image_cxt == NULL)
		image_cxt = AllocSetContextCreate(TopMemoryContext,
										  "storage_engine row image",
										  ALLOCSET_SMALL_SIZES);
	slot_getallattrs(slot);
	old = MemoryContextSwitchTo(image_cxt);
	/* self-contained: no pointer into a TOAST table */
	values = palloc(sizeof(Datum) * Max(desc->natts, 1));
	for (a = 0; a < desc->natts; a++)
	{
		values[a] = slot->tts_values[a];
		if (!slot->tts_isnull[a] && TupleDescAttr(desc, a)->attlen == -1 &&
			VARATT_IS_EXTENDED(DatumGetPointer(values[a])))
			values[a] = PointerGetDatum(detoast_attr((struct varlena *)
													 DatumGetPointer(values[a])));
	}
	image = heap_form_tuple(desc, values, slot->tts_isnull);
	if (image->t_len > PENDING_ROW_MAX_IMAGE)
	{
		MemoryContextSwitchTo(old);
		MemoryContextReset(image_cxt);
		return false;
	}
	bytes = palloc(VARHDRSZ + image->t_len);
	SET_VARSIZE(bytes, VARHDRSZ + image->t_len);
	memcpy(VARDATA(bytes), image->t_data, image->t_len);

	rel = meta_table_open("pending_row", RowExclusiveLock);
	cols[0] = Int64GetDatum((int64) storage_id);
	cols[1] = Int64GetDatum((int64) rownum);
	cols[2] = PointerGetDatum(bytes);
	CatalogTupleInsert(rel, heap_form_tuple(RelationGetDescr(rel), cols, nulls));
	table_close(rel, NoLock);
	MemoryContextSwitchTo(old);
	MemoryContextReset(image_cxt);

	foreach(lc, imaged_storages)
	{
		if (*(uint64 *) lfirst(lc) == storage_id)
			return true;
	}
	old = MemoryContextSwitchTo(TopTransactionContext);
	id = palloc(sizeof(uint64));
	*id = storage_id;
	imaged_storages = lappend(imaged_storages, id);
	MemoryContextSwitchTo(old);
	return true;
}

bool
pending_row_fetch(uint64 storage_id, uint64 rownum, TupleTableSlot *slot)
{
	Relation	rel = meta_table_open("pending_row", AccessShareLock);
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tuple;
	SnapshotData dirty;
	bool		found = false;

	InitDirtySnapshot(dirty);
	meta_storage_key(&keys[0], 1, storage_id);
	ScanKeyInit(&keys[1], 2, BTEqualStrategyNumber, F_INT8EQ,
				Int64GetDatum((int64) rownum));
	scan = systable_beginscan(rel, meta_table_relid("pending_row_pkey"),
							  true, &dirty, 2, keys);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
	{
		bool		isnull;
		Datum		datum = heap_getattr(tuple, 3, RelationGetDescr(rel), &isnull);
		bytea	   *bytes;
		uint32		len;
		HeapTuple	image;

		if (isnull)
			meta_corrupted("pending_row", storage_id, "a row image is NULL");
		bytes = DatumGetByteaPP(datum);
		len = VARSIZE_ANY_EXHDR(bytes);
		if (len < SizeofHeapTupleHeader)
			meta_corrupted("pending_row", storage_id, "a row image is too short");
		/* a tuple of its own, aligned, that the slot frees once it copied it */
		image = palloc(HEAPTUPLESIZE + len);
		image->t_len = len;
		ItemPointerSetInvalid(&image->t_self);
		image->t_tableOid = InvalidOid;
		image->t_data = (HeapTupleHeader) ((char *) image + HEAPTUPLESIZE);
		memcpy(image->t_data, VARDATA_ANY(bytes), len);
		ExecForceStoreHeapTuple(image, slot, true);
		found = true;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/* Deletes the row images this transaction left for storage_id. */
static void
delete_own_images(Relation rel, uint64 storage_id)
{
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	SnapshotData dirty;

	InitDirtySnapshot(dirty);
	meta_storage_key(&key, 1, storage_id);
	scan = systable_beginscan(rel, meta_table_relid("pending_row_pkey"),
							  true, &dirty, 1, &key);
	while (HeapTupleIsValid(tuple = systable_getnext(scan)))
	{
		if (TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data)))
			CatalogTupleDelete(rel, &tuple->t_self);
	}
	systable_endscan(scan);
}

static void
xact_callback(XactEvent event, void *arg)
{
	ListCell   *lc;
	Relation	rel;

	if (event == XACT_EVENT_PRE_COMMIT || event == XACT_EVENT_PARALLEL_PRE_COMMIT ||
		event == XACT_EVENT_PRE_PREPARE)
	{
		if (recorded == NIL && imaged_storages == NIL)
			return;
		/* rows inserted by the command still running are deletable after this */
		CommandCounterIncrement();
		if (recorded != NIL)
		{
			rel = meta_table_open("row_reservation", RowExclusiveLock);
			foreach(lc, recorded)
				CatalogTupleDelete(rel, &((Recorded *) lfirst(lc))->tid);
			table_close(rel, NoLock);
		}
		if (imaged_storages != NIL)
		{
			rel = meta_table_open("pending_row", RowExclusiveLock);
			foreach(lc, imaged_storages)
				delete_own_images(rel, *(uint64 *) lfirst(lc));
			table_close(rel, NoLock);
		}
	}
	/* done at pre-commit; after commit or abort, the context is gone */
	recorded = NIL;
	imaged_storages = NIL;
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
