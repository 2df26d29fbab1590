/*-------------------------------------------------------------------------
 *
 * row_ddl.h
 *	  Storage lifecycle of rowcompress relations: create, truncate,
 *	  rewrite, copy, vacuum, drop.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_ROW_DDL_H
#define STORAGE_ENGINE_ROW_DDL_H

#include "compat/compat.h"

#include "access/tableam.h"
#include "commands/vacuum.h"

#include "format/storage_am.h"

/* rowcompress's record for the shared storage lifecycle. */
extern const StorageAm rowcompress_storage_am;

extern void row_set_new_storage(Relation rel, const CompatRelFileLocator *newlocator,
								char persistence, TransactionId *freezeXid,
								MultiXactId *minmulti);
extern void row_nontransactional_truncate(Relation rel);
extern void row_copy_data(Relation rel, const CompatRelFileLocator *newlocator);
extern void row_copy_for_cluster(Relation OldTable, Relation NewTable,
								 Relation OldIndex, bool use_sort,
								 TransactionId OldestXmin,
								 TransactionId *xid_cutoff,
								 MultiXactId *multi_cutoff,
								 double *num_tuples, double *tups_vacuumed,
								 double *tups_recently_dead);
extern void row_vacuum(Relation rel, struct VacuumParams *params,
					   BufferAccessStrategy bstrategy);
extern void row_estimate_size(Relation rel, int32 *attr_widths,
							  BlockNumber *pages, double *tuples,
							  double *allvisfrac);

#endif							/* STORAGE_ENGINE_ROW_DDL_H */
