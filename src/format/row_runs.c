/*-------------------------------------------------------------------------
 *
 * row_runs.c
 *	  Row-number runs and command-id runs of a stream (see row_runs.h).
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "format/row_number.h"
#include "format/row_runs.h"
#include "format/storage.h"

/* First row-number reservation of a writer; later ones double. */
#define FIRST_ROW_RESERVATION 64

void
row_runs_init(RowRunBuilder *b, MemoryContext cxt, uint64 reservation_limit)
{
	memset(b, 0, sizeof(RowRunBuilder));
	b->cxt = cxt;
	b->reservation_limit = Max(reservation_limit, 1);
	b->reservation_size = Min(FIRST_ROW_RESERVATION, b->reservation_limit);
}

static void *
grow(MemoryContext cxt, void *array, int *max, Size elem, int first)
{
	*max = *max == 0 ? first : *max * 2;
	if (array == NULL)
		return MemoryContextAlloc(cxt, elem * *max);
	return repalloc(array, elem * *max);
}

uint64
row_runs_add(RowRunBuilder *b, Relation rel, CommandId cid)
{
	uint64		rownum;

	if (b->reserved_next == b->reserved_end)
	{
		uint64		n = b->reservation_size;

		b->reserved_next = storage_reserve_rows(rel, n);
		b->reserved_end = b->reserved_next + n;
		if (b->reserved_end > MAX_ROW_NUMBER)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("table \"%s\" has used up its row numbers",
							RelationGetRelationName(rel)),
					 errhint("Rewrite the table with VACUUM FULL.")));
		b->reservation_size = Min(n * 2, b->reservation_limit);
	}
	rownum = b->reserved_next++;

	if (b->nruns > 0 &&
		b->runs[b->nruns - 1].first + b->runs[b->nruns - 1].count == rownum)
		b->runs[b->nruns - 1].count++;
	else
	{
		if (b->nruns == b->maxruns)
			b->runs = grow(b->cxt, b->runs, &b->maxruns, sizeof(RowRun), 8);
		b->runs[b->nruns].first = rownum;
		b->runs[b->nruns].count = 1;
		b->nruns++;
	}

	b->nrows++;
	if (b->ncids > 0 && b->cids[b->ncids - 1].cid == cid)
		b->cids[b->ncids - 1].rows_end = b->nrows;
	else
	{
		if (b->ncids == b->maxcids)
			b->cids = grow(b->cxt, b->cids, &b->maxcids, sizeof(CidRun), 4);
		b->cids[b->ncids].cid = cid;
		b->cids[b->ncids].rows_end = b->nrows;
		b->ncids++;
	}
	return rownum;
}

void
row_runs_reset(RowRunBuilder *b)
{
	b->nrows = 0;
	b->nruns = b->maxruns = 0;
	b->runs = NULL;
	b->ncids = b->maxcids = 0;
	b->cids = NULL;
}

void
row_runs_bounds(const RowRun *runs, int nruns, uint64 *first, uint64 *last)
{
	int			i;

	*first = runs[0].first;
	*last = runs[0].first + runs[0].count - 1;
	for (i = 1; i < nruns; i++)
	{
		*first = Min(*first, runs[i].first);
		*last = Max(*last, runs[i].first + runs[i].count - 1);
	}
}

bool
row_runs_find(const RowRun *runs, int nruns, uint64 rownum, uint64 *index)
{
	uint64		pos = 0;
	int			i;

	for (i = 0; i < nruns; i++)
	{
		if (rownum >= runs[i].first && rownum - runs[i].first < runs[i].count)
		{
			*index = pos + (rownum - runs[i].first);
			return true;
		}
		pos += runs[i].count;
	}
	return false;
}

uint64
row_runs_nth(const RowRun *runs, int nruns, uint64 index)
{
	int			i;

	for (i = 0; i < nruns; i++)
	{
		if (index < runs[i].count)
			return runs[i].first + index;
		index -= runs[i].count;
	}
	elog(ERROR, "row position beyond the stream's row runs");
	return 0;					/* keep compiler quiet */
}

uint64
row_runs_visible(const CidRun *cids, int ncids, uint64 row_count,
				 bool written_by_me, Snapshot snapshot)
{
	uint64		visible = 0;
	int			i;

	/*
	 * Another transaction's stream is all or nothing, decided by the
	 * metadata row's visibility.  Our own stream may hold rows of several
	 * commands, oldest first: an MVCC snapshot sees those of earlier
	 * commands.
	 */
	if (!written_by_me || snapshot == NULL || !IsMVCCSnapshot(snapshot))
		return row_count;
	for (i = 0; i < ncids; i++)
	{
		if (cids[i].cid >= snapshot->curcid)
			break;
		visible = cids[i].rows_end;
	}
	return Min(visible, row_count);
}
