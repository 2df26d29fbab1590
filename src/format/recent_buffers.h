/*-------------------------------------------------------------------------
 *
 * recent_buffers.h
 *	  Pinning a block of our storage through the shared buffer that held it
 *	  last, without the buffer mapping table.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_RECENT_BUFFERS_H
#define STORAGE_ENGINE_RECENT_BUFFERS_H

#include "storage/bufmgr.h"
#include "utils/relcache.h"

/*
 * Block blk of rel's main fork, pinned, as ReadBufferExtended(RBM_NORMAL)
 * gives it; the caller has checked that the block exists.
 */
extern Buffer recent_buffer_read(Relation rel, BlockNumber blk,
								 BufferAccessStrategy strategy);

#endif
