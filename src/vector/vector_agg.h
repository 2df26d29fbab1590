/*-------------------------------------------------------------------------
 *
 * vector_agg.h
 *	  Vectorized aggregation: the ColcompressVectorAgg node, which takes
 *	  the place of an Agg directly above a ColcompressScan and aggregates
 *	  the scan's batches with per-type kernels (agg_kernels.h), grouped by
 *	  a grouping policy (agg_grouping.h); as RowcompressVectorAgg, the
 *	  same above a RowcompressScan (row_customscan.h).
 *
 *	  Plan shape: a CustomScan (scanrelid 0) whose custom_plans holds the
 *	  original Agg, scan below it; custom_scan_tlist is the Agg's target
 *	  list with the scan's columns as Vars of the scanned relation, and the
 *	  node's target list references it.  The Agg is kept so that the node
 *	  can hand the whole query back to it (values a kernel cannot treat
 *	  exactly, more groups than hash_mem allows).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_VECTOR_AGG_H
#define STORAGE_ENGINE_VECTOR_AGG_H

#include "nodes/extensible.h"

#define VECTOR_AGG_NAME "ColcompressVectorAgg"

/*
 * What a node computes: the first element of its custom_private.
 *
 * A parallel aggregation PostgreSQL cannot plan (DISTINCT, or aggregates
 * whose partial states it would serialize) the nodes run themselves: a
 * COMBINE node above a Gather above EXPORT nodes, one in each participant
 * of a parallel scan.  The COMBINE node keeps the original Agg, over a
 * scan of its own, to compute the query when the participants cannot.
 */
typedef enum VecAggMode
{
	VEC_AGG_WHOLE,				/* what the Agg it replaces returns */
	VEC_AGG_PARTIAL,			/* PostgreSQL's partial states, for its
								 * Finalize Aggregate above a Gather */
	VEC_AGG_EXPORT,				/* per group: the keys, then each aggregate's
								 * state (agg_kernel_export), or one row of
								 * NULL states: this participant gave up */
	VEC_AGG_COMBINE				/* custom_plans: the Agg, then the Gather */
} VecAggMode;

/* The same node over a RowcompressScan, named for what it aggregates. */
#define ROW_VECTOR_AGG_NAME "RowcompressVectorAgg"

extern const CustomScanMethods vector_agg_plan_methods;
extern const CustomScanMethods row_vector_agg_plan_methods;

/* Registers the node and installs the planner hook that places it. */
extern void vector_agg_init(void);

/* vector_agg_plan.c: ids for the plan nodes a planner hook added */
extern void number_added_plan_nodes(PlannedStmt *stmt, List *added);

/* vector_agg_exec.c */
extern void vector_agg_exec_init(void);

#endif							/* STORAGE_ENGINE_VECTOR_AGG_H */
