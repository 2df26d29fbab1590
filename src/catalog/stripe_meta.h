/*-------------------------------------------------------------------------
 *
 * stripe_meta.h
 *	  colcompress metadata: stripes, chunk groups and column chunks, in
 *	  tables engine.stripe, engine.chunk_group and engine.chunk.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_STRIPE_META_H
#define STORAGE_ENGINE_STRIPE_META_H

#include "nodes/pg_list.h"
#include "storage/itemptr.h"
#include "utils/snapshot.h"

#include "catalog/meta_tables.h"
#include "format/row_runs.h"

typedef struct StripeMeta
{
	uint64		storage_id;
	uint64		stripe_num;
	uint64		first_block;
	uint64		data_length;
	uint64		row_count;
	uint64		first_row_number;
	uint64		last_row_number;
	int			nruns;
	RowRun	   *runs;
	int			ncids;
	CidRun	   *cids;
	int			chunk_group_count;
	int			chunk_group_row_limit;
	int			column_count;
	MetaZoneMap zone;			/* per column, [column_count] */
	/* per column: its dictionary's offset in the stripe, or STRIPE_NO_DICT */
	uint64	   *attr_dict_offset;
	char	   *sorted_by;		/* orderby the rows are sorted by, or NULL */
	bool		written_by_me;	/* by the current transaction */

	/*
	 * A listed stripe (stripe_meta_list) has its columns' arrays above,
	 * zone and attr_dict_offset, decoded only when stripe_meta_columns
	 * asks for them, from its metadata row (meta_tid) as the snapshot it
	 * was listed with sees it, and freed by stripe_meta_release_columns: a
	 * scan keeps every stripe of the table, and those arrays are most of a
	 * stripe's metadata on a wide table (8 kB a stripe of 100 columns).
	 */
	bool		columns_loaded;
	void	   *zone_block;		/* the allocation of zone's arrays, or NULL */
	ItemPointerData meta_tid;
	Snapshot	snapshot;
} StripeMeta;

#define STRIPE_NO_DICT	PG_UINT64_MAX

typedef struct ChunkMeta
{
	int16		codec;
	int16		encoding;		/* CHUNK_ENCODING_*, codec/value_encoding.h */
	uint64		stored_offset;
	uint32		stored_length;
	uint32		raw_length;
	uint32		value_count;
	uint32		null_count;
	uint32		checksum;
	bytea	   *min_value;		/* NULL when absent */
	bytea	   *max_value;
} ChunkMeta;

/*
 * The stripes of a storage that snapshot sees, ordered by stripe number,
 * without their columns' arrays; snapshot must stay valid while they are
 * used.
 */
extern List *stripe_meta_list(uint64 storage_id, Snapshot snapshot);

/*
 * Makes a listed stripe's columns' arrays present; false when its snapshot,
 * not an MVCC one, no longer sees it.
 */
extern bool stripe_meta_columns(StripeMeta *stripe);

/* Frees what stripe_meta_columns decoded (nothing when it did not). */
extern void stripe_meta_release_columns(StripeMeta *stripe);

/*
 * Stripe stripe_num of the storage, as snapshot sees it, or NULL; the TID of its
 * metadata row in *tid when tid is not NULL.
 */
extern StripeMeta *stripe_meta_get(uint64 storage_id, uint64 stripe_num,
								   Snapshot snapshot, ItemPointer tid);

/* The same, from the metadata row at tid (meta_fetch_stream). */
extern StripeMeta *stripe_meta_fetch(uint64 storage_id, uint64 stripe_num,
									 Snapshot snapshot, ItemPointer tid);

/*
 * Chunk metadata of a stripe, as an array indexed
 * [chunk_group * column_count + attr_index]; chunk group row counts into
 * group_rows[chunk_group_count].
 */
extern ChunkMeta *stripe_meta_chunks(const StripeMeta *stripe,
									 Snapshot snapshot, uint32 *group_rows);

/*
 * The chunks of one chunk group, [column_count], without their zone bounds
 * (min_value and max_value NULL), kept for the backend's next fetches from
 * the group (catalog/chunk_cache.c).  NULL when a snapshot that is not MVCC
 * no longer sees the stripe (see read_chunks).
 */
extern ChunkMeta *stripe_meta_group_chunks(const StripeMeta *stripe,
										   Snapshot snapshot, int group);

extern void stripe_meta_insert(const StripeMeta *stripe,
							   const uint32 *group_rows,
							   const ChunkMeta *chunks);

/* Removes the metadata rows of one stripe (merge). */
extern void stripe_meta_delete_stripe(uint64 storage_id, uint64 stripe_num);

/* Removes every metadata row of a storage (DROP, TRUNCATE). */
extern void stripe_meta_delete_storage(uint64 storage_id);

/* Rows of the stripe the given command may see (a prefix of the stripe). */
extern uint64 stripe_visible_rows(const StripeMeta *stripe, Snapshot snapshot);

#endif							/* STORAGE_ENGINE_STRIPE_META_H */
