/*-------------------------------------------------------------------------
 *
 * row_reservations.h
 *	  Row numbers reserved by transactions that still buffer their rows, in
 *	  engine.row_reservation, so that unique checks of other sessions can
 *	  wait for them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_ROW_RESERVATIONS_H
#define STORAGE_ENGINE_ROW_RESERVATIONS_H

#include "utils/relcache.h"

/* Records that the current (sub)transaction reserved [first, first + n). */
extern void row_reservation_record(uint64 storage_id, uint64 first, uint64 n);

/*
 * The transaction, other than ours and still in progress, that reserved
 * rownum; InvalidTransactionId when there is none.
 */
extern TransactionId row_reservation_owner(uint64 storage_id, uint64 rownum);

extern void row_reservations_init(void);

#endif							/* STORAGE_ENGINE_ROW_RESERVATIONS_H */
