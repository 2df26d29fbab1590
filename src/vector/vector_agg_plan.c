/*-------------------------------------------------------------------------
 *
 * vector_agg_plan.c
 *	  Places ColcompressVectorAgg nodes: after PostgreSQL has planned a
 *	  query (planner hook), every Agg that sits directly on a
 *	  ColcompressScan and that the kernels can compute is wrapped.
 *
 *	  Done on the finished plan rather than as a competing path: the
 *	  aggregation PostgreSQL chose (plain or hashed, serial) is kept as it
 *	  is, and the node only changes how it is computed, never which plan
 *	  wins.  An Agg qualifies when
 *	  - it aggregates whole (AGGSPLIT_SIMPLE) or is the partial half of a
 *	    parallel aggregation (AGGSPLIT_INITIAL_SERIAL, every kernel able to
 *	    emit partial states), without grouping sets or HAVING;
 *	  - it groups by nothing (plain) or by one column, through a hash
 *	    table or over a Sort of the scan (GroupAggregate: the node then
 *	    returns its groups in the Sort's order), with the column type's
 *	    default equality under a deterministic collation
 *	    (agg_grouping_supports);
 *	  - its target list holds only aggregates with a kernel, each over one
 *	    plain column of the scan (or count(*)), without DISTINCT or FILTER
 *	    (ORDER BY only where an ordered-set kernel takes it), and the
 *	    grouping column itself.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "catalog/pg_aggregate.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/planner.h"
#include "utils/typcache.h"

#include "guc.h"
#include "scan/col_customscan.h"
#include "vector/agg_grouping.h"
#include "vector/agg_kernels.h"
#include "vector/vector_agg.h"

static planner_hook_type prev_planner = NULL;

/*
 * What an Agg reads: the ColcompressScan, directly or through a Sort that
 * passes its rows on (a GroupAggregate's input).
 */
typedef struct AggInput
{
	Plan	   *input;			/* the Agg's lefttree */
	CustomScan *scan;
} AggInput;

/* The scan's column behind Agg input column resno, or NULL. */
static Var *
input_column(AggInput *in, AttrNumber resno)
{
	TargetEntry *te;
	Var		   *var;

	if (in->input != (Plan *) in->scan)
	{
		/* a Sort: its output columns are its input's */
		if (resno < 1 || resno > list_length(in->input->targetlist))
			return NULL;
		te = list_nth(in->input->targetlist, resno - 1);
		if (!IsA(te->expr, Var) || ((Var *) te->expr)->varno != OUTER_VAR)
			return NULL;
		resno = ((Var *) te->expr)->varattno;
	}
	if (resno < 1 || resno > list_length(in->scan->scan.plan.targetlist))
		return NULL;
	te = list_nth(in->scan->scan.plan.targetlist, resno - 1);
	if (!IsA(te->expr, Var))
		return NULL;
	var = (Var *) te->expr;
	if (var->varno != in->scan->scan.scanrelid || var->varattno < 1 ||
		var->varlevelsup != 0)
		return NULL;
	return var;
}

/* An aggregate a kernel computes, over a plain column (or none)? */
static bool
aggref_supported(Aggref *aggref, AggSplit split, AggInput *in)
{
	TargetEntry *arg;

	if (agg_kernel_for(aggref, split) == NULL)
		return false;
	if (aggref->aggstar)
		return aggref->args == NIL;
	if (list_length(aggref->args) != 1)
		return false;
	arg = linitial(aggref->args);
	return IsA(arg->expr, Var) && ((Var *) arg->expr)->varno == OUTER_VAR &&
		input_column(in, ((Var *) arg->expr)->varattno) != NULL;
}

/* Replaces the Agg's references to its input by the scan's columns. */
static Node *
to_scan_columns(Node *node, AggInput *in)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == OUTER_VAR)
		return (Node *) copyObject(input_column(in, ((Var *) node)->varattno));
	return expression_tree_mutator(node, to_scan_columns, in);
}

/*
 * The Agg's input, when the node can replace it: a ColcompressScan, or for
 * a GroupAggregate a Sort (first key the group column) over one.
 */
static bool
agg_input(Agg *agg, AggInput *in)
{
	Plan	   *input = agg->plan.lefttree;

	in->input = input;
	if (col_scan_plan_is(input))
	{
		in->scan = (CustomScan *) input;
		return agg->aggstrategy != AGG_SORTED;
	}
	/* not a partial one: groups emitted early would break the order */
	if (input != NULL && IsA(input, Sort) && col_scan_plan_is(input->lefttree) &&
		agg->aggstrategy == AGG_SORTED && agg->numCols == 1 &&
		agg->aggsplit == AGGSPLIT_SIMPLE &&
		((Sort *) input)->numCols >= 1 &&
		((Sort *) input)->sortColIdx[0] == agg->grpColIdx[0])
	{
		in->scan = (CustomScan *) input->lefttree;
		return true;
	}
	return false;
}

static Plan *
try_vector_agg(Agg *agg)
{
	AggInput	in;
	CustomScan *cscan;
	Var		   *key = NULL;
	List	   *scan_tlist = NIL;
	List	   *tlist = NIL;
	List	   *private;
	ListCell   *lc;

	if ((agg->aggsplit != AGGSPLIT_SIMPLE &&
		 agg->aggsplit != AGGSPLIT_INITIAL_SERIAL) ||
		agg->groupingSets != NIL || agg->plan.qual != NIL ||
		!agg_input(agg, &in))
		return (Plan *) agg;

	if ((agg->aggstrategy == AGG_HASHED || agg->aggstrategy == AGG_SORTED) &&
		agg->numCols == 1)
	{
		TypeCacheEntry *tc;

		key = input_column(&in, agg->grpColIdx[0]);
		if (key == NULL ||
			!agg_grouping_supports(key->vartype, agg->grpCollations[0]))
			return (Plan *) agg;
		tc = lookup_type_cache(key->vartype, TYPECACHE_EQ_OPR);
		if (tc->eq_opr != agg->grpOperators[0])
			return (Plan *) agg;
	}
	else if (agg->aggstrategy != AGG_PLAIN || agg->numCols != 0)
		return (Plan *) agg;

	foreach(lc, agg->plan.targetlist)
	{
		TargetEntry *te = lfirst(lc);
		Node	   *expr = (Node *) te->expr;
		Var		   *column;

		if (IsA(expr, Aggref))
		{
			if (!aggref_supported((Aggref *) expr, agg->aggsplit, &in))
				return (Plan *) agg;
		}
		else if (!IsA(expr, Var) || key == NULL ||
				 ((Var *) expr)->varno != OUTER_VAR ||
				 (column = input_column(&in, ((Var *) expr)->varattno)) == NULL ||
				 column->varattno != key->varattno)
			return (Plan *) agg;

		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) to_scan_columns(expr, &in),
											 te->resno, te->resname, te->resjunk));
		tlist = lappend(tlist,
						makeTargetEntry((Expr *) makeVar(INDEX_VAR, te->resno,
														 exprType(expr),
														 exprTypmod(expr),
														 exprCollation(expr), 0),
										te->resno, te->resname, te->resjunk));
	}

	/*
	 * custom_private: the key's column (0: none), whether partial, and for a
	 * GroupAggregate the order its groups come out in (the Sort's first key).
	 */
	private = list_make2_int(key != NULL ? key->varattno : 0,
							 agg->aggsplit != AGGSPLIT_SIMPLE);
	if (in.input != (Plan *) in.scan)
	{
		Sort	   *sort = (Sort *) in.input;

		private = lappend_int(private, (int) sort->sortOperators[0]);
		private = lappend_int(private, (int) sort->collations[0]);
		private = lappend_int(private, sort->nullsFirst[0]);
	}

	cscan = makeNode(CustomScan);
	cscan->scan.plan.startup_cost = agg->plan.startup_cost;
	cscan->scan.plan.total_cost = agg->plan.total_cost;
	cscan->scan.plan.plan_rows = agg->plan.plan_rows;
	cscan->scan.plan.plan_width = agg->plan.plan_width;
	cscan->scan.plan.parallel_safe = agg->plan.parallel_safe;
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.extParam = bms_copy(agg->plan.extParam);
	cscan->scan.plan.allParam = bms_copy(agg->plan.allParam);
	/* initplans run above the aggregation, where EXPLAIN shows them */
	cscan->scan.plan.initPlan = agg->plan.initPlan;
	agg->plan.initPlan = NIL;
	cscan->scan.scanrelid = 0;
	cscan->custom_plans = list_make1(agg);
	cscan->custom_scan_tlist = scan_tlist;
	cscan->custom_private = private;
	cscan->methods = &vector_agg_plan_methods;
	return (Plan *) cscan;
}

typedef Plan *(*PlanVisitor) (Plan *plan, void *arg);

/*
 * Calls visit on every plan node below and including plan, children
 * first, and puts what it returns in the node's place.
 */
static Plan *
walk_plans(Plan *plan, PlanVisitor visit, void *arg)
{
	ListCell   *lc;

	if (plan == NULL)
		return NULL;
	plan->lefttree = walk_plans(plan->lefttree, visit, arg);
	plan->righttree = walk_plans(plan->righttree, visit, arg);
	switch (nodeTag(plan))
	{
		case T_Append:
			foreach(lc, ((Append *) plan)->appendplans)
				lfirst(lc) = walk_plans(lfirst(lc), visit, arg);
			break;
		case T_MergeAppend:
			foreach(lc, ((MergeAppend *) plan)->mergeplans)
				lfirst(lc) = walk_plans(lfirst(lc), visit, arg);
			break;
		case T_SubqueryScan:
			((SubqueryScan *) plan)->subplan =
				walk_plans(((SubqueryScan *) plan)->subplan, visit, arg);
			break;
		case T_CustomScan:
			foreach(lc, ((CustomScan *) plan)->custom_plans)
				lfirst(lc) = walk_plans(lfirst(lc), visit, arg);
			break;
		default:
			break;
	}
	return visit(plan, arg);
}

static Plan *
walk_statement(PlannedStmt *stmt, PlanVisitor visit, void *arg)
{
	ListCell   *lc;

	foreach(lc, stmt->subplans)
		lfirst(lc) = walk_plans(lfirst(lc), visit, arg);
	return walk_plans(stmt->planTree, visit, arg);
}

static Plan *
wrap_agg(Plan *plan, void *arg)
{
	List	  **added = arg;
	Plan	   *result;

	if (!IsA(plan, Agg))
		return plan;
	result = try_vector_agg((Agg *) plan);
	if (result != plan)
		*added = lappend(*added, result);
	return result;
}

static Plan *
note_max_id(Plan *plan, void *arg)
{
	int		   *max_id = arg;

	*max_id = Max(*max_id, plan->plan_node_id);
	return plan;
}

static PlannedStmt *
vector_agg_planner(Query *parse, const char *query_string, int cursor_options,
				   ParamListInfo bound_params)
{
	PlannedStmt *stmt;
	List	   *added = NIL;
	int			max_id = 0;
	ListCell   *lc;

	if (prev_planner != NULL)
		stmt = prev_planner(parse, query_string, cursor_options, bound_params);
	else
		stmt = standard_planner(parse, query_string, cursor_options, bound_params);

	if (!storage_engine_enable_vectorized_aggregation)
		return stmt;
	stmt->planTree = walk_statement(stmt, wrap_agg, &added);
	if (added == NIL)
		return stmt;

	/* plan node ids are unique within the statement (parallel query keys) */
	walk_statement(stmt, note_max_id, &max_id);
	foreach(lc, added)
		((Plan *) lfirst(lc))->plan_node_id = ++max_id;
	return stmt;
}

void
vector_agg_init(void)
{
	vector_agg_exec_init();
	prev_planner = planner_hook;
	planner_hook = vector_agg_planner;
}
