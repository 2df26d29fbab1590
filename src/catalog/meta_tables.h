/*-------------------------------------------------------------------------
 *
 * meta_tables.h
 *	  Finding and writing the extension's metadata tables in schema
 *	  "engine".
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_META_TABLES_H
#define STORAGE_ENGINE_META_TABLES_H

#include "access/htup.h"
#include "storage/lockdefs.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

/* OID of engine.<name>; errors clearly when the extension is missing. */
extern Oid	meta_table_relid(const char *name);

extern Relation meta_table_open(const char *name, LOCKMODE lockmode);

/*
 * A copy of snapshot that also sees every row this transaction wrote,
 * whatever its command id: metadata rows are written when data is flushed,
 * which may be in a later command than the rows they describe.  Which of
 * those rows a scan sees is decided per row from the command ids recorded
 * with the data.
 */
extern Snapshot meta_snapshot_for(Snapshot snapshot);

#endif							/* STORAGE_ENGINE_META_TABLES_H */
