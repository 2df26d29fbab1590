/*-------------------------------------------------------------------------
 *
 * guc.c
 *	  Defines every configuration parameter of the extension, in one place,
 *	  under the reserved prefix "storage_engine.".
 *
 *	  Each fast path of the engine gets a boolean here so that it can be
 *	  switched off and its results compared with the slow path.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "utils/guc.h"

#include "guc.h"

void
guc_define(void)
{
	MarkGUCPrefixReserved("storage_engine");
}
