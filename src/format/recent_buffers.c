/*-------------------------------------------------------------------------
 *
 * recent_buffers.c
 *	  Remembers which shared buffer held a block of our storage, so that
 *	  reading it again pins that buffer directly (ReadRecentBuffer, which
 *	  checks the buffer still holds the block) instead of looking the block
 *	  up in the buffer mapping table under its partition lock.
 *
 *	  A fetch by TID reads a few bytes of every column it returns, each
 *	  from its own page: on the events table a row of 17 columns costs
 *	  about 25 buffer reads, and the mapping lookups were a tenth of the
 *	  time of fetching rows by index.  The memory is a small direct-mapped
 *	  table per backend; a wrong or stale entry only costs the lookup it
 *	  would have saved.  Reads with a buffer access strategy (bulk scans)
 *	  keep going through ReadBufferExtended, so that their ring keeps
 *	  them from crowding out shared buffers, and so do temporary tables.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "common/hashfn.h"
#include "pgstat.h"
#include "utils/rel.h"

#include "format/recent_buffers.h"

#define RECENT_BUFFER_SLOTS	4096	/* a power of two */

typedef struct RecentBuffer
{
	CompatRelFileLocator file;
	BlockNumber block;
	Buffer		buffer;			/* InvalidBuffer: slot unused */
} RecentBuffer;

static RecentBuffer recent[RECENT_BUFFER_SLOTS];

static RecentBuffer *
slot_for(const CompatRelFileLocator *file, BlockNumber blk)
{
	uint32		h = hash_combine(murmurhash32((uint32) CompatRelFileNumber(*file)),
								 murmurhash32(blk));

	return &recent[h & (RECENT_BUFFER_SLOTS - 1)];
}

Buffer
recent_buffer_read(Relation rel, BlockNumber blk,
				   BufferAccessStrategy strategy)
{
	CompatRelFileLocator file = RelationPhysicalId(rel);
	RecentBuffer *slot;
	Buffer		buf;

	if (strategy != NULL || RelationUsesLocalBuffers(rel))
		return ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, strategy);

	slot = slot_for(&file, blk);
	if (BufferIsValid(slot->buffer) && slot->block == blk &&
		CompatRelFileLocatorEquals(slot->file, file) &&
		ReadRecentBuffer(file, MAIN_FORKNUM, blk, slot->buffer))
	{
		/* what ReadBufferExtended counts for the table's statistics */
		pgstat_count_buffer_read(rel);
		pgstat_count_buffer_hit(rel);
		return slot->buffer;
	}
	buf = ReadBufferExtended(rel, MAIN_FORKNUM, blk, RBM_NORMAL, NULL);
	slot->file = file;
	slot->block = blk;
	slot->buffer = buf;
	return buf;
}
