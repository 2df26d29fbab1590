/*-------------------------------------------------------------------------
 *
 * row_runs.h
 *	  Which row numbers a stream (a stripe or a batch) holds, and which of
 *	  its rows each command of the writing transaction inserted.
 *
 *	  A stream's rows are stored in insertion order.  Their row numbers
 *	  come from reservations in the metapage (storage.c), so they form a
 *	  few runs of consecutive numbers (RowRun), interleaved with other
 *	  writers' runs.  A writer may insert rows of several commands into one
 *	  stream; CidRun records where each command's rows end, so that a
 *	  command does not see rows of its own later commands.
 *
 *	  Both access methods keep these arrays in their metadata rows; the
 *	  builder below is what their write buffers use to produce them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_ROW_RUNS_H
#define STORAGE_ENGINE_ROW_RUNS_H

#include "utils/relcache.h"
#include "utils/snapshot.h"

/* A run of consecutive row numbers inside a stream, in row order. */
typedef struct RowRun
{
	uint64		first;
	uint64		count;
} RowRun;

/* Rows [previous end, rows_end) of a stream were inserted by command cid. */
typedef struct CidRun
{
	uint64		cid;
	uint64		rows_end;
} CidRun;

/* The row numbers and command ids of the rows a write buffer holds. */
typedef struct RowRunBuilder
{
	MemoryContext cxt;			/* holds runs and cids; the owner resets it */
	uint64		nrows;
	int			nruns;
	int			maxruns;
	RowRun	   *runs;
	int			ncids;
	int			maxcids;
	CidRun	   *cids;
	/* row numbers reserved in the metapage and not used yet */
	uint64		reserved_next;
	uint64		reserved_end;
	uint64		reservation_size;	/* of the next reservation */
	uint64		reservation_limit;
	/* told of every reservation, when set */
	void		(*on_reserve) (Relation rel, uint64 first, uint64 count);
} RowRunBuilder;

/*
 * Starts an empty builder whose arrays live in cxt.  Reservations start
 * small and double up to reservation_limit (the stream's row limit), so a
 * one-row transaction costs few row numbers and a bulk load few
 * reservations.
 */
extern void row_runs_init(RowRunBuilder *b, MemoryContext cxt,
						  uint64 reservation_limit);

/* Gives the next row, inserted by command cid, its final row number. */
extern uint64 row_runs_add(RowRunBuilder *b, Relation rel, CommandId cid);

/*
 * The row number row_runs_add will give the next row (reserving numbers
 * if needed), without using it.
 */
extern uint64 row_runs_peek(RowRunBuilder *b, Relation rel);

/*
 * Forgets the rows after their stream was written (the arrays' memory
 * goes with the owner's reset of cxt).  Reserved numbers stay reserved.
 */
extern void row_runs_reset(RowRunBuilder *b);

/* Smallest and largest row number of the runs (nruns > 0). */
extern void row_runs_bounds(const RowRun *runs, int nruns,
							uint64 *first, uint64 *last);

/*
 * Position of rownum among the stream's rows, or false when the stream
 * does not hold it.
 */
extern bool row_runs_find(const RowRun *runs, int nruns, uint64 rownum,
						  uint64 *index);

/* Row number of the stream's row at position index (< its row count). */
extern uint64 row_runs_nth(const RowRun *runs, int nruns, uint64 index);

/*
 * Rows of a stream that snapshot sees: all of them for another
 * transaction's stream (its metadata row's visibility decided that), a
 * prefix of them for this transaction's own, by command id.
 */
extern uint64 row_runs_visible(const CidRun *cids, int ncids,
							   uint64 row_count, bool written_by_me,
							   Snapshot snapshot);

/*
 * Which of a relation's streams holds a row number.  Streams' row-number
 * ranges may overlap (writers interleave their reservations), so the
 * lookup sorts them by first row number and keeps the running maximum of
 * their last row numbers to know how far back a range may still reach.
 */
typedef struct StreamLookupEntry
{
	uint64		first;			/* first and last row number of the stream */
	uint64		last;
	const RowRun *runs;
	int			nruns;
} StreamLookupEntry;

typedef struct StreamLookup
{
	int			n;
	const StreamLookupEntry *streams;	/* as given, [n] */
	int		   *order;			/* stream indexes by first row number */
	uint64	   *max_last;		/* largest last among order[0..i] */
} StreamLookup;

/* Builds the lookup over streams[n] (kept by reference) in CurrentMemoryContext. */
extern StreamLookup *row_runs_lookup_build(const StreamLookupEntry *streams,
										   int n);

/*
 * Index into streams of the stream holding rownum, with the row's position
 * in that stream in *pos; -1 when none holds it.
 */
extern int	row_runs_lookup(const StreamLookup *lookup, uint64 rownum,
							uint64 *pos);

#endif							/* STORAGE_ENGINE_ROW_RUNS_H */
