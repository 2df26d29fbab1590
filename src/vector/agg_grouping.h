/*-------------------------------------------------------------------------
 *
 * agg_grouping.h
 *	  Grouping policies of vectorized aggregation: how a batch's rows are
 *	  mapped to groups (numbered densely from 0 in order of first
 *	  appearance) and what each group's keys are.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_AGG_GROUPING_H
#define STORAGE_ENGINE_AGG_GROUPING_H

#include "postgres.h"

#include "vector/batch.h"

typedef struct AggGrouping AggGrouping;

typedef struct AggGroupingMethods
{
	/*
	 * Sets groups[row] for the selected rows, from the key columns keys[0
	 * .. nkeys) (the rows of a batch without grouping keys are all in group
	 * 0: groups stays unset and the caller passes NULL to the kernels).
	 */
	void		(*assign) (AggGrouping *grouping, ColumnBatch *const *keys,
						   const uint32 *sel, uint32 nsel, uint32 *groups);
	/* key k of group (a copy owned by the grouping) */
	Datum		(*key) (AggGrouping *grouping, uint32 group, int k, bool *isnull);
} AggGroupingMethods;

struct AggGrouping
{
	const AggGroupingMethods *methods;	/* NULL: no grouping keys */
	uint32		ngroups;
};

/*
 * A grouping by no key (one group, even over no rows) when nkeys is 0,
 * else by the values of nkeys keys of these types; memory in cxt.
 */
extern AggGrouping *agg_grouping_create(int nkeys, const Oid *types,
										MemoryContext cxt);

/*
 * Hash of a pass-by-value Datum, for the hash tables of aggregation (group
 * keys, DISTINCT sets): a 64-bit finalizer, which spreads dense integer
 * values over a table.
 */
static inline uint32
agg_hash_datum(Datum v)
{
	uint64		h = (uint64) v;

	h ^= h >> 33;
	h *= UINT64CONST(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64CONST(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return (uint32) h;
}

/* Can a key of this type and collation be a key of agg_grouping_create? */
extern bool agg_grouping_supports(Oid type, Oid collation);

#endif							/* STORAGE_ENGINE_AGG_GROUPING_H */
