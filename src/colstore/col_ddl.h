/*-------------------------------------------------------------------------
 *
 * col_ddl.h
 *	  Storage lifecycle of colcompress relations: create, truncate,
 *	  rewrite, copy, vacuum, drop.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_COL_DDL_H
#define STORAGE_ENGINE_COL_DDL_H

#include "compat/compat.h"

#include "access/tableam.h"
#include "commands/vacuum.h"

#include "catalog/stripe_meta.h"
#include "format/storage_am.h"

/* colcompress's record for the shared storage lifecycle. */
extern const StorageAm colcompress_storage_am;

/* The stripe as the shared code (StreamInfo) sees it. */
extern void col_stripe_stream_info(const StripeMeta *stripe, StreamInfo *info);

extern void col_set_new_storage(Relation rel, const CompatRelFileLocator *newlocator,
								char persistence, TransactionId *freezeXid,
								MultiXactId *minmulti);
extern void col_nontransactional_truncate(Relation rel);
extern void col_copy_data(Relation rel, const CompatRelFileLocator *newlocator);
extern void col_copy_for_cluster(Relation OldTable, Relation NewTable,
								 Relation OldIndex, bool use_sort,
								 TransactionId OldestXmin,
								 TransactionId *xid_cutoff,
								 MultiXactId *multi_cutoff,
								 double *num_tuples, double *tups_vacuumed,
								 double *tups_recently_dead);
extern void col_vacuum(Relation rel, struct VacuumParams *params,
					   BufferAccessStrategy bstrategy);
extern void col_estimate_size(Relation rel, int32 *attr_widths,
							  BlockNumber *pages, double *tuples,
							  double *allvisfrac);

#endif							/* STORAGE_ENGINE_COL_DDL_H */
