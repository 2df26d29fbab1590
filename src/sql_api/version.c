/*-------------------------------------------------------------------------
 *
 * version.c
 *	  engine.version(): which library is loaded, for bug reports and for
 *	  tests that must know which codecs this build has.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "fmgr.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(engine_version);

Datum
engine_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text("storage_engine 1.0"));
}
