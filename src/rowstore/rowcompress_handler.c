/*-------------------------------------------------------------------------
 *
 * rowcompress_handler.c
 *	  Table access method handler of rowcompress.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/tableam.h"
#include "fmgr.h"

PG_FUNCTION_INFO_V1(rowcompress_handler);

Datum
rowcompress_handler(PG_FUNCTION_ARGS)
{
	/* TEMPORARY scaffolding for the options branch: reverted before merge. */
	return PointerGetDatum(GetHeapamTableAmRoutine());
}
