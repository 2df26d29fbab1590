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

/* The same node over a RowcompressScan, named for what it aggregates. */
#define ROW_VECTOR_AGG_NAME "RowcompressVectorAgg"

extern const CustomScanMethods vector_agg_plan_methods;
extern const CustomScanMethods row_vector_agg_plan_methods;

/* Registers the node and installs the planner hook that places it. */
extern void vector_agg_init(void);

/* vector_agg_exec.c */
extern void vector_agg_exec_init(void);

#endif							/* STORAGE_ENGINE_VECTOR_AGG_H */
