/*-------------------------------------------------------------------------
 *
 * row_ddl.h
 *	  rowcompress's record of the storage lifecycle (create, truncate,
 *	  rewrite, copy, vacuum, drop) shared with colcompress.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_ROW_DDL_H
#define STORAGE_ENGINE_ROW_DDL_H

#include "compat/compat.h"

#include "access/tableam.h"

#include "format/storage_am.h"

/* rowcompress's record for the shared storage lifecycle. */
extern const StorageAm rowcompress_storage_am;

#endif							/* STORAGE_ENGINE_ROW_DDL_H */
