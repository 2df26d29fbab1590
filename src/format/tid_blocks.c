/*-------------------------------------------------------------------------
 *
 * tid_blocks.c
 *	  Keeps a relation with a BRIN index at least as long as the TID
 *	  blocks its rows have.
 *
 *	  Our TIDs are row numbers (format/row_number.h), 291 to a TID block:
 *	  those blocks are not pages.  BRIN summarizes ranges of TID blocks,
 *	  and its scans and its summarizing of new ranges go only as far as
 *	  the relation's size (RelationGetNumberOfBlocks).  A table whose rows
 *	  take less than 8 kB per 291 rows has fewer pages than TID blocks, and
 *	  a BRIN scan would never return its last rows.  Reporting a larger
 *	  size instead is no way out: ANALYZE (PostgreSQL 17+, a read stream)
 *	  and pg_prewarm read every block below the size as a buffer.
 *
 *	  So while a table has a BRIN index, every stream written makes the
 *	  relation as long as the TID blocks the row numbers handed out reach:
 *	  blocks past every stream are reserved, written as empty pages and
 *	  given to the free space, where later streams reuse them (the table
 *	  then takes max(its data, 8 kB per 291 rows), not their sum), and
 *	  VACUUM does not truncate below that length.  Rows not yet written
 *	  have their TID blocks covered when they are.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "utils/rel.h"

#include "catalog/free_space.h"
#include "format/row_number.h"
#include "format/storage.h"
#include "format/tid_blocks.h"

static BlockNumber
blocks_for(const StorageMeta *meta)
{
	return (BlockNumber) ((meta->next_row_number + ROWS_PER_TID_BLOCK - 1) /
						  ROWS_PER_TID_BLOCK);
}

BlockNumber
tid_blocks_needed(Relation rel)
{
	StorageMeta meta;

	return storage_read_meta(rel, &meta) ? blocks_for(&meta) : 0;
}

void
tid_blocks_cover(Relation rel, uint64 storage_id)
{
	StorageMeta meta;
	BlockNumber needed;

	if (!storage_read_meta(rel, &meta))
		return;
	needed = blocks_for(&meta);
	if (RelationGetNumberOfBlocks(rel) >= needed)
		return;
	if (meta.next_block < needed)
	{
		uint64		n = needed - meta.next_block;

		free_space_add(storage_id, storage_reserve_empty_blocks(rel, n), n);
	}

	/*
	 * Blocks below the next one that VACUUM truncated away (free space):
	 * the file grows over them without writing them, as a stream taking
	 * them would.
	 */
	compat_extend_main_fork_to(rel, needed);
}
