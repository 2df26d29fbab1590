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

/* The aggregate's result from one group's state, in CurrentMemoryContext */
typedef Datum (*AggKernelFinal) (const void *state, bool *isnull);

typedef struct AggKernel
{
	Oid			aggfnoid;		/* the aggregate function */
	Size		state_size;
	AggKernelAdd add;
	AggKernelFinal final;
} AggKernel;

/* The kernel of aggregate function aggfnoid, or NULL if there is none. */
extern const AggKernel *agg_kernel_find(Oid aggfnoid);

#endif							/* STORAGE_ENGINE_AGG_KERNELS_H */
