/*-------------------------------------------------------------------------
 *
 * agg_bounds.h
 *	  What an aggregate's input expression can be within a zone (stripe,
 *	  batch), from its columns' zone maps (vector/agg_bounds.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_AGG_BOUNDS_H
#define STORAGE_ENGINE_AGG_BOUNDS_H

#include "access/tupdesc.h"
#include "nodes/primnodes.h"

#include "catalog/zone_map.h"

typedef struct AggExprBounds
{
	bool		empty;			/* no value but NULL */
	/* as doubles: every value lies within [lo, hi], both finite */
	bool		have_range;
	double		lo;
	double		hi;
	/* as a numeric(digits, scale): no NaN, that many digits at most */
	bool		have_shape;
	int			digits;
	int			scale;
} AggExprBounds;

/*
 * Bounds of expr (over the columns of desc, Vars by attribute number) in
 * the zone whose stats stats_fn gives; false when nothing is known.
 */
extern bool agg_expr_bounds(Expr *expr, TupleDesc desc, ZoneStatsFn stats_fn,
							void *zone, AggExprBounds *bounds);

/*
 * numeric(precision, scale) of a typmod, precision at least the scale;
 * false without one or with a negative scale.
 */
extern bool agg_numeric_typmod(int32 typmod, int *precision, int *scale);

#endif							/* STORAGE_ENGINE_AGG_BOUNDS_H */
