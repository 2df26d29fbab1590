/*-------------------------------------------------------------------------
 *
 * filter.h
 *	  Vectorized filters: clauses of a scan's filter evaluated on a batch's
 *	  column arrays, narrowing its selection vector, before any row is
 *	  built.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_VECTOR_FILTER_H
#define STORAGE_ENGINE_VECTOR_FILTER_H

#include "nodes/execnodes.h"

#include "vector/batch.h"

typedef struct VecFilter VecFilter;

/*
 * Compiles the clauses of quals (a scan's implicitly ANDed filter over
 * relation scanrelid) that have a kernel; the others are returned in
 * *rest, for the caller to evaluate row by row on the rows that pass.
 * Comparison values (constants, parameters, stable expressions) are
 * computed now.  NULL when no clause has a kernel.
 */
extern VecFilter *vec_filter_build(List *quals, Index scanrelid,
								   TupleDesc desc, PlanState *parent,
								   List **rest);

/*
 * A scan node's vectorized filter over its plan's quals, in
 * CurrentMemoryContext,
 * with *rest_qual the ExprState of the clauses left for row-by-row
 * evaluation; NULL (and *rest_qual NULL) when
 * storage_engine.enable_vectorized_filter is off, the scan has no filter,
 * no clause has a kernel, or a clause holds a subplan (initializing one
 * registers it with the plan node, which a rebuild on rescan would
 * repeat).  Both scans build theirs with each reader: scan start and
 * rescan.
 */
extern VecFilter *vec_filter_for_scan(ScanState *ss, ExprState **rest_qual);

/*
 * Narrows the batch's selection to the rows passing every compiled
 * clause; sel is room for nrows indexes (the new selection).
 */
extern void vec_filter_apply(VecFilter *filter, RowBatch *batch, uint32 *sel);

/* The clauses with a kernel, for EXPLAIN. */
extern List *vec_filter_clauses(VecFilter *filter);

#endif							/* STORAGE_ENGINE_VECTOR_FILTER_H */
