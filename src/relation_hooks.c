/*-------------------------------------------------------------------------
 *
 * relation_hooks.c
 *	  The object access hook: when a relation of one of our access methods
 *	  is dropped, its buffered rows and metadata rows go too, in the same
 *	  transaction.  (A table AM gets no callback for DROP.)  Also the list
 *	  of our access methods, for code that serves all of them.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_class.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "colstore/col_ddl.h"
#include "relation_hooks.h"
#include "rowstore/row_ddl.h"

static object_access_hook_type prev_object_access = NULL;

static const StorageAm *const storage_ams[] = {
	&colcompress_storage_am,
	&rowcompress_storage_am,
};

const StorageAm *
storage_am_for(Relation rel)
{
	int			i;

	for (i = 0; i < lengthof(storage_ams); i++)
		if (storage_ams[i]->is_am(rel))
			return storage_ams[i];
	return NULL;
}

/*
 * False while DROP EXTENSION is removing the metadata tables themselves
 * (table is the access method's main metadata table).
 */
static bool
metadata_present(const char *table)
{
	Oid			nsp = get_namespace_oid("engine", true);

	return OidIsValid(nsp) && OidIsValid(get_relname_relid(table, nsp));
}

static void
object_access(ObjectAccessType access, Oid classId, Oid objectId,
			  int subId, void *arg)
{
	if (prev_object_access)
		prev_object_access(access, classId, objectId, subId, arg);

	if (access == OAT_DROP && classId == RelationRelationId && subId == 0)
	{
		char		relkind = get_rel_relkind(objectId);
		Relation	rel;
		const StorageAm *am;

		if (relkind != RELKIND_RELATION && relkind != RELKIND_MATVIEW)
			return;
		rel = relation_open(objectId, AccessExclusiveLock);
		am = storage_am_for(rel);
		if (am != NULL && metadata_present(am->metadata_table))
			storage_am_relation_dropped(am, rel);
		relation_close(rel, NoLock);
	}
}

void
relation_hooks_init(void)
{
	prev_object_access = object_access_hook;
	object_access_hook = object_access;
}
