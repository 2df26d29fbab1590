/*-------------------------------------------------------------------------
 *
 * col_fetch.h
 *	  Fetching colcompress rows by row number (for TIDs from indexes,
 *	  bitmaps, row locks and updates).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COL_FETCH_H
#define STORAGE_ENGINE_COL_FETCH_H

#include "executor/tuptable.h"
#include "nodes/bitmapset.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

typedef struct ColFetch ColFetch;
typedef struct ColFetchCursor ColFetchCursor;

/* What snapshot sees: the stripes and where their rows are. */
extern ColFetch *col_fetch_begin(Relation rel, Snapshot snapshot);
extern void col_fetch_end(ColFetch *fetch);

/*
 * A cursor over fetch (which must outlive it), allocated in
 * CurrentMemoryContext; it keeps the frames it decoded last.
 */
extern ColFetchCursor *col_fetch_cursor(ColFetch *fetch);
/* Decode only these attribute numbers, the others are NULL; NULL: all. */
extern void col_fetch_cursor_columns(ColFetchCursor *cursor,
									 const Bitmapset *columns);
extern void col_fetch_cursor_end(ColFetchCursor *cursor);

/*
 * Stores the row with row number rownum, every column the cursor decodes,
 * in slot (or, with slot NULL, decodes nothing) if the stripes the
 * snapshot sees hold it (deletes are not checked); false otherwise.  The values stay valid until the cursor's next fetch.  When
 * the row is this transaction's, inserted by a command the snapshot may
 * not see, *later_own (if given) is set.
 */
extern bool col_fetch_row(ColFetchCursor *cursor, uint64 rownum,
						  TupleTableSlot *slot, bool *later_own);

#endif							/* STORAGE_ENGINE_COL_FETCH_H */
