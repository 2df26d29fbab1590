/*-------------------------------------------------------------------------
 *
 * agg_partial.h
 *	  PostgreSQL's serialized partial aggregate states (what a Partial
 *	  Aggregate under a Gather emits) for the aggregates whose transition
 *	  state is internal: sum and avg of int8 and numeric.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_AGG_PARTIAL_H
#define STORAGE_ENGINE_AGG_PARTIAL_H

#include "postgres.h"

typedef struct AggStateBuilder AggStateBuilder;

/*
 * A builder of aggfnoid's serialized state, or NULL when this server's
 * functions do not behave as the builder needs (it tests them once).
 * Memory in CurrentMemoryContext.
 */
extern AggStateBuilder *agg_state_builder_create(Oid aggfnoid);

/*
 * The serialized state of count values adding up to sum (a value of the
 * aggregate's input type), in CurrentMemoryContext.
 */
extern Datum agg_state_builder_build(AggStateBuilder *builder, Datum sum,
									 int64 count);

#endif							/* STORAGE_ENGINE_AGG_PARTIAL_H */
