/*-------------------------------------------------------------------------
 *
 * col_verify.c
 *	  engine.colcompress_verify(regclass): checks a colcompress table's
 *	  metadata against its storage and returns one row per problem.
 *
 *	  Every chunk is read and decoded through the same reader a scan uses
 *	  (so the checks are the scan's checks, not a second copy); an error
 *	  raised while reading a stripe is caught in a subtransaction and
 *	  reported as a row.  On top, the metadata is checked for consistency
 *	  with the metapage: stripes inside reserved blocks, no two stripes
 *	  sharing blocks or row numbers.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/relation.h"
#include "access/xact.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"

#include "colstore/col_reader.h"
#include "colstore/col_tableam.h"
#include "format/storage.h"

PG_FUNCTION_INFO_V1(colcompress_verify);

typedef struct Problems
{
	ReturnSetInfo *rsinfo;
} Problems;

static void
report(Problems *p, int64 stripe, int attno, const char *fmt,...)
	pg_attribute_printf(4, 5);

static void
report(Problems *p, int64 stripe, int attno, const char *fmt,...)
{
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	char		buf[1024];
	va_list		args;

	va_start(args, fmt);
	vsnprintf(buf, sizeof(buf), fmt, args);
	va_end(args);
	values[0] = Int64GetDatum(stripe);
	nulls[0] = stripe < 0;
	values[1] = Int32GetDatum(attno);
	nulls[1] = attno <= 0;
	values[2] = CStringGetTextDatum(buf);
	tuplestore_putvalues(p->rsinfo->setResult, p->rsinfo->setDesc, values, nulls);
}

typedef struct Range
{
	uint64		first;
	uint64		end;			/* exclusive */
	uint64		stripe;
} Range;

static int
stripe_range_cmp(const void *a, const void *b)
{
	const Range *x = a;
	const Range *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

static void
check_overlaps(Problems *p, Range *ranges, int n, const char *what)
{
	int			i;

	qsort(ranges, n, sizeof(Range), stripe_range_cmp);
	for (i = 1; i < n; i++)
		if (ranges[i].first < ranges[i - 1].end)
			report(p, (int64) ranges[i].stripe, 0,
				   "%s overlap those of stripe " UINT64_FORMAT,
				   what, ranges[i - 1].stripe);
}

/* Reads and decodes every chunk of stripe index si; false on error. */
static bool
read_stripe(Problems *p, ColReader *r, int si)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	StripeMeta *s = list_nth(r->stripes, si);
	bool		ok = true;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		int			g;

		for (g = 0; g < s->chunk_group_count; g++)
			col_reader_load_group(r, si, g);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		report(p, (int64) s->stripe_num, 0, "%s%s%s", edata->message,
			   edata->detail ? ": " : "", edata->detail ? edata->detail : "");
		FreeErrorData(edata);
		col_reader_reset(r, true);
		ok = false;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	CurrentResourceOwner = owner;
	return ok;
}

Datum
colcompress_verify(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Problems	p;
	Relation	rel;
	StorageMeta meta;
	ColReader  *r;
	Range	   *blocks;
	Range	   *rows;
	int			nrows = 0;
	int			nstripes;
	BlockNumber nblocks;
	ListCell   *lc;
	int			i = 0;

	InitMaterializedSRF(fcinfo, 0);
	p.rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	rel = relation_open(relid, AccessShareLock);
	if (!is_colcompress(rel))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a colcompress table",
						RelationGetRelationName(rel))));
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, RelationGetRelationName(rel));

	nblocks = RelationGetNumberOfBlocks(rel);
	if (!storage_read_meta(rel, &meta))
	{
		if (nblocks > 1)
			report(&p, -1, 0, "relation has %u blocks but no metapage", nblocks);
		relation_close(rel, AccessShareLock);
		PG_RETURN_VOID();
	}

	r = col_reader_begin(rel, GetActiveSnapshot(), NULL, NULL);
	nstripes = r->nstripes;
	blocks = palloc(sizeof(Range) * Max(nstripes, 1));
	rows = NULL;
	foreach(lc, r->stripes)
	{
		StripeMeta *s = lfirst(lc);
		uint64		end = s->first_block + storage_stream_blocks(s->data_length);
		uint64		total = 0;
		int			k;

		if (s->first_block < STORAGE_FIRST_DATA_BLOCK || end > meta.next_block)
			report(&p, (int64) s->stripe_num, 0,
				   "blocks " UINT64_FORMAT " to " UINT64_FORMAT " lie outside the reserved blocks",
				   s->first_block, end - 1);
		else if (end > nblocks)
			report(&p, (int64) s->stripe_num, 0,
				   "blocks up to " UINT64_FORMAT " are missing from the relation (%u blocks)",
				   end - 1, nblocks);
		blocks[i].first = s->first_block;
		blocks[i].end = end;
		blocks[i].stripe = s->stripe_num;
		i++;

		rows = rows == NULL ? palloc(sizeof(Range) * s->nruns) :
			repalloc(rows, sizeof(Range) * (nrows + s->nruns));
		for (k = 0; k < s->nruns; k++)
		{
			rows[nrows].first = s->runs[k].first;
			rows[nrows].end = s->runs[k].first + s->runs[k].count;
			rows[nrows].stripe = s->stripe_num;
			if (rows[nrows].end > meta.next_row_number)
				report(&p, (int64) s->stripe_num, 0,
					   "row numbers up to " UINT64_FORMAT " were never reserved",
					   rows[nrows].end - 1);
			total += s->runs[k].count;
			nrows++;
		}
		if (total != s->row_count)
			report(&p, (int64) s->stripe_num, 0,
				   "row runs cover " UINT64_FORMAT " rows, the stripe has " UINT64_FORMAT,
				   total, s->row_count);
	}
	check_overlaps(&p, blocks, nstripes, "blocks");
	if (nrows > 0)
		check_overlaps(&p, rows, nrows, "row numbers");

	for (i = 0; i < nstripes; i++)
	{
		CHECK_FOR_INTERRUPTS();
		read_stripe(&p, r, i);
	}
	col_reader_end(r);
	relation_close(rel, AccessShareLock);
	PG_RETURN_VOID();
}
