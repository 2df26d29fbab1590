/*-------------------------------------------------------------------------
 *
 * batch_meta.h
 *	  rowcompress metadata: one row per batch in table engine.batch.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_BATCH_META_H
#define STORAGE_ENGINE_BATCH_META_H

#include "nodes/pg_list.h"
#include "utils/snapshot.h"

#include "catalog/meta_tables.h"
#include "format/row_runs.h"


typedef struct BatchMeta
{
	uint64		storage_id;
	uint64		batch_num;
	uint64		first_block;
	uint64		data_length;	/* stored bytes: frames, then dictionary */
	uint64		raw_length;		/* bytes after decompression */
	uint64		row_count;
	uint64		first_row_number;
	uint64		last_row_number;
	int			nruns;
	RowRun	   *runs;
	int			ncids;
	CidRun	   *cids;
	int			column_count;	/* attributes of the rows */
	int16		codec;
	uint32		checksum;		/* CRC-32C of the stored bytes */
	/*
	 * zone map, per column [column_count]; read by batch_meta_zone_map from
	 * the metadata row (meta_tid) as the snapshot the batch was read with
	 * sees it, and freed by batch_meta_release_zone_map: a scan keeps every
	 * batch of the table, and a table of many columns has large zone maps
	 */
	bool		zone_parsed;
	MetaZoneMap zone;
	void	   *zone_block;		/* the allocation of zone's arrays, or NULL */
	ItemPointerData meta_tid;
	Snapshot	snapshot;		/* must stay valid while the batch is used */
	/* where the stream's dictionary starts, or BATCH_NO_DICT */
	uint64		dict_offset;
	bool		written_by_me;	/* by the current transaction */
} BatchMeta;

#define BATCH_NO_DICT	PG_UINT64_MAX

/* Bytes of the batch's framed unit, at the start of its stream. */
static inline uint64
batch_unit_length(const BatchMeta *b)
{
	return b->dict_offset == BATCH_NO_DICT ? b->data_length : b->dict_offset;
}

/*
 * Fills the batch's zone map fields from its metadata row (once); false
 * when its snapshot, not an MVCC one, no longer sees the batch.
 */
extern bool batch_meta_zone_map(BatchMeta *b);

/* Frees what batch_meta_zone_map read (nothing when it did not). */
extern void batch_meta_release_zone_map(BatchMeta *b);

/* The batches of a storage that snapshot sees, ordered by batch number. */
extern List *batch_meta_list(uint64 storage_id, Snapshot snapshot);

/*
 * Batch batch_num of the storage, as snapshot sees it, or NULL; the TID of its
 * metadata row in *tid when tid is not NULL.
 */
extern BatchMeta *batch_meta_get(uint64 storage_id, uint64 batch_num,
								 Snapshot snapshot, ItemPointer tid);

/* The same, from the metadata row at tid (meta_fetch_stream). */
extern BatchMeta *batch_meta_fetch(uint64 storage_id, uint64 batch_num,
								   Snapshot snapshot, ItemPointer tid);

extern void batch_meta_insert(const BatchMeta *batch);

/* Removes one batch's row (a rewrite replaced it). */
extern void batch_meta_delete_batch(uint64 storage_id, uint64 batch_num);

/* Removes every metadata row of a storage (DROP, TRUNCATE). */
extern void batch_meta_delete_storage(uint64 storage_id);

/* Rows of the batch the given snapshot may see (a prefix of the batch). */
extern uint64 batch_visible_rows(const BatchMeta *batch, Snapshot snapshot);

#endif							/* STORAGE_ENGINE_BATCH_META_H */
