/*-------------------------------------------------------------------------
 *
 * row_reservations.h
 *	  Row numbers reserved by transactions that still buffer their rows, in
 *	  engine.row_reservation, so that unique and exclusion checks and BRIN
 *	  summaries of other sessions can wait for them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_ROW_RESERVATIONS_H
#define STORAGE_ENGINE_ROW_RESERVATIONS_H

#include "utils/relcache.h"

/* Records that the current (sub)transaction reserved [first, first + n). */
extern void row_reservation_record(uint64 storage_id, uint64 first, uint64 n);

/*
 * A transaction, other than ours and still in progress, that reserved a
 * row number in [from, end); InvalidTransactionId when there is none.
 */
extern TransactionId row_reservation_owner(uint64 storage_id, uint64 from,
										   uint64 end);

extern void row_reservations_init(void);

#endif							/* STORAGE_ENGINE_ROW_RESERVATIONS_H */
