/*-------------------------------------------------------------------------
 *
 * meta_tables.c
 *	  Lookup of the metadata tables in schema "engine".
 *
 *	  The tables are ordinary heap tables created by the extension script;
 *	  we write them with the catalog tuple routines (heap insert plus index
 *	  maintenance, no permission checks: users never write them directly).
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/table.h"
#include "catalog/namespace.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"

#include "catalog/meta_tables.h"

Oid
meta_table_relid(const char *name)
{
	Oid			nsp = get_namespace_oid("engine", true);
	Oid			relid = OidIsValid(nsp) ? get_relname_relid(name, nsp) : InvalidOid;

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("metadata table engine.%s does not exist", name),
				 errhint("Create the extension with CREATE EXTENSION storage_engine.")));
	return relid;
}

Relation
meta_table_open(const char *name, LOCKMODE lockmode)
{
	return table_open(meta_table_relid(name), lockmode);
}

Snapshot
meta_snapshot_for(Snapshot snapshot)
{
	Snapshot	copy;

	if (snapshot == NULL || !IsMVCCSnapshot(snapshot))
		return snapshot;

	/*
	 * A shallow copy: the xid arrays are shared with the original, which
	 * outlives the metadata scans this copy is used for.
	 */
	copy = palloc(sizeof(SnapshotData));
	memcpy(copy, snapshot, sizeof(SnapshotData));
	copy->curcid = InvalidCommandId;
	copy->copied = true;
	copy->regd_count = 0;
	copy->active_count = 0;
	return copy;
}
