/*-------------------------------------------------------------------------
 *
 * col_ddl.h
 *	  colcompress's record of the storage lifecycle (create, truncate,
 *	  rewrite, copy, vacuum, drop) shared with rowcompress.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COL_DDL_H
#define STORAGE_ENGINE_COL_DDL_H

#include "compat/compat.h"

#include "access/tableam.h"

#include "catalog/stripe_meta.h"
#include "format/storage_am.h"

/* colcompress's record for the shared storage lifecycle. */
extern const StorageAm colcompress_storage_am;

/* The stripe as the shared code (StreamInfo) sees it. */
extern void col_stripe_stream_info(const StripeMeta *stripe, StreamInfo *info);

#endif							/* STORAGE_ENGINE_COL_DDL_H */
