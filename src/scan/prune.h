/*-------------------------------------------------------------------------
 *
 * prune.h
 *	  Zone-map pruning: which filter clauses can rule out a stripe or chunk
 *	  group from its min/max bounds and NULL counts, and the test itself.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_PRUNE_H
#define STORAGE_ENGINE_PRUNE_H

#include "nodes/execnodes.h"
#include "nodes/pathnodes.h"

#include "catalog/zone_map.h"

typedef struct PruneNode PruneNode;

/* Planning: is clause (on relation relid) usable for pruning? */
extern bool prune_clause_supported(Expr *clause, Index relid, Relation rel);

/*
 * Execution: builds the tests for the given (already chosen) clauses,
 * evaluating their comparison values now, so stable expressions and
 * parameters take their values at execution time, never at planning.
 */
extern PruneNode *prune_build(List *clauses, Relation rel, TupleDesc desc,
							  PlanState *parent, ExprContext *econtext);

/*
 * The column of relation relid that node is (under binary-compatible
 * relabelings), or NULL: a user column, not a system or whole-row one.
 */
extern Var *prune_column_of(Node *node, Index relid);

/*
 * A comparison value (a constant, parameter or stable expression) computed
 * now, copied out of the expression context's per-tuple memory, which the
 * scan resets for every row, into CurrentMemoryContext.
 */
extern Datum prune_value(Expr *expr, PlanState *parent, ExprContext *econtext,
						 bool *isnull);

/* True when no row of the zone can satisfy the clauses. */
extern bool prune_zone_excluded(PruneNode *node, ZoneStatsFn stats_fn, void *zone);

/* Do the tests stand for every clause given to prune_build, whole? */
extern bool prune_complete(PruneNode *node);

/*
 * True when every row of the zone satisfies the clauses (which must be
 * complete): its bounds lie inside every comparison and no value is NULL.
 */
extern bool prune_zone_all_match(PruneNode *node, ZoneStatsFn stats_fn, void *zone);

#endif							/* STORAGE_ENGINE_PRUNE_H */
