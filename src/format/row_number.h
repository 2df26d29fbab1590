/*-------------------------------------------------------------------------
 *
 * row_number.h
 *	  Row numbers and the TIDs handed to PostgreSQL.
 *
 *	  A row number is a 64-bit integer, unique within a storage and never
 *	  reused (storage.c reserves them).  PostgreSQL wants heap-shaped TIDs:
 *	  indexes, bitmap scans and tbm_add_tuples assume offsets within
 *	  MaxHeapTuplesPerPage and valid block numbers, so row number r maps to
 *	  block r / MaxHeapTuplesPerPage, offset r % MaxHeapTuplesPerPage + 1.
 *	  These "blocks" are logical: they are not the relation's pages.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_ROW_NUMBER_H
#define STORAGE_ENGINE_ROW_NUMBER_H

#include "access/htup_details.h"
#include "storage/itemptr.h"

#define ROWS_PER_TID_BLOCK	((uint64) MaxHeapTuplesPerPage)
#define MAX_ROW_NUMBER		((uint64) MaxBlockNumber * ROWS_PER_TID_BLOCK - 1)

static inline void
row_number_to_tid(uint64 rownum, ItemPointer tid)
{
	ItemPointerSet(tid, (BlockNumber) (rownum / ROWS_PER_TID_BLOCK),
				   (OffsetNumber) (rownum % ROWS_PER_TID_BLOCK + 1));
}

static inline uint64
tid_to_row_number(ItemPointer tid)
{
	return (uint64) ItemPointerGetBlockNumber(tid) * ROWS_PER_TID_BLOCK +
		ItemPointerGetOffsetNumber(tid) - 1;
}

/* Is rownum among the n ascending row numbers of sorted? */
static inline bool
row_number_in(const uint64 *sorted, int n, uint64 rownum)
{
	int			lo = 0;
	int			hi = n;

	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (sorted[mid] == rownum)
			return true;
		if (sorted[mid] < rownum)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

#endif							/* STORAGE_ENGINE_ROW_NUMBER_H */
