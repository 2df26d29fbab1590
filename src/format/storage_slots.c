/*-------------------------------------------------------------------------
 *
 * storage_slots.c
 *	  The tuple slots of both access methods: PostgreSQL's virtual slots
 *	  (colcompress builds rows from decoded columns) and minimal-tuple
 *	  slots (rowcompress stores its rows as minimal tuples), extended with
 *	  the system columns a row of ours can answer.
 *
 *	  PostgreSQL's own virtual and minimal-tuple slots have no system
 *	  columns, and foreign key triggers ask one: on an UPDATE of a
 *	  referencing row, whether the current transaction inserted the old
 *	  row (through its xmin up to 16, slot_is_current_xact_tuple from 17
 *	  on).  Every UPDATE of a table with a foreign key failed ("cannot
 *	  retrieve a system column in this context").  A row's xmin here is
 *	  the transaction that wrote it to storage: the one that inserted it,
 *	  or the rewrite (VACUUM, repack, merge) that last moved it, found
 *	  through the row's run in engine.row_run; the current transaction for
 *	  a row it still buffers.  Other system columns (xmax, cmin, cmax) stay
 *	  unavailable, with PostgreSQL's error.
 *
 *	  Copies of a row keep its TID, as heap slots' copies do (logical
 *	  replication and ANALYZE rely on it).
 *
 *	  A slot type of our own is not PostgreSQL's minimal-tuple type, which
 *	  ExecStoreMinimalTuple insists on: rowcompress's slots copy and store
 *	  tuples with a copy of what it does for that type.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/htup_details.h"
#include "access/sysattr.h"
#include "access/transam.h"
#include "access/xact.h"
#include "utils/rel.h"

#include "format/storage_am.h"
#include "format/storage_slots.h"

static TupleTableSlotOps virtual_ops;
static TupleTableSlotOps minimal_ops;

/* The transaction that wrote the slot's row; false when unknown. */
static bool
slot_writer(TupleTableSlot *slot, TransactionId *writer)
{
	Relation	rel;
	bool		found;

	if (TTS_EMPTY(slot) || !OidIsValid(slot->tts_tableOid) ||
		!ItemPointerIsValid(&slot->tts_tid))
		return false;
	rel = RelationIdGetRelation(slot->tts_tableOid);
	if (!RelationIsValid(rel))
		return false;
	found = storage_row_writer(rel, &slot->tts_tid, writer);
	RelationClose(rel);
	return found;
}

static pg_noreturn void
no_system_column(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot retrieve a system column in this context")));
}

static Datum
storage_slot_getsysattr(TupleTableSlot *slot, int attnum, bool *isnull)
{
	TransactionId writer;

	if (attnum != MinTransactionIdAttributeNumber ||
		!slot_writer(slot, &writer))
		no_system_column();
	*isnull = false;
	return TransactionIdGetDatum(writer);
}

static bool
storage_slot_is_current(TupleTableSlot *slot)
{
	TransactionId writer;

	if (!slot_writer(slot, &writer))
		no_system_column();
	return TransactionIdIsCurrentTransactionId(writer);
}

/* what ExecStoreMinimalTuple does for PostgreSQL's type */
static void
store_minimal(MinimalTuple tup, TupleTableSlot *slot, bool should_free)
{
	MinimalTupleTableSlot *mslot = (MinimalTupleTableSlot *) slot;

	ExecClearTuple(slot);
	slot->tts_flags &= ~TTS_FLAG_EMPTY;
	slot->tts_nvalid = 0;
	mslot->off = 0;
	mslot->mintuple = tup;
	mslot->minhdr.t_len = tup->t_len + MINIMAL_TUPLE_OFFSET;
	mslot->minhdr.t_data = (HeapTupleHeader) ((char *) tup - MINIMAL_TUPLE_OFFSET);
	if (should_free)
		slot->tts_flags |= TTS_FLAG_SHOULDFREE;
}

/*
 * A copy of a row keeps its TID and table, as a heap slot's copy does:
 * logical replication finds a row to change by a sequential scan when
 * the table has no usable index (REPLICA IDENTITY FULL), copies it, and
 * locks the copy's TID ("attempted to lock invisible tuple" otherwise).
 */
static void
keep_identity(TupleTableSlot *dst, TupleTableSlot *src)
{
	dst->tts_tid = src->tts_tid;
	dst->tts_tableOid = src->tts_tableOid;
}

/*
 * INSERT ... SELECT from a heap table copies every row into the table's
 * slot.  PostgreSQL's virtual copy deforms the row, then copies each
 * by-reference value on its own (5% of loading the benchmark's events from
 * heap); copying the tuple whole and deforming the copy gives the same
 * values for one memcpy.  A tuple shorter than its descriptor (columns
 * added since) takes the general path: its missing values live in the
 * source's descriptor, which the copy must not point into.
 */
static bool
copy_heap_row(TupleTableSlot *dst, TupleTableSlot *src)
{
	VirtualTupleTableSlot *vdst = (VirtualTupleTableSlot *) dst;
	TupleDesc	desc = src->tts_tupleDescriptor;
	MemoryContext old;
	HeapTuple	tuple;

	if (!TTS_IS_BUFFERTUPLE(src) && !TTS_IS_HEAPTUPLE(src))
		return false;
	ExecClearTuple(dst);
	old = MemoryContextSwitchTo(dst->tts_mcxt);
	tuple = ExecCopySlotHeapTuple(src);
	MemoryContextSwitchTo(old);
	if (HeapTupleHeaderGetNatts(tuple->t_data) < desc->natts)
	{
		heap_freetuple(tuple);
		return false;
	}
	heap_deform_tuple(tuple, desc, dst->tts_values, dst->tts_isnull);
	vdst->data = (char *) tuple;
	dst->tts_flags &= ~TTS_FLAG_EMPTY;
	dst->tts_flags |= TTS_FLAG_SHOULDFREE;
	dst->tts_nvalid = dst->tts_tupleDescriptor->natts;
	return true;
}

static void
copy_virtual(TupleTableSlot *dst, TupleTableSlot *src)
{
	if (!copy_heap_row(dst, src))
		TTSOpsVirtual.copyslot(dst, src);
	keep_identity(dst, src);
}

/*
 * The same for a heap tuple copied out of either slot.  ANALYZE copies its
 * sample rows so and sorts them by that TID to put them back in table
 * order, from which it computes each column's correlation; with
 * PostgreSQL's slot types every copy's TID is invalid, the sample stays in
 * reservoir order, and the correlation of a perfectly ordered column comes
 * out near 0 (the planner then costs index scans and zone-map pruning as
 * for unordered rows).
 */
static HeapTuple
copy_heap_tuple(TupleTableSlot *slot)
{
	const TupleTableSlotOps *base = slot->tts_ops == &virtual_ops ?
		&TTSOpsVirtual : &TTSOpsMinimalTuple;
	HeapTuple	tuple = base->copy_heap_tuple(slot);

	tuple->t_self = slot->tts_tid;
	return tuple;
}

/* PostgreSQL's copyslot stores with ExecStoreMinimalTuple */
static void
copy_minimal(TupleTableSlot *dst, TupleTableSlot *src)
{
	MemoryContext old = MemoryContextSwitchTo(dst->tts_mcxt);
	MinimalTuple tup = ExecCopySlotMinimalTuple(src);

	MemoryContextSwitchTo(old);
	store_minimal(tup, dst, true);
	keep_identity(dst, src);
}

/* Makes ops base's slot type with our rows' system columns. */
static void
ops_init(TupleTableSlotOps *ops, const TupleTableSlotOps *base)
{
	*ops = *base;
	ops->getsysattr = storage_slot_getsysattr;
	compat_slot_ops_is_current(ops, storage_slot_is_current);
}

const TupleTableSlotOps *
storage_slot_virtual_ops(void)
{
	if (virtual_ops.getsysattr == NULL)
	{
		ops_init(&virtual_ops, &TTSOpsVirtual);
		virtual_ops.copyslot = copy_virtual;
		virtual_ops.copy_heap_tuple = copy_heap_tuple;
	}
	return &virtual_ops;
}

const TupleTableSlotOps *
storage_slot_minimal_ops(void)
{
	if (minimal_ops.getsysattr == NULL)
	{
		ops_init(&minimal_ops, &TTSOpsMinimalTuple);
		minimal_ops.copyslot = copy_minimal;
		minimal_ops.copy_heap_tuple = copy_heap_tuple;
	}
	return &minimal_ops;
}

bool
storage_slot_is_minimal(TupleTableSlot *slot)
{
	return slot->tts_ops == &TTSOpsMinimalTuple || slot->tts_ops == &minimal_ops;
}

void
storage_slot_store_minimal(MinimalTuple tup, TupleTableSlot *slot)
{
	if (slot->tts_ops == &TTSOpsMinimalTuple)
		ExecStoreMinimalTuple(tup, slot, false);
	else
	{
		Assert(slot->tts_ops == &minimal_ops);
		store_minimal(tup, slot, false);
	}
}
