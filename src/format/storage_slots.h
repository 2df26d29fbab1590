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
 * The slot types of colcompress (PostgreSQL's virtual slots) and
 * rowcompress (its minimal-tuple slots), extended with the system columns
 * our rows have (xmin, and whether the current transaction wrote the row),
 * and copies that keep the row's TID.
 */
extern const TupleTableSlotOps *storage_slot_virtual_ops(void);
extern const TupleTableSlotOps *storage_slot_minimal_ops(void);

/* Is slot a minimal-tuple slot, PostgreSQL's or rowcompress's? */
extern bool storage_slot_is_minimal(TupleTableSlot *slot);

/* Stores tup (not copied, not freed by the slot) in such a slot. */
extern void storage_slot_store_minimal(MinimalTuple tup, TupleTableSlot *slot);

#endif							/* STORAGE_ENGINE_STORAGE_SLOTS_H */
