/*-------------------------------------------------------------------------
 *
 * storage_info.c
 *	  engine.storage_id(regclass): the key of a table's metadata rows, for
 *	  the inspection views.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/relation.h"
#include "fmgr.h"
#include "utils/rel.h"

#include "format/storage.h"
#include "relation_hooks.h"

PG_FUNCTION_INFO_V1(engine_storage_id);

Datum
engine_storage_id(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Relation	rel = try_relation_open(relid, AccessShareLock);
	StorageMeta meta;
	bool		found = false;

	if (rel == NULL)
		PG_RETURN_NULL();
	if (storage_am_for(rel) != NULL)
		found = storage_read_meta(rel, &meta);
	relation_close(rel, AccessShareLock);
	if (!found)
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) meta.storage_id);
}
