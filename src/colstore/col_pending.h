/*-------------------------------------------------------------------------
 *
 * col_pending.h
 *	  Rows inserted but not yet written as stripes, per relation and
 *	  subtransaction, and the moments they must reach storage.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COL_PENDING_H
#define STORAGE_ENGINE_COL_PENDING_H

#include "colstore/col_writer.h"

extern void col_pending_init(void);

/* The writer for inserts into rel by the current subtransaction. */
extern ColWriter *col_pending_writer(Relation rel);

/* Writes rel's pending rows so that a scan of rel sees them. */
extern void col_pending_flush_for_read(Relation rel);

/* Forgets rel's pending rows (the storage they were for is gone). */
extern void col_pending_forget(Oid relid);

#endif							/* STORAGE_ENGINE_COL_PENDING_H */
