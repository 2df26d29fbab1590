/*-------------------------------------------------------------------------
 *
 * colcompress_handler.c
 *	  Table access method handler of colcompress.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "fmgr.h"

PG_FUNCTION_INFO_V1(colcompress_handler);

Datum
colcompress_handler(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("access method \"colcompress\" is not supported yet"),
			 errhint("Use the heap access method until colcompress lands.")));
	PG_RETURN_NULL();
}
