/*-------------------------------------------------------------------------
 *
 * agg_grouping.h
 *	  Grouping policies of vectorized aggregation: how a batch's rows are
 *	  mapped to groups (numbered densely from 0 in order of first
 *	  appearance) and what each group's key is.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_AGG_GROUPING_H
#define STORAGE_ENGINE_AGG_GROUPING_H

#include "postgres.h"

#include "access/tupdesc.h"

#include "vector/batch.h"

typedef struct AggGrouping AggGrouping;

typedef struct AggGroupingMethods
{
	/*
	 * Sets groups[row] for the selected rows of the key column (every row
	 * of a batch is in one group when key is NULL: groups stays unset and
	 * the caller passes NULL to the kernels).
	 */
	void		(*assign) (AggGrouping *grouping, const ColumnBatch *key,
						   const uint32 *sel, uint32 nsel, uint32 *groups);
	/* group's key value (a copy owned by the grouping) */
	Datum		(*key) (AggGrouping *grouping, uint32 group, bool *isnull);
} AggGroupingMethods;

struct AggGrouping
{
	const AggGroupingMethods *methods;	/* NULL: no grouping column */
	uint32		ngroups;
};

/*
 * A grouping by no column (one group, even over no rows) when key is
 * NULL, else by the values of a column of that type; memory in cxt.
 */
extern AggGrouping *agg_grouping_create(Form_pg_attribute key, MemoryContext cxt);

/* Can a column of this type and collation be a key of agg_grouping_create? */
extern bool agg_grouping_supports(Oid type, Oid collation);

#endif							/* STORAGE_ENGINE_AGG_GROUPING_H */
