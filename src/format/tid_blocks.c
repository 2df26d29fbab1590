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
 *	  A parallel BRIN build (PostgreSQL 17+) reads the table in workers,
 *	  which may write nothing, and its leader may not read at all
 *	  (parallel_leader_participation off): the build cannot cover the
 *	  table as a serial one does (storage_am_rows.c).  The leader's
 *	  parallelscan_initialize notes the table, and the utility statement
 *	  that built the index (every index build is one's) covers it before
 *	  it returns (from pending_writes.c's utility hook, which also writes
 *	  buffered rows before such statements): a BRIN scan in a
 *	  parallel-built index once missed every row past the table's last
 *	  page.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/parallel.h"
#include "access/relation.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "catalog/free_space.h"
#include "format/row_number.h"
#include "format/storage.h"
#include "format/storage_am.h"
#include "format/tid_blocks.h"
#include "relation_hooks.h"

/* OIDs of tables parallel scans found shorter than their TID blocks */
static List *noted = NIL;

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

/*
 * Whether the table has a BRIN index is asked when it is covered: the
 * relation a build scans may not list its first index yet (relhasindex).
 */
void
tid_blocks_note_parallel_scan(Relation rel)
{
	MemoryContext old;

	if (IsParallelWorker() || list_member_oid(noted, RelationGetRelid(rel)) ||
		RelationGetNumberOfBlocks(rel) >= tid_blocks_needed(rel))
		return;
	old = MemoryContextSwitchTo(TopMemoryContext);
	noted = lappend_oid(noted, RelationGetRelid(rel));
	MemoryContextSwitchTo(old);
}

void
tid_blocks_cover_noted(void)
{
	List	   *relids = noted;
	ListCell   *lc;

	if (noted == NIL || !IsTransactionState() || IsInParallelMode() ||
		XactReadOnly || RecoveryInProgress())
		return;
	noted = NIL;
	foreach(lc, relids)
	{
		Relation	rel = try_relation_open(lfirst_oid(lc), AccessShareLock);
		StorageMeta meta;

		if (rel == NULL)
			continue;
		/* noted tables without BRIN (any narrow table scanned) are left be */
		if (storage_am_for(rel) != NULL && storage_index_kinds(rel).brin &&
			storage_read_meta(rel, &meta))
		{
			/* the lock of a writer, as a stream written covers the table */
			LockRelationOid(RelationGetRelid(rel), RowExclusiveLock);
			tid_blocks_cover(rel, meta.storage_id);
		}
		relation_close(rel, NoLock);
	}
	list_free(relids);
}
