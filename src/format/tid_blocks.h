/*-------------------------------------------------------------------------
 *
 * tid_blocks.h
 *	  A relation with a BRIN index as long as the TID blocks of its rows
 *	  (see tid_blocks.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_TID_BLOCKS_H
#define STORAGE_ENGINE_TID_BLOCKS_H

#include "utils/relcache.h"

/* The TID blocks the row numbers handed out so far reach (0: no storage). */
extern BlockNumber tid_blocks_needed(Relation rel);

/* Makes the relation at least tid_blocks_needed long (for a BRIN index). */
extern void tid_blocks_cover(Relation rel, uint64 storage_id);

/*
 * Notes a table a parallel scan is initialized for, when a parallel BRIN
 * build may have to have it covered (tid_blocks.c); covers the noted
 * tables, after a statement that may have built an index.
 */
extern void tid_blocks_note_parallel_scan(Relation rel);
extern void tid_blocks_cover_noted(void);

#endif							/* STORAGE_ENGINE_TID_BLOCKS_H */
