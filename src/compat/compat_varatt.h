/*-------------------------------------------------------------------------
 *
 * compat_varatt.h
 *	  The frontend-safe part of compat.h: the varlena macros, which
 *	  PostgreSQL 16 moved out of postgres.h into varatt.h.
 *
 *	  Pure code that is also built outside the server (the value layout
 *	  in src/codec, compiled into the fuzz harness with FRONTEND defined)
 *	  includes this header instead of compat.h, which pulls in server-only
 *	  headers (buffer manager, relcache, smgr).  Include it after
 *	  postgres.h; it includes nothing else.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COMPAT_VARATT_H
#define STORAGE_ENGINE_COMPAT_VARATT_H

#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

#endif							/* STORAGE_ENGINE_COMPAT_VARATT_H */
