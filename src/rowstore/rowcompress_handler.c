/*-------------------------------------------------------------------------
 *
 * rowcompress_handler.c
 *	  Table access method handler of rowcompress.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "fmgr.h"

PG_FUNCTION_INFO_V1(rowcompress_handler);

Datum
rowcompress_handler(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("access method \"rowcompress\" is not supported yet"),
			 errhint("Use the heap access method until rowcompress lands.")));
	PG_RETURN_NULL();
}
