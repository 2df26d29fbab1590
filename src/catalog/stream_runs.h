/*-------------------------------------------------------------------------
 *
 * stream_runs.h
 *	  engine.row_run: which stream holds each run of row numbers, so that a
 *	  fetch by TID finds its stream through an index.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_STREAM_RUNS_H
#define STORAGE_ENGINE_STREAM_RUNS_H

#include "nodes/pg_list.h"
#include "storage/itemptr.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "format/row_runs.h"

/* Records the runs of a stream being written (with its metadata row). */
extern void stream_runs_insert(uint64 storage_id, uint64 stream_num,
							   const RowRun *runs, int nruns);

/* A row of engine.row_run. */
typedef struct StreamRun
{
	uint64		stream_num;
	RowRun		run;
} StreamRun;

/*
 * Every run of the storage that snapshot sees, by first row number, in a
 * palloc'd array; *n gets their number.
 */
extern StreamRun *stream_runs_read(uint64 storage_id, Snapshot snapshot,
								   int *n);

/* Deletes the runs of a stream, or of every stream when stream_num < 0. */
extern void stream_runs_delete(uint64 storage_id, int64 stream_num);

/*
 * Were the runs the latest snapshot sees (the streams it sees) all written
 * by transactions before horizon?
 */
extern bool stream_runs_settled(uint64 storage_id, TransactionId horizon);

/*
 * The stream holding rownum among those snapshot sees, in *stream_num;
 * false when none does.  *writer, when asked, is the transaction that
 * wrote the stream (its metadata rows).
 */
extern bool stream_runs_find(uint64 storage_id, uint64 rownum,
							 Snapshot snapshot, uint64 *stream_num,
							 TransactionId *writer);

/*
 * The streams a fetch by TID has met: found one by one through
 * engine.row_run and read alone, until more than
 * STREAM_FINDER_LOOKUPS_BEFORE_LIST were, then all of them (a bitmap scan
 * of many rows reads the list once rather than look up stream after
 * stream).  Streams keep their index in streams[] for the finder's life.
 * Memory: cxt, which holds the streams.
 */
#define STREAM_FINDER_LOOKUPS_BEFORE_LIST	64

typedef struct StreamFinderOps
{
	/*
	 * the stream num of the storage that snapshot sees, or NULL; the TID of
	 * its metadata row in *tid
	 */
	void	   *(*get) (uint64 storage_id, uint64 num, Snapshot snapshot,
						ItemPointer tid);
	/* the same read from the metadata row at tid, or NULL (stream_hints.h) */
	void	   *(*fetch) (uint64 storage_id, uint64 num, Snapshot snapshot,
						  ItemPointer tid);
	/* every stream of the storage that snapshot sees */
	List	   *(*list) (uint64 storage_id, Snapshot snapshot);
	/* a stream's number and row numbers */
	void		(*describe) (const void *stream, uint64 *num,
							 StreamLookupEntry *entry);
	const char *kind;			/* "stripe", "batch": for errors */
	const char *verify_function;	/* for their hint */
} StreamFinderOps;

typedef struct StreamFinder
{
	const StreamFinderOps *ops;
	Relation	rel;
	uint64		storage_id;
	Snapshot	snapshot;
	MemoryContext cxt;
	int			n;
	int			max;
	void	  **streams;		/* [n] */
	StreamLookupEntry *entries; /* [n], as ops->describe gives them */
	uint64	   *nums;			/* [n], their numbers */
	int			lookups;		/* streams found one by one */
	StreamLookup *lookup;		/* over all of them, once listed */
} StreamFinder;

extern void stream_finder_init(StreamFinder *f, const StreamFinderOps *ops,
							   Relation rel, uint64 storage_id,
							   Snapshot snapshot, MemoryContext cxt);

/* Gives f every stream the snapshot sees, already read (in that order). */
extern void stream_finder_known(StreamFinder *f, List *streams);

/*
 * Index into f->streams of the stream holding rownum, with the row's
 * position in it in *pos; -1 when no stream the snapshot sees holds it.
 */
extern int	stream_finder_find(StreamFinder *f, uint64 rownum, uint64 *pos);

#endif							/* STORAGE_ENGINE_STREAM_RUNS_H */
