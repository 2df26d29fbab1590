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
#include "tcop/utility.h"

#include "format/pending_writes.h"

/* A stripe or batch, as the shared code sees it. */
typedef struct StreamInfo
{
	uint64		stream_num;
	uint64		first_block;
	uint64		data_length;
	uint64		row_count;
	uint64		first_row_number;
	uint64		last_row_number;
	RowRun	   *runs;
	int			nruns;
} StreamInfo;

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
	/* optional: the writer keeps the order rows come in (CLUSTER) */
	void		(*keep_insert_order) (void *writer);
	/* removes every metadata row of a storage id */
	void		(*delete_metadata) (uint64 storage_id);
	/* visible rows of the relation under snapshot */
	uint64		(*count_rows) (Relation rel, Snapshot snapshot);

	/*
	 * Fetching rows by row number (storage_am_rows.c).  A fetcher is what
	 * a snapshot sees (the streams, where their rows are), shared by the
	 * transaction's fetches with that snapshot; a cursor over it, made in
	 * CurrentMemoryContext, decodes.  fetch stores a row with all columns
	 * into slot, valid until the cursor's next fetch; false when no stream
	 * the fetcher sees holds the row, or the row is this transaction's and
	 * the snapshot's command may not see it (then *later_own, when given,
	 * is set).  With slot NULL it only says whether the row is there.
	 * Deletes are not its business.
	 */
	void	   *(*fetch_begin) (Relation rel, Snapshot snapshot);
	void	   *(*fetch_cursor) (void *fetcher);
	bool		(*fetch) (void *cursor, uint64 rownum, TupleTableSlot *slot,
						  bool *later_own);
	/*
	 * optional: fetch only these attribute numbers (none when NULL), the
	 * others NULL; a cursor it is never called for fetches every column
	 */
	void		(*fetch_cursor_columns) (void *cursor, const Bitmapset *columns);
	void		(*fetch_cursor_end) (void *cursor);
	void		(*fetch_end) (void *fetcher);
	/*
	 * Rewriting streams (storage_repack.c): the streams snapshot sees, as
	 * StreamInfo; every row snapshot sees in the streams numbered nums[n]
	 * (ascending), handed to emit; and removing one stream's metadata.
	 */
	List	   *(*list_streams) (uint64 storage_id, Snapshot snapshot);
	void		(*copy_streams) (Relation rel, Snapshot snapshot,
								 const uint64 *nums, int n,
								 void (*emit) (TupleTableSlot *slot, void *arg),
								 void *arg);
	void		(*delete_stream) (uint64 storage_id, uint64 stream_num);
	/* the rows a full stream of rel holds (its stripe or batch option) */
	uint64		(*stream_row_limit) (Relation rel);
} StorageAm;

/*
 * The head of both access methods' scan descriptors: what the shared row
 * access code (storage_am_rows.c) keeps per scan.
 */
typedef struct StorageScanDescData
{
	TableScanDescData rs;
	struct StorageBitmap *bitmap;	/* bitmap heap scans; NULL until used */
} StorageScanDescData;

/* What kinds of index a table has, where they change how rows are kept. */
typedef struct StorageIndexKinds
{
	bool		unique;
	bool		exclusion;
	bool		brin;
} StorageIndexKinds;

extern StorageIndexKinds storage_index_kinds(Relation rel);
extern bool statement_may_build_index(Node *parsetree);

/*
 * Told by the utility hook of every utility statement before it runs: a
 * VACUUM FULL or CLUSTER may mark its copy as what older snapshots saw only
 * when it is the whole of its transaction (storage_am_copy_for_cluster).
 */
extern void storage_am_utility_starts(Node *parsetree,
									  ProcessUtilityContext context);

/* Releases what storage_am_rows.c keeps in a scan; call before freeing it. */
extern void storage_scan_end_rows(TableScanDesc scan);

/*
 * Full-page-image WAL cannot be decoded logically: a published table would
 * silently drop its rows from the change stream, so writes are refused.
 */
extern void storage_am_refuse_if_published(const StorageAm *am, Relation rel);

/*
 * The storage lifecycle's table-AM callbacks, the same for both access
 * methods (each finds its StorageAm through storage_am_for).
 */
extern void storage_am_set_new_storage(Relation rel,
									   const CompatRelFileLocator *newlocator,
									   char persistence,
									   TransactionId *freezeXid,
									   MultiXactId *minmulti);
/*
 * table_finish_bulk_insert: writes the buffered rows of a table rewrite's
 * transient table, which must reach storage before the swap.
 */
extern void storage_am_finish_bulk_insert(Relation rel, int options);
/* Wide values are compressed inside the stripes or batches: no TOAST. */
extern bool storage_am_needs_toast_table(Relation rel);
extern Oid	storage_am_toast_am(Relation rel);

extern void storage_am_nontransactional_truncate(Relation rel);
extern void storage_am_copy_data(Relation rel,
								 const CompatRelFileLocator *newlocator);
extern void storage_am_copy_for_cluster(Relation OldTable, Relation NewTable,
										Relation OldIndex, bool use_sort,
										TransactionId OldestXmin,
										TransactionId *xid_cutoff,
										MultiXactId *multi_cutoff,
										double *num_tuples,
										double *tups_vacuumed,
										double *tups_recently_dead);
/*
 * Writes a stripe or batch of storage storage_id: into free blocks when a
 * free extent fits (catalog/free_space.h), else at the end.
 */
extern uint64 storage_am_write_stream(Relation rel, uint64 storage_id,
									  const char *data, uint64 len,
									  uint64 *stream_num);

/* Rows of stream s that snapshot sees deleted. */
extern uint64 storage_stream_deleted_rows(uint64 storage_id,
										  const StreamInfo *s,
										  Snapshot snapshot);

/*
 * Deletes the stream's metadata and records it as retired, for VACUUM to
 * free once no snapshot reads it (catalog/free_space.h).
 */
extern void storage_retire_stream(const StorageAm *am, uint64 storage_id,
								  const StreamInfo *s);

/*
 * Writes the rows a fresh snapshot sees of every stream numbered from
 * *from_stream up to below_stream whose deleted rows reach
 * deleted_fraction of its rows (every such stream when deleted_fraction <
 * 0) into new streams, adds their index entries, and retires the old
 * streams (catalog/free_space.h), in the current transaction.  With
 * max_bytes 0 it takes all of them, and also every stream holding fewer
 * rows than the fullest of those, to fill new streams together; otherwise
 * only the first ones whose stored bytes add up to at most max_bytes (at
 * least one), and *from_stream is moved past the streams it has decided
 * on, for the next call to go on from.  The caller holds
 * ShareUpdateExclusiveLock and the rewrite lock.  Returns how many streams
 * it rewrote.
 */
extern int	storage_rewrite_streams(const StorageAm *am, Relation rel,
									double deleted_fraction,
									uint64 *from_stream, uint64 below_stream,
									uint64 max_bytes);

/*
 * VACUUM's rewrite: the streams whose deleted rows reach deleted_fraction,
 * as storage_rewrite_streams with no limit, and the small streams (under a
 * quarter of a full one) when there are at least two, so that rows written
 * a few at a time (single-row INSERTs and UPDATEs each write a stream)
 * come to fill full ones.  deleted_fraction 1 (the GUC's "off") merges
 * nothing.  Returns how many streams it rewrote.
 */
extern int	storage_vacuum_rewrite_streams(const StorageAm *am, Relation rel,
										   double deleted_fraction);

/*
 * Moves the streams at the end of the relation into free extents before
 * them (rewriting them as storage_rewrite_streams does), so that a later
 * VACUUM can truncate the end.  Same locks.  Returns how many it moved.
 */
extern int	storage_compact_streams(const StorageAm *am, Relation rel);

/*
 * Frees the retired streams no snapshot reads, removes index entries of
 * rows gone for every snapshot and, when no one else uses the table, frees
 * the blocks aborted writers left and truncates a free end of the relation.
 */
extern void storage_vacuum_reclaim(const StorageAm *am, Relation rel,
								   double tuples,
								   BufferAccessStrategy bstrategy);

extern void storage_am_vacuum(Relation rel, struct VacuumParams *params,
							  BufferAccessStrategy bstrategy);
extern void storage_am_estimate_size(Relation rel, int32 *attr_widths,
									 BlockNumber *pages, double *tuples,
									 double *allvisfrac);

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

/*
 * ---- Rows by TID (storage_am_rows.c) ----
 *
 * Table-AM callbacks both access methods share: index scans, fetching,
 * locking, deleting and updating rows by TID, index builds and bitmap
 * scans.  Row data comes from the access method's fetcher (StorageAm),
 * deletes and locks from row marks (catalog/row_marks.h).
 */

/* The record of rel's access method if it is one of ours, else NULL. */
extern const StorageAm *storage_am_for(Relation rel);

extern void storage_rows_init(void);

/*
 * Write buffers call this for every row-number reservation: in a table
 * with a unique index it is recorded for other sessions' unique checks.
 */
extern void storage_rows_reserved(Relation rel, uint64 first, uint64 count);

extern struct IndexFetchTableData *storage_index_fetch_begin(Relation rel);
extern void storage_index_fetch_reset(struct IndexFetchTableData *scan);
extern void storage_index_fetch_end(struct IndexFetchTableData *scan);
extern bool storage_index_fetch_tuple(struct IndexFetchTableData *scan,
									  ItemPointer tid, Snapshot snapshot,
									  TupleTableSlot *slot, bool *call_again,
									  bool *all_dead);
extern bool storage_tuple_fetch_row_version(Relation rel, ItemPointer tid,
											Snapshot snapshot,
											TupleTableSlot *slot);
extern bool storage_tuple_tid_valid(TableScanDesc scan, ItemPointer tid);

/*
 * The transaction that wrote row tid of rel to storage (the one that
 * inserted it, or the rewrite that last moved it), or the current one for
 * a row it still buffers; false when no stream holds the row.
 */
extern bool storage_row_writer(Relation rel, ItemPointer tid,
							   TransactionId *writer);
extern void storage_tuple_get_latest_tid(TableScanDesc scan, ItemPointer tid);
extern bool storage_tuple_satisfies_snapshot(Relation rel, TupleTableSlot *slot,
											 Snapshot snapshot);
extern TransactionId storage_index_delete_tuples(Relation rel,
												 TM_IndexDeleteOp *delstate);
extern void storage_tuple_insert(Relation rel, TupleTableSlot *slot,
								 CommandId cid, int options,
								 struct BulkInsertStateData *bistate);
extern void storage_multi_insert(Relation rel, TupleTableSlot **slots,
								 int nslots, CommandId cid, int options,
								 struct BulkInsertStateData *bistate);
extern void storage_tuple_insert_speculative(Relation rel, TupleTableSlot *slot,
											 CommandId cid, int options,
											 struct BulkInsertStateData *bistate,
											 uint32 specToken);
extern void storage_tuple_complete_speculative(Relation rel,
											   TupleTableSlot *slot,
											   uint32 specToken,
											   bool succeeded);
extern TM_Result storage_tuple_delete(Relation rel, ItemPointer tid,
									  CommandId cid, Snapshot snapshot,
									  Snapshot crosscheck, bool wait,
									  TM_FailureData *tmfd, bool changingPart);
extern TM_Result storage_tuple_update(Relation rel, ItemPointer otid,
									  TupleTableSlot *slot, CommandId cid,
									  Snapshot snapshot, Snapshot crosscheck,
									  bool wait, TM_FailureData *tmfd,
									  LockTupleMode *lockmode,
									  TU_UpdateIndexes *update_indexes);
extern TM_Result storage_tuple_lock(Relation rel, ItemPointer tid,
									Snapshot snapshot, TupleTableSlot *slot,
									CommandId cid, LockTupleMode mode,
									LockWaitPolicy wait_policy, uint8 flags,
									TM_FailureData *tmfd);
extern double storage_index_build_range_scan(Relation table_rel,
											 Relation index_rel,
											 struct IndexInfo *index_info,
											 bool allow_sync, bool anyvisible,
											 bool progress,
											 BlockNumber start_blockno,
											 BlockNumber numblocks,
											 IndexBuildCallback callback,
											 void *callback_state,
											 TableScanDesc scan);
extern void storage_index_validate_scan(Relation table_rel, Relation index_rel,
										struct IndexInfo *index_info,
										Snapshot snapshot,
										struct ValidateIndexState *state);
#ifdef COMPAT_TAM_BITMAP_ITERATES
extern bool storage_scan_bitmap_next_tuple(TableScanDesc scan,
										   TupleTableSlot *slot, bool *recheck,
										   uint64 *lossy_pages,
										   uint64 *exact_pages);
#else
extern bool storage_scan_bitmap_next_block(TableScanDesc scan,
										   struct TBMIterateResult *tbmres);
extern bool storage_scan_bitmap_next_tuple(TableScanDesc scan,
										   struct TBMIterateResult *tbmres,
										   TupleTableSlot *slot);
#endif

extern bool storage_scan_sample_next_block(TableScanDesc scan,
										   struct SampleScanState *scanstate);
extern bool storage_scan_sample_next_tuple(TableScanDesc scan,
										   struct SampleScanState *scanstate,
										   TupleTableSlot *slot);
extern void storage_scan_sample_restart(TableScanDesc scan);

/*
 * Adds the attribute numbers the expressions of scan relation relid read
 * to *columns (a List of ints); false for a whole-row reference, which
 * needs every column.  System columns come from the slot's TID and table
 * OID, not from decoding.
 */
extern bool storage_columns_read(Node *exprs, Index relid, List **columns);

/* Attribute numbers as the set storage_scan_bitmap_columns takes. */
extern Bitmapset *storage_column_set(List *attnums);

/*
 * Has a bitmap scan of a colcompress table decode only columns (attribute
 * numbers), and recheck_columns too for rows the executor rechecks; the
 * others are NULL in the slot (scan/fetch_columns.c).
 */
extern void storage_scan_bitmap_columns(TableScanDesc scan,
										const Bitmapset *columns,
										const Bitmapset *recheck_columns);

/* The same for an index scan's fetches by TID: only columns, or none. */
extern void storage_index_fetch_columns(struct IndexFetchTableData *scan,
										const Bitmapset *columns);

/*
 * Index entries for rows a rewrite writes with new row numbers (merge),
 * in every index of rel, without unique checks (the rows were checked).
 */
typedef struct StorageIndexInserter StorageIndexInserter;
extern StorageIndexInserter *storage_index_inserter_begin(Relation rel);
extern void storage_index_inserter_add(StorageIndexInserter *ins,
									   TupleTableSlot *slot);
extern void storage_index_inserter_end(StorageIndexInserter *ins);

/*
 * DELETE, UPDATE and row locks hold rel's DML lock in a shared mode to the
 * end of the transaction; a rewrite that gives rows new row numbers while
 * writers run (colcompress_merge) takes it exclusively, so that no delete,
 * update or lock is left behind on a row number the rewrite retires.
 */
extern void storage_lock_for_dml(Relation rel);
extern void storage_lock_for_rewrite(Relation rel);
/* The rewrite lock if no DML holds the table; false otherwise. */
extern bool storage_try_lock_for_rewrite(Relation rel);
/* Gives the rewrite lock back before the end of the transaction. */
extern void storage_unlock_for_rewrite(Relation rel);

/*
 * Row numbers among [first, last] that snapshot sees deleted, for scans
 * (see row_mark_deleted_rows); NULL when none.
 */
extern uint64 *storage_deleted_rows(uint64 storage_id, uint64 first, uint64 last,
									Snapshot snapshot, int *n);

#endif							/* STORAGE_ENGINE_STORAGE_AM_H */
