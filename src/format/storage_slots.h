/*-------------------------------------------------------------------------
 *
 * storage_slots.h
 *	  The tuple slots of both access methods (see storage_slots.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_STORAGE_SLOTS_H
#define STORAGE_ENGINE_STORAGE_SLOTS_H

#include "executor/tuptable.h"

/*
 * Makes ops base's slot type (PostgreSQL's virtual or minimal-tuple one)
 * with the system columns our rows have: xmin, and whether the current
 * transaction wrote the row.
 */
extern void storage_slot_ops_init(TupleTableSlotOps *ops,
								  const TupleTableSlotOps *base);

/* rowcompress's slots: PostgreSQL's minimal-tuple slots, so extended */
extern const TupleTableSlotOps *storage_slot_minimal_ops(void);

/* Is slot a minimal-tuple slot, PostgreSQL's or rowcompress's? */
extern bool storage_slot_is_minimal(TupleTableSlot *slot);

/* Stores tup (not copied, not freed by the slot) in such a slot. */
extern void storage_slot_store_minimal(MinimalTuple tup, TupleTableSlot *slot);

#endif							/* STORAGE_ENGINE_STORAGE_SLOTS_H */
