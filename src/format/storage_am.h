/*-------------------------------------------------------------------------
 *
 * storage_am.h
 *	  What the two table access methods (colcompress, rowcompress) share
 *	  above their storage formats: the storage lifecycle (create, truncate,
 *	  copy, rewrite, drop), VACUUM and size estimates, the refusal of
 *	  published tables and ANALYZE's block
 *	  mapping.  Each access method describes itself once in a StorageAm
 *	  record; its table-AM callbacks forward here.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_STORAGE_AM_H
#define STORAGE_ENGINE_STORAGE_AM_H

#include "compat/compat.h"

#include "access/tableam.h"
#include "commands/vacuum.h"

#include "format/pending_writes.h"

typedef struct StorageAm
{
	const char *name;			/* "colcompress" */
	bool		(*is_am) (Relation rel);	/* does rel use this AM? */
	/* the main metadata table: absent while DROP EXTENSION runs */
	const char *metadata_table;
	/* the write buffer: pending_writer() creates it, insert() fills it */
	const PendingWriterOps *writer_ops;
	void		(*insert) (void *writer, Relation rel, TupleTableSlot *slot,
						   CommandId cid);
	/* removes every metadata row of a storage id */
	void		(*delete_metadata) (uint64 storage_id);
	/* visible rows of the relation under snapshot */
	uint64		(*count_rows) (Relation rel, Snapshot snapshot);
	/* errhint of CLUSTER's refusal */
	const char *cluster_hint;
} StorageAm;

/*
 * Full-page-image WAL cannot be decoded logically: a published table would
 * silently drop its rows from the change stream, so writes are refused.
 */
extern void storage_am_refuse_if_published(const StorageAm *am, Relation rel);

extern void storage_am_set_new_storage(const StorageAm *am, Relation rel,
									   const CompatRelFileLocator *newlocator,
									   char persistence,
									   TransactionId *freezeXid,
									   MultiXactId *minmulti);
extern void storage_am_nontransactional_truncate(const StorageAm *am,
												 Relation rel);
extern void storage_am_copy_data(Relation rel,
								 const CompatRelFileLocator *newlocator);
extern void storage_am_copy_for_cluster(const StorageAm *am,
										Relation OldTable, Relation NewTable,
										Relation OldIndex, bool use_sort,
										TransactionId OldestXmin,
										TransactionId *xid_cutoff,
										MultiXactId *multi_cutoff,
										double *num_tuples,
										double *tups_vacuumed,
										double *tups_recently_dead);
extern void storage_am_vacuum(const StorageAm *am, Relation rel,
							  struct VacuumParams *params,
							  BufferAccessStrategy bstrategy);
extern void storage_am_estimate_size(const StorageAm *am, Relation rel,
									 int32 *attr_widths, BlockNumber *pages,
									 double *tuples, double *allvisfrac);

/*
 * The common start of a table-AM scan: writes this transaction's buffered
 * rows of rel (so the scan sees them) and fills the TableScanDesc fields.
 */
extern void storage_am_scan_init(TableScanDesc scan, Relation rel,
								 Snapshot snapshot, int nkeys,
								 struct ScanKeyData *key,
								 ParallelTableScanDesc pscan, uint32 flags);

/* DROP of a relation: forgets its buffered rows and metadata. */
extern void storage_am_relation_dropped(const StorageAm *am, Relation rel);

/*
 * ANALYZE samples blocks of the relation's physical size.  Sampled block b
 * of nblocks stands for the units (chunk groups, batches) at the same
 * relative position, [b * U / nblocks, (b + 1) * U / nblocks) of the U
 * units, into [*first, *end): every row is equally likely to be in the
 * sample and live rows per sampled block still estimates the total, with
 * more units than blocks (compressed small tables) or fewer.
 */
extern void storage_am_analyze_units(BlockNumber block, BlockNumber nblocks,
									 int64 nunits, int64 *first, int64 *end);

#endif							/* STORAGE_ENGINE_STORAGE_AM_H */
