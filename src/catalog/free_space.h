/*-------------------------------------------------------------------------
 *
 * free_space.h
 *	  Retired streams and free extents of a storage (engine.retired_stream,
 *	  engine.free_extent).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_FREE_SPACE_H
#define STORAGE_ENGINE_FREE_SPACE_H

#include "nodes/pg_list.h"

#include "format/row_runs.h"

typedef struct RetiredStream
{
	uint64		stream_num;
	uint64		first_block;
	uint64		block_count;
	uint64		first_row_number;
	uint64		last_row_number;
	RowRun	   *runs;
	int			nruns;
	TransactionId retired_by;	/* the rewrite that retired it (reclaimed) */
} RetiredStream;

/*
 * Records, in the current transaction, that a rewrite replaced the stream
 * (whose metadata the caller deletes in the same transaction).
 */
extern void free_space_retire(uint64 storage_id, const RetiredStream *stream);

/* The streams committed rewrites retired (RetiredStream *). */
extern List *free_space_retired(uint64 storage_id);

/*
 * VACUUM: the retired streams that no snapshot can see any more (retired
 * by transactions before oldest_xmin) become free extents, in the current
 * transaction.  Returns them (RetiredStream *), for index and mark cleanup.
 */
extern List *free_space_reclaim(uint64 storage_id, TransactionId oldest_xmin);

/* Were the retirements still recorded all made before horizon? */
extern bool free_space_retired_settled(uint64 storage_id,
									   TransactionId horizon);

/*
 * A writer takes a free extent of at least nblocks (the rest stays free),
 * skipping extents another transaction is taking; false when none fits.
 */
extern bool free_space_take(uint64 storage_id, uint64 nblocks,
							uint64 *first_block);

/*
 * Records blocks [first, first + count) as free (the caller knows nothing
 * else holds them), joining adjacent extents.
 */
extern void free_space_add(uint64 storage_id, uint64 first, uint64 count);

/* The free extents, in block order: first[i], count[i] for i < *n. */
extern void free_space_extents(uint64 storage_id, uint64 **first,
							   uint64 **count, int *n);

/*
 * The first block from which every block up to nblocks is free (nblocks
 * when the last one is not).  The caller holds AccessExclusiveLock.
 */
extern uint64 free_space_free_tail(uint64 storage_id, uint64 nblocks);

/* DROP, TRUNCATE and rewrites: forgets the storage's rows. */
extern void free_space_delete_storage(uint64 storage_id);

#endif							/* STORAGE_ENGINE_FREE_SPACE_H */
