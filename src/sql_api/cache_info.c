/*-------------------------------------------------------------------------
 *
 * cache_info.c
 *	  engine.shared_frame_cache_stats(): the shared frame cache's size,
 *	  contents and counts, for the view engine.shared_frame_cache.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"

#include "format/shared_frames.h"

PG_FUNCTION_INFO_V1(engine_shared_frame_cache_stats);

Datum
engine_shared_frame_cache_stats(PG_FUNCTION_ARGS)
{
	TupleDesc	desc;
	SharedFramesStats stats;
	Datum		values[8];
	bool		isnull[8] = {0};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	shared_frames_stats(&stats);
	values[0] = Int64GetDatum((int64) stats.size);
	values[1] = Int64GetDatum((int64) stats.used);
	values[2] = Int64GetDatum((int64) stats.frames);
	values[3] = Int64GetDatum((int64) stats.pinned);
	values[4] = Int64GetDatum((int64) stats.hits);
	values[5] = Int64GetDatum((int64) stats.misses);
	values[6] = Int64GetDatum((int64) stats.stored);
	values[7] = Int64GetDatum((int64) stats.evicted);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, isnull)));
}
