/*-------------------------------------------------------------------------
 *
 * agg_kernels.h
 *	  Per-type aggregate kernels: each adds a batch's selected rows of one
 *	  column into per-group states and computes the aggregate's result
 *	  from a state, giving exactly what PostgreSQL's aggregate gives for
 *	  the same rows in the same order.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_AGG_KERNELS_H
#define STORAGE_ENGINE_AGG_KERNELS_H

#include "postgres.h"

#include "access/tupdesc.h"
#include "nodes/nodes.h"
#include "nodes/primnodes.h"

#include "vector/batch.h"

/*
 * Adds rows sel[0 .. nsel) (rows 0 .. nsel when sel is NULL) of col to the
 * states, an array of the kernel's state_size-byte states, zeroed when a
 * group is created; row r goes to states[groups[r]], or to the first
 * state when groups is NULL.  col is NULL for count(*).  Returns false
 * when a value is outside what the kernel computes exactly (a NaN, a
 * numeric too long for 64 bits, a sum that would overflow): the caller
 * then lets PostgreSQL's own aggregate do the whole query.
 */
typedef bool (*AggKernelAdd) (void *states, const uint32 *groups,
							  const ColumnBatch *col, const uint32 *sel,
							  uint32 nsel);

/*
 * The aggregate's result from one group's state, or its partial state as
 * a Partial Aggregate would emit it; info is what the kernel's setup made
 * for this aggregate.  In CurrentMemoryContext; called once per group.
 */
typedef Datum (*AggKernelResult) (void *state, void *info, bool *isnull);

/*
 * Execution-time set-up of one aggregate (partial: as a Partial
 * Aggregate): *info for the result functions; false when the kernel
 * cannot compute it after all (the caller leaves the query to PostgreSQL).
 */
typedef bool (*AggKernelSetup) (Aggref *aggref, bool partial, void **info);

/*
 * What the values of a column must be for add() never to return false,
 * which a partial aggregation needs (it cannot start over: a parallel
 * scan's rows are gone once read).
 */
typedef enum AggKernelSafety
{
	AGG_SAFE_ALWAYS,			/* any value */
	AGG_SAFE_FLOAT,				/* finite and far from overflow */
	AGG_SAFE_NUMERIC,			/* numeric(p, s), p <= 18, s >= 0, no NaN */
	AGG_SAFE_INT8_SUM			/* the sum of all rows fits an int64 */
} AggKernelSafety;

struct AggKernel;
struct AggExprBounds;

/*
 * A participant's state, for the node that combines a parallel aggregation
 * the node runs itself (vector_agg_exec.c), where PostgreSQL's partial
 * states cannot go: they cannot carry a DISTINCT's values.  Export: the
 * state as a bytea, in CurrentMemoryContext (NULL: the state's own bytes,
 * which hold no pointer).  Merge: adds another participant's exported
 * state (len bytes at data) into a state; false when the result leaves
 * what the kernel computes exactly.
 */
typedef bytea *(*AggKernelExport) (const struct AggKernel *k, void *state);
typedef bool (*AggKernelMerge) (const struct AggKernel *k, void *state,
								const char *data, Size len);

typedef struct AggKernel
{
	Oid			aggfnoid;		/* the aggregate function */
	Size		state_size;
	AggKernelAdd add;
	AggKernelResult final;
	AggKernelResult partial;	/* NULL: not as a partial aggregate */
	AggKernelSetup setup;		/* NULL: none needed */
	AggKernelSafety safety;
	/* ordered-set aggregates: direct and ORDER BY arguments it takes */
	bool		(*plannable) (Aggref *aggref);
	/*
	 * Does the order of the rows decide which of equal values comes out
	 * (min and max of floats: -0 or 0; of numeric: 1.0 or 1.00)?  Float
	 * sums are not marked: their last digits depend on the order too, but
	 * PostgreSQL fixes no order for them either (a HashAggregate adds rows
	 * in the scan's order, a GroupAggregate in its Sort's, a parallel plan
	 * in whatever order partial sums arrive).
	 */
	bool		keeps_one_of_ties;
	AggKernelMerge merge;		/* NULL: participants cannot be combined */
	AggKernelExport export_state;
} AggKernel;

/*
 * Planning: the kernel of aggref (split: as a whole or partial
 * aggregate), or NULL when it has none: DISTINCT, FILTER, ORDER BY (but
 * what an ordered-set kernel takes), variadic, outer-level aggregates.
 */
extern const AggKernel *agg_kernel_for(Aggref *aggref, AggSplit split);

/*
 * Would rows in another order than the scan's change which value aggref
 * returns?  (A GroupAggregate's Sort gives its rows another order.)
 */
extern bool agg_kernel_keeps_one_of_ties(const AggKernel *k, Aggref *aggref);

/*
 * Does k take numerics as scaled integers (ColumnBatch.scaled, made once
 * for all the kernels reading a column when the caller makes it), and
 * nothing else of them (sum, avg, min and max of numeric: min and max
 * write the numeric of each new best value from it), so that the column's
 * numerics need not be written (ColumnBatch.made)?
 */
extern bool agg_kernel_reads_scaled(const AggKernel *k);

/*
 * Whether kernel b's results can read the state kernel a keeps over the
 * same input: the same additions into the same state, which results only
 * read (as PostgreSQL shares transition states: sum and avg of numeric
 * both run numeric_avg_accum).
 */
extern bool agg_kernel_same_state(const AggKernel *a, const AggKernel *b);

/* The state of a participant of a parallel aggregation, as a bytea. */
extern bytea *agg_kernel_export(const AggKernel *k, void *state);

/*
 * Adds an exported state into a state; raises an error when the sum
 * leaves what the kernel computes (the zone maps said it could not).
 */
extern void agg_kernel_merge(const AggKernel *k, void *state, bytea *exported);

/*
 * Can a partial aggregation use kernel k on column attr, whose values
 * over the whole scan (rows in all) lie within [min, max]?
 */
extern bool agg_kernel_safe(const AggKernel *k, Form_pg_attribute attr,
							Datum min, Datum max, uint64 rows);

/* The same for an expression over the scan's columns, bounded by b. */
extern bool agg_kernel_safe_bounds(const AggKernel *k,
								   const struct AggExprBounds *b,
								   uint64 rows);

#endif							/* STORAGE_ENGINE_AGG_KERNELS_H */
