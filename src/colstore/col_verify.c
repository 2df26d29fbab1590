/*-------------------------------------------------------------------------
 *
 * col_verify.c
 *	  engine.colcompress_verify(regclass): checks a colcompress table's
 *	  metadata against its storage and returns one row per problem.
 *
 *	  The frame (metadata against the metapage, errors caught per stripe)
 *	  is shared with rowcompress (format/storage_verify.c).  Every chunk is
 *	  read and decoded through the same reader a scan uses.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "fmgr.h"
#include "utils/snapmgr.h"

#include "colstore/col_reader.h"
#include "colstore/col_tableam.h"
#include "format/storage_verify.h"

PG_FUNCTION_INFO_V1(colcompress_verify);

typedef struct ReadStripe
{
	ColReader  *reader;
	int			index;
} ReadStripe;

/* Reads and decodes every chunk of one stripe. */
static void
read_stripe(void *arg)
{
	ReadStripe *rs = arg;
	StripeMeta *s = list_nth(rs->reader->stripes, rs->index);
	int			g;

	for (g = 0; g < s->chunk_group_count; g++)
		col_reader_load_group(rs->reader, rs->index, g);
}

Datum
colcompress_verify(PG_FUNCTION_ARGS)
{
	StorageVerify v;
	ColReader  *r;
	ListCell   *lc;
	int			i;

	storage_verify_begin(&v, fcinfo, PG_GETARG_OID(0), "colcompress",
						 is_colcompress, "stripe", true);
	if (!v.has_meta)
	{
		storage_verify_end(&v);
		PG_RETURN_VOID();
	}

	r = col_reader_begin(v.rel, GetActiveSnapshot(), NULL, NULL);
	foreach(lc, r->stripes)
	{
		StripeMeta *s = lfirst(lc);

		storage_verify_stream(&v, s->stripe_num, s->first_block,
							  s->data_length, s->runs, s->nruns, s->row_count);
	}
	storage_verify_overlaps(&v);

	for (i = 0; i < r->nstripes; i++)
	{
		ReadStripe	rs = {r, i};

		if (!storage_verify_try(&v, (int64) ((StripeMeta *) list_nth(r->stripes, i))->stripe_num,
								read_stripe, &rs))
			col_reader_reset(r, true);
	}
	col_reader_end(r);
	storage_verify_end(&v);
	PG_RETURN_VOID();
}
