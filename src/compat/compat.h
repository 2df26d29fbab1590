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

#endif							/* STORAGE_ENGINE_COMPAT_H */
