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

static void
ensure_reservation(RowRunBuilder *b, Relation rel)
{
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
		if (b->on_reserve)
			b->on_reserve(rel, b->reserved_next, n);
	}
}

uint64
row_runs_peek(RowRunBuilder *b, Relation rel)
{
	ensure_reservation(b, rel);
	return b->reserved_next;
}

uint64
row_runs_add(RowRunBuilder *b, Relation rel, CommandId cid)
{
	uint64		rownum;

	ensure_reservation(b, rel);
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

static const StreamLookupEntry *sort_streams;

static int
cmp_first(const void *a, const void *b)
{
	uint64		fa = sort_streams[*(const int *) a].first;
	uint64		fb = sort_streams[*(const int *) b].first;

	return fa < fb ? -1 : fa > fb ? 1 : 0;
}

StreamLookup *
row_runs_lookup_build(const StreamLookupEntry *streams, int n)
{
	StreamLookup *l = palloc(sizeof(StreamLookup));
	int			i;

	l->n = n;
	l->streams = streams;
	l->order = palloc(sizeof(int) * Max(n, 1));
	l->max_last = palloc(sizeof(uint64) * Max(n, 1));
	for (i = 0; i < n; i++)
		l->order[i] = i;
	sort_streams = streams;
	qsort(l->order, n, sizeof(int), cmp_first);
	for (i = 0; i < n; i++)
	{
		uint64		last = streams[l->order[i]].last;

		l->max_last[i] = i == 0 ? last : Max(last, l->max_last[i - 1]);
	}
	return l;
}

int
row_runs_lookup(const StreamLookup *l, uint64 rownum, uint64 *pos)
{
	int			lo = 0;
	int			hi = l->n;
	int			i;

	/* the last stream whose first row number is <= rownum */
	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (l->streams[l->order[mid]].first <= rownum)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* walk back over streams whose ranges may still reach rownum */
	for (i = lo - 1; i >= 0 && l->max_last[i] >= rownum; i--)
	{
		const StreamLookupEntry *s = &l->streams[l->order[i]];

		if (rownum <= s->last && row_runs_find(s->runs, s->nruns, rownum, pos))
			return l->order[i];
	}
	return -1;
}
