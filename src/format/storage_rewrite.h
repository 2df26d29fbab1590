/*-------------------------------------------------------------------------
 *
 * storage_rewrite.h
 *	  Snapshots older than a VACUUM FULL or CLUSTER of the table they read
 *	  (see storage_rewrite.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_STORAGE_REWRITE_H
#define STORAGE_ENGINE_STORAGE_REWRITE_H

#include "utils/snapshot.h"

#include "format/storage.h"

/* Called for every metapage read: notes the rewrite that wrote it, if any. */
extern void storage_rewrite_note(Relation rel, const StorageMeta *meta);

/*
 * The snapshot to read storage_id's metadata rows with for snapshot: itself,
 * or, when it does not see the rewrite that wrote the storage, a copy that
 * sees it too (valid until the transaction ends).  Raises a serialization
 * failure when the rewrite's copy is not what snapshot saw.
 */
extern Snapshot storage_rewrite_snapshot(Snapshot snapshot, uint64 storage_id);

#endif							/* STORAGE_ENGINE_STORAGE_REWRITE_H */
