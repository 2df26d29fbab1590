/*-------------------------------------------------------------------------
 *
 * storage_am_todo.c
 *	  The not-yet-supported table-AM callbacks of both access methods (see
 *	  storage_am_todo.h).  Refusing with a clear error is right where
 *	  faking would be wrong.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/relscan.h"
#include "commands/defrem.h"
#include "utils/rel.h"

#include "format/storage_am_todo.h"

static void
refuse(Relation rel, const char *what, const char *hint_fmt)
{
	char	   *am = get_am_name(rel->rd_rel->relam);

	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s tables do not support %s yet", am, what),
			 errhint(hint_fmt, am)));
}

#define NO_SAMPLE_HINT "Use ORDER BY random() LIMIT n."

bool
todo_scan_sample_next_block(TableScanDesc scan, struct SampleScanState *scanstate)
{
	refuse(scan->rs_rd, "TABLESAMPLE", NO_SAMPLE_HINT);
	return false;
}

bool
todo_scan_sample_next_tuple(TableScanDesc scan, struct SampleScanState *scanstate,
							TupleTableSlot *slot)
{
	refuse(scan->rs_rd, "TABLESAMPLE", NO_SAMPLE_HINT);
	return false;
}
