/*-------------------------------------------------------------------------
 *
 * row_reservations.h
 *	  Row numbers reserved by transactions that still buffer their rows, in
 *	  engine.row_reservation, so that unique and exclusion checks and BRIN
 *	  summaries of other sessions can wait for them; the rows' images, for
 *	  exclusion checks, in engine.pending_row.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_ROW_RESERVATIONS_H
#define STORAGE_ENGINE_ROW_RESERVATIONS_H

#include "executor/tuptable.h"
#include "utils/relcache.h"

/* Records that the current (sub)transaction reserved [first, first + n). */
extern void row_reservation_record(uint64 storage_id, uint64 first, uint64 n);

/*
 * A transaction, other than ours and still in progress, that reserved a
 * row number in [from, end); InvalidTransactionId when there is none.
 */
extern TransactionId row_reservation_owner(uint64 storage_id, uint64 from,
										   uint64 end);

/*
 * Row images of tables with an exclusion constraint (engine.pending_row).
 * pending_row_record leaves slot's row, the current (sub)transaction's
 * row rownum, for checks to read; false, leaving nothing, when its image
 * would be longer than PENDING_ROW_MAX_IMAGE (so that it is never TOASTed:
 * another session could not read TOAST rows of our uncommitted
 * transaction).  pending_row_fetch stores the image of row rownum, as a
 * dirty snapshot sees it (ours, or of a transaction in progress), in slot.
 */
#define PENDING_ROW_MAX_IMAGE	1800

extern bool pending_row_record(uint64 storage_id, uint64 rownum,
							   TupleTableSlot *slot);
extern bool pending_row_fetch(uint64 storage_id, uint64 rownum,
							  TupleTableSlot *slot);

extern void row_reservations_init(void);

#endif							/* STORAGE_ENGINE_ROW_RESERVATIONS_H */
