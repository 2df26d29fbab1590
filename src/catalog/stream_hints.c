/*-------------------------------------------------------------------------
 *
 * stream_hints.c
 *	  Backend-local hints of which stream (colcompress stripe, rowcompress
 *	  batch) holds a row number, and where that stream's metadata row is.
 *
 *	  A fetch by row number finds its stream with two index scans of the
 *	  metadata tables (engine.row_run, then engine.stripe or engine.batch),
 *	  and every statement does it again for every stream it meets: a fifth
 *	  of a lookup of 100 rows by primary key in a rowcompress table.  With a
 *	  hint the finder (stream_runs.c) instead reads the one metadata row at
 *	  the hinted TID.
 *
 *	  A hint is never trusted, so hints need no invalidation.  The finder
 *	  uses the row at the hinted TID only when its snapshot sees it, it has
 *	  the hinted storage and stream number, and its runs hold the row
 *	  number.  Then it is the answer: at most one stream a snapshot sees
 *	  holds a row number (a merge or repack deletes the stream it rewrites
 *	  in the transaction that inserts the new one).  Otherwise (the stream
 *	  deleted, the TID reused after VACUUM, storage ids restarted by a new
 *	  extension, the row number moved to another stream) the finder looks
 *	  the row number up in the catalog and replaces the hint; a stale hint
 *	  costs one heap fetch.
 *
 *	  Layout: a hash table by storage id (unique across both access
 *	  methods: one sequence) of arrays of non-overlapping runs sorted by
 *	  first row number.  Memory: its own context under TopMemoryContext,
 *	  at most STREAM_HINTS_MAX hints in all (2 MB); when full it is emptied
 *	  whole, which is simpler than an LRU and costs one catalog lookup per
 *	  stream met again.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "catalog/stream_hints.h"

#define STREAM_HINTS_MAX	65536

typedef struct StreamHint
{
	uint64		first;			/* the run of row numbers */
	uint64		count;
	uint64		stream_num;
	ItemPointerData tid;		/* of the stream's metadata row */
} StreamHint;

typedef struct StorageHints
{
	uint64		storage_id;		/* hash key */
	int			n;
	int			max;
	StreamHint *hints;			/* [n], sorted by first, not overlapping */
} StorageHints;

static MemoryContext hints_cxt = NULL;
static HTAB *hints_by_storage = NULL;
static int	hints_total = 0;

static void
hints_create(void)
{
	HASHCTL		ctl;

	if (hints_cxt == NULL)
		hints_cxt = AllocSetContextCreate(TopMemoryContext,
										  "storage_engine stream hints",
										  ALLOCSET_DEFAULT_SIZES);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(uint64);
	ctl.entrysize = sizeof(StorageHints);
	ctl.hcxt = hints_cxt;
	hints_by_storage = hash_create("storage_engine stream hints", 64, &ctl,
								   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	hints_total = 0;
}

/* Index of the first hint of h whose run ends after rownum. */
static int
first_ending_after(const StorageHints *h, uint64 rownum)
{
	int			lo = 0;
	int			hi = h->n;

	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;
		const StreamHint *s = &h->hints[mid];

		if (s->first + s->count > rownum)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

bool
stream_hint_find(uint64 storage_id, uint64 rownum, uint64 *stream_num,
				 ItemPointer tid)
{
	StorageHints *h;
	int			i;

	if (hints_by_storage == NULL)
		return false;
	h = hash_search(hints_by_storage, &storage_id, HASH_FIND, NULL);
	if (h == NULL)
		return false;
	i = first_ending_after(h, rownum);
	if (i == h->n || h->hints[i].first > rownum)
		return false;
	*stream_num = h->hints[i].stream_num;
	*tid = h->hints[i].tid;
	return true;
}

void
stream_hint_add(uint64 storage_id, uint64 stream_num, ItemPointer tid,
				const RowRun *runs, int nruns)
{
	StorageHints *h;
	bool		found;
	int			r;

	if (hints_by_storage == NULL || hints_total + nruns > STREAM_HINTS_MAX)
	{
		if (nruns > STREAM_HINTS_MAX)
			return;
		if (hints_cxt != NULL)
			MemoryContextReset(hints_cxt);
		hints_create();
	}
	h = hash_search(hints_by_storage, &storage_id, HASH_ENTER, &found);
	if (!found)
	{
		h->n = 0;
		h->max = 0;
		h->hints = NULL;
	}
	for (r = 0; r < nruns; r++)
	{
		uint64		first = runs[r].first;
		uint64		end = first + runs[r].count;
		int			lo;
		int			hi;

		/* metadata is checked where it is used, not here */
		if (runs[r].count == 0 || end < first)
			continue;
		lo = first_ending_after(h, first);
		for (hi = lo; hi < h->n && h->hints[hi].first < end; hi++)
			;
		if (lo == hi && h->n == h->max)
		{
			h->max = Max(16, h->max * 2);
			h->hints = h->hints == NULL ?
				MemoryContextAlloc(hints_cxt, sizeof(StreamHint) * h->max) :
				repalloc(h->hints, sizeof(StreamHint) * h->max);
		}
		/* the runs it overlaps give way to it */
		if (hi != lo + 1)
			memmove(&h->hints[lo + 1], &h->hints[hi],
					sizeof(StreamHint) * (h->n - hi));
		h->n += lo + 1 - hi;
		hints_total += lo + 1 - hi;
		h->hints[lo].first = first;
		h->hints[lo].count = runs[r].count;
		h->hints[lo].stream_num = stream_num;
		h->hints[lo].tid = *tid;
	}
}
