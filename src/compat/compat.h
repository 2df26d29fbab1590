/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  Every difference between the PostgreSQL major versions we build
 *	  against (15 and 18) lives here, so that the rest of the tree is
 *	  written against one API.
 *
 *	  Rule: code outside this header never tests PG_VERSION_NUM.  When a
 *	  new major version changes an API, add a shim here, named after the
 *	  newest spelling of the API.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COMPAT_H
#define STORAGE_ENGINE_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 190000
#error "storage_engine supports PostgreSQL 15 to 18"
#endif

/* PostgreSQL 16 declares _PG_init centrally in fmgr.h. */
#if PG_VERSION_NUM < 160000
extern PGDLLEXPORT void _PG_init(void);
#endif

/*
 * ---- Options (src/catalog/options*.c, src/sql_api/options_api.c) ----
 *
 * PostgreSQL 16 replaced the per-catalog pg_*_ownercheck() functions with
 * object_ownercheck(classid, objectid, roleid).  On 15 the shim covers the
 * catalogs the extension checks ownership of; extend it when a new one is
 * needed.
 */
/*
 * PostgreSQL 18 marks functions that do not return with pg_noreturn, written
 * before the declaration; older versions spell it pg_attribute_noreturn().
 */
#ifndef pg_noreturn
#define pg_noreturn pg_attribute_noreturn()
#endif

#if PG_VERSION_NUM < 160000
#include "catalog/pg_class_d.h"
#include "catalog/pg_namespace_d.h"
#include "catalog/pg_proc_d.h"
#include "catalog/pg_type_d.h"
#include "utils/acl.h"

static inline bool
object_ownercheck(Oid classid, Oid objectid, Oid roleid)
{
	switch (classid)
	{
		case RelationRelationId:
			return pg_class_ownercheck(objectid, roleid);
		case NamespaceRelationId:
			return pg_namespace_ownercheck(objectid, roleid);
		case ProcedureRelationId:
			return pg_proc_ownercheck(objectid, roleid);
		case TypeRelationId:
			return pg_type_ownercheck(objectid, roleid);
		default:
			elog(ERROR, "object_ownercheck shim: unsupported catalog %u", classid);
	}
	return false;				/* keep compiler quiet */
}
#endif

#endif							/* STORAGE_ENGINE_COMPAT_H */
