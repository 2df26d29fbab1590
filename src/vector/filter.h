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
 * Narrows the batch's selection to the rows passing every compiled
 * clause; sel is room for nrows indexes (the new selection).
 */
extern void vec_filter_apply(VecFilter *filter, RowBatch *batch, uint32 *sel);

/* The clauses with a kernel, for EXPLAIN. */
extern List *vec_filter_clauses(VecFilter *filter);

#endif							/* STORAGE_ENGINE_VECTOR_FILTER_H */
