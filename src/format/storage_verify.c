/*-------------------------------------------------------------------------
 *
 * storage_verify.c
 *	  The shared frame of the verify functions (see storage_verify.h).
 *
 *	  Stream contents are checked by the access method's own reader, the
 *	  same code a scan runs (so the checks are the scan's checks, not a
 *	  second copy); this file adds the checks of metadata against the
 *	  metapage that a scan has no reason to make.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/relation.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"

#include "catalog/stream_runs.h"
#include "format/storage_verify.h"

void
storage_verify_begin(StorageVerify *v, FunctionCallInfo fcinfo, Oid relid,
					 const char *am_name, bool (*is_am) (Relation),
					 const char *unit, bool with_attno)
{
	memset(v, 0, sizeof(StorageVerify));
	InitMaterializedSRF(fcinfo, 0);
	v->rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	v->unit = unit;
	v->with_attno = with_attno;

	v->rel = relation_open(relid, AccessShareLock);
	if (!is_am(v->rel))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a %s table",
						RelationGetRelationName(v->rel), am_name)));
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE,
					   RelationGetRelationName(v->rel));

	v->nblocks = RelationGetNumberOfBlocks(v->rel);
	v->has_meta = storage_read_meta(v->rel, &v->meta);
	if (!v->has_meta && v->nblocks > 1)
		storage_verify_report(v, -1, 0, "relation has %u blocks but no metapage",
							  v->nblocks);
}

void
storage_verify_report(StorageVerify *v, int64 stream, int attno,
					  const char *fmt,...)
{
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	char		buf[1024];
	va_list		args;
	int			n = 0;

	va_start(args, fmt);
	vsnprintf(buf, sizeof(buf), fmt, args);
	va_end(args);
	values[n] = Int64GetDatum(stream);
	nulls[n++] = stream < 0;
	if (v->with_attno)
	{
		values[n] = Int32GetDatum(attno);
		nulls[n++] = attno <= 0;
	}
	values[n++] = CStringGetTextDatum(buf);
	tuplestore_putvalues(v->rsinfo->setResult, v->rsinfo->setDesc, values, nulls);
}

static VerifyRange *
add_range(VerifyRange *ranges, int *n, int *max)
{
	if (*n == *max)
	{
		*max = Max(16, *max * 2);
		ranges = ranges == NULL ? palloc(sizeof(VerifyRange) * *max) :
			repalloc(ranges, sizeof(VerifyRange) * *max);
	}
	(*n)++;
	return ranges;
}

void
storage_verify_stream(StorageVerify *v, uint64 stream, uint64 first_block,
					  uint64 data_length, const RowRun *runs, int nruns,
					  uint64 row_count)
{
	uint64		end = first_block + storage_stream_blocks(data_length);
	uint64		total = 0;
	VerifyRange *r;
	int			k;

	if (first_block < STORAGE_FIRST_DATA_BLOCK || end > v->meta.next_block)
		storage_verify_report(v, (int64) stream, 0,
							  "blocks " UINT64_FORMAT " to " UINT64_FORMAT " lie outside the reserved blocks",
							  first_block, end - 1);
	else if (end > v->nblocks)
		storage_verify_report(v, (int64) stream, 0,
							  "blocks up to " UINT64_FORMAT " are missing from the relation (%u blocks)",
							  end - 1, v->nblocks);
	v->blocks = add_range(v->blocks, &v->nblock_ranges, &v->max_block_ranges);
	r = &v->blocks[v->nblock_ranges - 1];
	r->first = first_block;
	r->end = end;
	r->stream = stream;

	for (k = 0; k < nruns; k++)
	{
		v->rows = add_range(v->rows, &v->nrow_ranges, &v->max_row_ranges);
		r = &v->rows[v->nrow_ranges - 1];
		r->first = runs[k].first;
		r->end = runs[k].first + runs[k].count;
		r->stream = stream;
		if (r->end > v->meta.next_row_number)
			storage_verify_report(v, (int64) stream, 0,
								  "row numbers up to " UINT64_FORMAT " were never reserved",
								  r->end - 1);
		total += runs[k].count;
	}
	if (total != row_count)
		storage_verify_report(v, (int64) stream, 0,
							  "row runs cover " UINT64_FORMAT " rows, the %s has " UINT64_FORMAT,
							  total, v->unit, row_count);
}

static int
verify_range_cmp(const void *a, const void *b)
{
	const VerifyRange *x = a;
	const VerifyRange *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

static void
check_overlaps(StorageVerify *v, VerifyRange *ranges, int n, const char *what)
{
	int			i;

	if (n == 0)
		return;
	qsort(ranges, n, sizeof(VerifyRange), verify_range_cmp);
	for (i = 1; i < n; i++)
		if (ranges[i].first < ranges[i - 1].end)
			storage_verify_report(v, (int64) ranges[i].stream, 0,
								  "%s overlap those of %s " UINT64_FORMAT,
								  what, v->unit, ranges[i - 1].stream);
}

/*
 * engine.row_run must hold exactly the streams' runs (v->rows, sorted):
 * fetches by TID find streams through it.
 */
static void
check_run_table(StorageVerify *v)
{
	int			n;
	StreamRun  *runs = stream_runs_read(v->meta.storage_id, GetActiveSnapshot(), &n);
	int			i = 0;
	int			k = 0;

	while (i < v->nrow_ranges || k < n)
	{
		VerifyRange *r = i < v->nrow_ranges ? &v->rows[i] : NULL;
		StreamRun  *t = k < n ? &runs[k] : NULL;

		if (r != NULL && r->end == r->first)
			i++;				/* an empty run has no row */
		else if (r != NULL && t != NULL && r->first == t->run.first &&
				 r->end == t->run.first + t->run.count && r->stream == t->stream_num)
			i++, k++;
		else if (t == NULL || (r != NULL && r->first <= t->run.first))
		{
			storage_verify_report(v, (int64) r->stream, 0,
								  "engine.row_run lacks its row numbers " UINT64_FORMAT " to " UINT64_FORMAT,
								  r->first, r->end - 1);
			i++;
		}
		else
		{
			storage_verify_report(v, (int64) t->stream_num, 0,
								  "engine.row_run gives it row numbers " UINT64_FORMAT " to " UINT64_FORMAT " that it does not hold",
								  t->run.first, t->run.first + t->run.count - 1);
			k++;
		}
	}
	pfree(runs);
}

void
storage_verify_overlaps(StorageVerify *v)
{
	check_overlaps(v, v->blocks, v->nblock_ranges, "blocks");
	check_overlaps(v, v->rows, v->nrow_ranges, "row numbers");
	check_run_table(v);
}

bool
storage_verify_try(StorageVerify *v, int64 stream, void (*read) (void *arg),
				   void *arg)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	bool		ok = true;

	CHECK_FOR_INTERRUPTS();
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		read(arg);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		storage_verify_report(v, stream, 0, "%s%s%s", edata->message,
							  edata->detail ? ": " : "",
							  edata->detail ? edata->detail : "");
		FreeErrorData(edata);
		ok = false;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	CurrentResourceOwner = owner;
	return ok;
}

void
storage_verify_end(StorageVerify *v)
{
	relation_close(v->rel, AccessShareLock);
}
