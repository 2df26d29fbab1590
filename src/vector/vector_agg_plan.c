/*-------------------------------------------------------------------------
 *
 * vector_agg_plan.c
 *	  Places ColcompressVectorAgg nodes: after PostgreSQL has planned a
 *	  query (planner hook), every Agg that sits directly on a
 *	  ColcompressScan and that the kernels can compute is wrapped; so is
 *	  one on a RowcompressScan (RowcompressVectorAgg), with a plain
 *	  count(*) the only aggregate when the scan reads no column.  An Agg on
 *	  a sequential scan of a rowcompress table gets a RowcompressScan in
 *	  its place, which hands over whole batches, when the node wraps it.
 *
 *	  Done on the finished plan rather than as a competing path: the
 *	  aggregation PostgreSQL chose (plain or hashed, serial) is kept as it
 *	  is, and the node only changes how it is computed, never which plan
 *	  wins.  An Agg qualifies when
 *	  - it aggregates whole (AGGSPLIT_SIMPLE) or is the partial half of a
 *	    parallel aggregation (AGGSPLIT_INITIAL_SERIAL, every kernel able to
 *	    emit partial states), without grouping sets or HAVING;
 *	  - it groups by nothing (plain) or by keys, through a hash table or
 *	    over a Sort of the scan (GroupAggregate: the node then returns its
 *	    groups in the Sort's order), each key of a type with byte or
 *	    integer equality (agg_grouping_supports) compared with the type's
 *	    default equality;
 *	  - its target list holds only aggregates with a kernel (DISTINCT, FILTER
 *	    and ORDER BY only where a kernel takes them) and the keys;
 *	  - over a Sort, no aggregate that keeps one of equal values (min and
 *	    max of floats and numeric): the node adds rows in the scan's order,
 *	    the GroupAggregate in the Sort's, which is not even stable, and the
 *	    value kept would differ.  Float sums are taken: their last digits
 *	    depend on the order of the rows in every plan PostgreSQL makes
 *	    (agg_kernels.h), and the node's are those of a HashAggregate;
 *	  - keys and aggregate arguments are columns of the scan or expressions
 *	    over them the node evaluates row by row: nothing volatile, no
 *	    subplan.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/parallel.h"
#include "access/table.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "utils/typcache.h"

#include "guc.h"
#include "rowstore/row_tableam.h"
#include "scan/col_customscan.h"
#include "scan/row_customscan.h"
#include "vector/agg_grouping.h"
#include "vector/agg_kernels.h"
#include "vector/vector_agg.h"

static planner_hook_type prev_planner = NULL;

/*
 * What an Agg reads: the ColcompressScan or RowcompressScan, directly or
 * through a Sort that passes its rows on (a GroupAggregate's input).
 */
typedef struct AggInput
{
	Plan	   *input;			/* the Agg's lefttree */
	CustomScan *scan;
	bool		counts_rows;	/* a RowcompressScan that reads no column */
} AggInput;

/* A scan that hands over batches: the node's input. */
static bool
batch_scan_plan_is(Plan *plan)
{
	return col_scan_plan_is(plan) || row_scan_plan_is(plan);
}

/*
 * Can the node compute expr, an expression over the scanned relation, for
 * each row of a batch?  Its columns are plain columns of that relation;
 * nothing volatile, no subplan, no aggregate.
 */
static bool
row_expression_walker(Node *node, Index *scanrelid)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;

		return var->varno != *scanrelid || var->varlevelsup != 0 ||
			var->varattno < 1;
	}
	if (IsA(node, Aggref) || IsA(node, WindowFunc) || IsA(node, SubPlan) ||
		IsA(node, AlternativeSubPlan) || IsA(node, SubLink) ||
		IsA(node, GroupingFunc) || IsA(node, PlaceHolderVar))
		return true;
	return expression_tree_walker(node, row_expression_walker, scanrelid);
}

static bool
row_expression(Expr *expr, Index scanrelid)
{
	return !row_expression_walker((Node *) expr, &scanrelid) &&
		!contain_volatile_functions((Node *) expr);
}

/* What the scan computes for Agg input column resno, or NULL. */
static Expr *
input_expr(AggInput *in, AttrNumber resno)
{
	TargetEntry *te;

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
	return row_expression(te->expr, in->scan->scan.scanrelid) ? te->expr : NULL;
}

typedef struct ToScanContext
{
	AggInput   *in;
	bool		failed;
} ToScanContext;

/* Replaces the Agg's references to its input by what the scan computes. */
static Node *
to_scan_mutator(Node *node, ToScanContext *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == OUTER_VAR)
	{
		Expr	   *expr = input_expr(context->in, ((Var *) node)->varattno);

		if (expr == NULL)
		{
			context->failed = true;
			return node;
		}
		return (Node *) copyObject(expr);
	}
	return expression_tree_mutator(node, to_scan_mutator, context);
}

static Node *
to_scan(Node *node, AggInput *in)
{
	ToScanContext context = {in, false};
	Node	   *result = to_scan_mutator(node, &context);

	return context.failed ? NULL : result;
}

/*
 * An aggregate a kernel computes, over an expression the node can compute
 * row by row (or none)?  Its form over the scan's columns, or NULL.
 */
static Aggref *
aggref_over_scan(Aggref *aggref, AggSplit split, AggInput *in)
{
	Aggref	   *mapped;
	TargetEntry *arg;

	if (agg_kernel_for(aggref, split) == NULL)
		return NULL;
	/* rows without columns: count(*), nothing else */
	if (in->counts_rows && (!aggref->aggstar || aggref->aggfilter != NULL))
		return NULL;
	if (aggref->aggstar ? aggref->args != NIL : list_length(aggref->args) != 1)
		return NULL;
	mapped = (Aggref *) to_scan((Node *) aggref, in);
	if (mapped == NULL || aggref->aggstar)
		return mapped;
	/* a GroupAggregate's rows come in the Sort's order, not the scan's */
	if (in->input != (Plan *) in->scan &&
		agg_kernel_keeps_one_of_ties(agg_kernel_for(aggref, split), mapped))
		return NULL;
	arg = linitial(mapped->args);
	return row_expression(arg->expr, in->scan->scan.scanrelid) ? mapped : NULL;
}

/*
 * The Agg's input, when the node can replace it: a ColcompressScan, or for
 * a GroupAggregate a Sort (first keys the group columns) over one.
 */
static bool
agg_input(Agg *agg, AggInput *in)
{
	Plan	   *input = agg->plan.lefttree;
	int			i;

	in->input = input;
	in->counts_rows = false;
	if (row_scan_plan_counts_rows(input))
	{
		in->scan = (CustomScan *) input;
		in->counts_rows = true;
		return agg->aggstrategy == AGG_PLAIN;
	}
	if (batch_scan_plan_is(input))
	{
		in->scan = (CustomScan *) input;
		return agg->aggstrategy != AGG_SORTED;
	}
	/*
	 * A Sort for a GroupAggregate, or for a plain one's DISTINCT or ORDER BY
	 * aggregates (PostgreSQL 16 on sorts their input once).  Not a partial
	 * aggregation: groups emitted early would break the order.
	 */
	if (input == NULL || !IsA(input, Sort) || !batch_scan_plan_is(input->lefttree) ||
		row_scan_plan_counts_rows(input->lefttree) ||
		(agg->aggstrategy != AGG_SORTED && agg->aggstrategy != AGG_PLAIN) ||
		agg->aggsplit != AGGSPLIT_SIMPLE ||
		((Sort *) input)->numCols < agg->numCols)
		return false;
	for (i = 0; i < agg->numCols; i++)
		if (((Sort *) input)->sortColIdx[i] != agg->grpColIdx[i])
			return false;
	in->scan = (CustomScan *) input->lefttree;
	return true;
}

static Plan *
try_vector_agg(Agg *agg)
{
	AggInput	in;
	CustomScan *cscan;
	List	   *keys = NIL;
	List	   *scan_tlist = NIL;
	List	   *tlist = NIL;
	List	   *private;
	ListCell   *lc;
	int			i;

	if ((agg->aggsplit != AGGSPLIT_SIMPLE &&
		 agg->aggsplit != AGGSPLIT_INITIAL_SERIAL) ||
		agg->groupingSets != NIL || agg->plan.qual != NIL ||
		!agg_input(agg, &in) ||
		(agg->aggstrategy != AGG_PLAIN && agg->aggstrategy != AGG_HASHED &&
		 agg->aggstrategy != AGG_SORTED) ||
		(agg->aggstrategy == AGG_PLAIN) != (agg->numCols == 0))
		return (Plan *) agg;

	for (i = 0; i < agg->numCols; i++)
	{
		Expr	   *key = input_expr(&in, agg->grpColIdx[i]);
		TypeCacheEntry *tc;

		if (key == NULL ||
			!agg_grouping_supports(exprType((Node *) key), agg->grpCollations[i]))
			return (Plan *) agg;
		tc = lookup_type_cache(exprType((Node *) key), TYPECACHE_EQ_OPR);
		if (tc->eq_opr != agg->grpOperators[i])
			return (Plan *) agg;
		keys = lappend(keys, copyObject(key));
	}

	foreach(lc, agg->plan.targetlist)
	{
		TargetEntry *te = lfirst(lc);
		Node	   *expr = (Node *) te->expr;
		Node	   *mapped;

		if (IsA(expr, Aggref))
		{
			mapped = (Node *) aggref_over_scan((Aggref *) expr, agg->aggsplit, &in);
			if (mapped == NULL)
				return (Plan *) agg;
		}
		else
		{
			/* a group key, as the Agg returns it */
			mapped = to_scan(expr, &in);
			if (mapped == NULL || !list_member(keys, mapped))
				return (Plan *) agg;
		}
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) mapped, te->resno,
											 te->resname, te->resjunk));
		tlist = lappend(tlist,
						makeTargetEntry((Expr *) makeVar(INDEX_VAR, te->resno,
														 exprType(expr),
														 exprTypmod(expr),
														 exprCollation(expr), 0),
										te->resno, te->resname, te->resjunk));
	}

	/*
	 * custom_exprs: the group keys, over the scan's columns.  custom_private:
	 * whether partial, then for a GroupAggregate the order its groups come
	 * out in: the Sort's operator, collation and NULLS FIRST for each key.
	 */
	private = list_make1_int(agg->aggsplit == AGGSPLIT_SIMPLE ?
							 VEC_AGG_WHOLE : VEC_AGG_PARTIAL);
	if (in.input != (Plan *) in.scan && agg->numCols > 0)
	{
		Sort	   *sort = (Sort *) in.input;

		for (i = 0; i < agg->numCols; i++)
		{
			private = lappend_int(private, (int) sort->sortOperators[i]);
			private = lappend_int(private, (int) sort->collations[i]);
			private = lappend_int(private, sort->nullsFirst[i]);
		}
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
	cscan->custom_exprs = keys;
	cscan->custom_scan_tlist = scan_tlist;
	cscan->custom_private = private;
	cscan->methods = row_scan_plan_is((Plan *) in.scan) ?
		&row_vector_agg_plan_methods : &vector_agg_plan_methods;
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

typedef struct WrapContext
{
	List	   *rtable;			/* the statement's */
	List	   *added;			/* the nodes placed */
	bool		parallel_ok;	/* may the nodes add a Gather? */
	int			gathers;		/* Gathers in PostgreSQL's plan */
	bool		parallelized;	/* they did */
} WrapContext;

/*
 * May the nodes run an aggregation in parallel themselves?  When
 * PostgreSQL could have planned a parallel query (standard_planner's
 * conditions) and every function in it is parallel safe.  Where the plan
 * has a Gather of its own, there can be no other, unless the nodes take
 * its place (serial_input).
 */
static bool
statement_allows_parallel(Query *parse, int cursor_options)
{
	return (cursor_options & CURSOR_OPT_PARALLEL_OK) != 0 &&
		IsUnderPostmaster && !IsParallelWorker() &&
		parse->commandType == CMD_SELECT && !parse->hasModifyingCTE &&
		max_parallel_workers_per_gather > 0 &&
		storage_engine_enable_parallel_execution &&
		max_parallel_hazard(parse) == PROPARALLEL_SAFE;
}

static Plan *
count_gathers(Plan *plan, void *arg)
{
	if (IsA(plan, Gather) || IsA(plan, GatherMerge))
		(*(int *) arg)++;
	return plan;
}

/* Does the Gather (Merge) return its input's columns as they are? */
static bool
passes_input_on(Plan *gather)
{
	ListCell   *lc;

	if (list_length(gather->targetlist) != list_length(gather->lefttree->targetlist))
		return false;
	foreach(lc, gather->targetlist)
	{
		TargetEntry *te = lfirst(lc);
		Var		   *var = (Var *) te->expr;

		if (!IsA(var, Var) || var->varno != OUTER_VAR ||
			var->varattno != te->resno)
			return false;
	}
	return true;
}

/*
 * Makes the scan below a Gather (Merge), and the Sort between, parallel or
 * serial: a parallel scan is parallel aware, and depends on the Gather's
 * rescan parameter, which rewinds it (SS_finalize_plan).
 */
static void
gather_input(Plan *gather, bool parallel)
{
	int			param = IsA(gather, Gather) ? ((Gather *) gather)->rescan_param :
		((GatherMerge *) gather)->rescan_param;
	Plan	   *sort = IsA(gather->lefttree, Sort) ? gather->lefttree : NULL;
	Plan	   *scan = sort != NULL ? sort->lefttree : gather->lefttree;
	Plan	   *nodes[2] = {scan, sort};
	int			i;

	scan->parallel_aware = parallel;
	for (i = 0; i < 2 && nodes[i] != NULL && param >= 0; i++)
	{
		if (parallel)
		{
			nodes[i]->extParam = bms_add_member(nodes[i]->extParam, param);
			nodes[i]->allParam = bms_add_member(nodes[i]->allParam, param);
		}
		else
		{
			nodes[i]->extParam = bms_del_member(nodes[i]->extParam, param);
			nodes[i]->allParam = bms_del_member(nodes[i]->allParam, param);
		}
	}
}

/*
 * An Agg that PostgreSQL could not make parallel (a DISTINCT aggregate)
 * over a Gather (Merge) of a parallel scan of one of our tables, sorted by
 * each participant for a GroupAggregate: PostgreSQL parallelized only the
 * scan and the sort.  The Gather is taken out, the scan made serial, so
 * that the node can take the Agg and make the whole aggregation parallel
 * (parallelize).  Returns where the Gather was, for restore_gather, or
 * NULL when the Agg is not such.
 */
static Plan *
serial_input(Agg *agg, WrapContext *cxt)
{
	Plan	   *gather = agg->plan.lefttree;
	Plan	   *scan;
	RangeTblEntry *rte;
	Relation	rel;
	bool		ours;

	if (cxt->gathers != 1 || !cxt->parallel_ok ||
		agg->aggsplit != AGGSPLIT_SIMPLE || gather == NULL ||
		!(IsA(gather, Gather) || IsA(gather, GatherMerge)) ||
		gather->initPlan != NIL || !passes_input_on(gather))
		return NULL;
	if (IsA(gather, Gather) &&
		(((Gather *) gather)->single_copy || ((Gather *) gather)->initParam != NULL))
		return NULL;
	if (IsA(gather, GatherMerge) && ((GatherMerge *) gather)->initParam != NULL)
		return NULL;
	scan = gather->lefttree;
	if (scan != NULL && IsA(scan, Sort))
		scan = scan->lefttree;
	if (scan == NULL || !scan->parallel_aware ||
		!(batch_scan_plan_is(scan) || IsA(scan, SeqScan)))
		return NULL;
	rte = rt_fetch(((Scan *) scan)->scanrelid, cxt->rtable);
	rel = table_open(rte->relid, NoLock);
	ours = is_rowcompress(rel) || batch_scan_plan_is(scan);
	table_close(rel, NoLock);
	if (!ours)
		return NULL;
	agg->plan.lefttree = gather->lefttree;
	gather_input(gather, false);
	return gather;
}

/* Puts back what serial_input took out. */
static void
restore_gather(Agg *agg, Plan *gather)
{
	agg->plan.lefttree = gather;
	gather_input(gather, true);
}

/*
 * The node's own parallel aggregation, for an aggregation PostgreSQL left
 * serial (a DISTINCT aggregate, or aggregates its partial states cannot
 * carry): COMBINE over a Gather over EXPORT over a parallel copy of the
 * scan (vector_agg.h), when the table is large enough for a parallel scan
 * and the aggregation costs less so.  The COMBINE node keeps the Agg, and
 * its serial scan, to fall back on.  Returns whole or its replacement.
 */
static Plan *
parallelize(CustomScan *whole, WrapContext *cxt)
{
	Agg		   *agg = linitial(whole->custom_plans);
	Plan	   *scan = agg->plan.lefttree;
	CustomScan *scan_copy;
	CustomScan *export;
	CustomScan *combine;
	Gather	   *gather;
	Relation	rel;
	List	   *export_tlist = NIL;
	ListCell   *lc;
	int			workers;
	int			naggs = 0;
	double		divisor;
	double		parallel_cost;

	if (IsA(scan, Sort))
		scan = scan->lefttree;
	if (!cxt->parallel_ok || cxt->gathers > 0 || agg->aggsplit != AGGSPLIT_SIMPLE ||
		!bms_is_empty(agg->plan.allParam) || !bms_is_empty(scan->allParam))
		return (Plan *) whole;
	/* row counts without reading a column: nothing to share (counts_only in scan_planner.c) */
	if (scan->qual == NIL && !contain_var_clause((Node *) scan->targetlist))
		return (Plan *) whole;

	/* EXPORT's columns: the keys, then each aggregate's exported state */
	foreach(lc, whole->custom_exprs)
		export_tlist = lappend(export_tlist,
							   makeTargetEntry(copyObject(lfirst(lc)),
											   list_length(export_tlist) + 1,
											   NULL, false));
	foreach(lc, whole->custom_scan_tlist)
	{
		TargetEntry *te = lfirst(lc);
		Aggref	   *aggref;

		if (!IsA(te->expr, Aggref))
			continue;
		if (agg_kernel_for((Aggref *) te->expr, AGGSPLIT_SIMPLE)->merge == NULL)
			return (Plan *) whole;
		aggref = copyObject((Aggref *) te->expr);
		aggref->aggtype = BYTEAOID;
		export_tlist = lappend(export_tlist,
							   makeTargetEntry((Expr *) aggref,
											   list_length(export_tlist) + 1,
											   NULL, false));
		naggs++;
	}
	if (naggs == 0)
		return (Plan *) whole;

	rel = table_open(rt_fetch(((Scan *) scan)->scanrelid, cxt->rtable)->relid, NoLock);
	workers = parallel_scan_workers_for(rel);
	if (workers > 0)
		divisor = scan_divisor_for(rel, workers, (CustomScan *) scan);
	table_close(rel, NoLock);
	if (workers <= 0)
		return (Plan *) whole;
	parallel_cost = parallel_setup_cost + agg->plan.total_cost / divisor +
		parallel_tuple_cost * agg->plan.plan_rows * (workers + 1);
	if (col_scan_plan_is(scan))
		parallel_cost += col_worker_start_cost();
	if (parallel_cost >= agg->plan.total_cost)
		return (Plan *) whole;

	scan_copy = copyObject((CustomScan *) scan);
	scan_copy->scan.plan.parallel_aware = true;
	scan_copy->scan.plan.parallel_safe = true;
	scan_copy->scan.plan.plan_rows = scan->plan_rows / divisor;
	scan_copy->scan.plan.total_cost = scan->total_cost / divisor;
	/* a participant of a parallel scan cannot go back over its share */
	scan_copy->flags &= ~CUSTOMPATH_SUPPORT_BACKWARD_SCAN;

	export = makeNode(CustomScan);
	export->scan.plan.startup_cost = agg->plan.total_cost / divisor;
	export->scan.plan.total_cost = agg->plan.total_cost / divisor;
	export->scan.plan.plan_rows = agg->plan.plan_rows;
	export->scan.plan.plan_width = agg->plan.plan_width;
	export->scan.plan.parallel_safe = true;
	export->scan.plan.targetlist = plan_output_vars(export_tlist, INDEX_VAR);
	export->scan.scanrelid = 0;
	export->custom_plans = list_make1(scan_copy);
	export->custom_exprs = copyObject(whole->custom_exprs);
	export->custom_scan_tlist = export_tlist;
	export->custom_private = list_make1_int(VEC_AGG_EXPORT);
	export->methods = whole->methods;

	gather = makeNode(Gather);
	gather->plan.startup_cost = export->scan.plan.startup_cost + parallel_setup_cost;
	gather->plan.total_cost = parallel_cost;
	gather->plan.plan_rows = agg->plan.plan_rows * (workers + 1);
	gather->plan.plan_width = agg->plan.plan_width;
	gather->plan.targetlist = plan_output_vars(export->scan.plan.targetlist, OUTER_VAR);
	gather->plan.lefttree = (Plan *) export;
	gather->num_workers = workers;
	gather->rescan_param = -1;
	gather->single_copy = false;
	gather->invisible = false;

	combine = whole;
	combine->scan.plan.startup_cost = parallel_cost;
	combine->scan.plan.total_cost = parallel_cost;
	combine->scan.plan.parallel_safe = false;
	combine->custom_plans = list_make2(agg, gather);
	linitial_int(combine->custom_private) = VEC_AGG_COMBINE;

	cxt->added = list_concat(cxt->added, list_make3(scan_copy, export, gather));
	cxt->parallelized = true;
	return (Plan *) combine;
}

/*
 * Where the Agg's input scan sits (its lefttree, or its Sort's), if that
 * is a sequential scan of a rowcompress table; else NULL.
 */
static Plan **
rowcompress_seqscan_of(Agg *agg, List *rtable)
{
	Plan	  **at = &agg->plan.lefttree;
	Relation	rel;
	bool		rowcompress;

	if (*at != NULL && IsA(*at, Sort))
		at = &(*at)->lefttree;
	if (*at == NULL || !IsA(*at, SeqScan))
		return NULL;
	rel = table_open(rt_fetch(((Scan *) *at)->scanrelid, rtable)->relid, NoLock);
	rowcompress = is_rowcompress(rel);
	table_close(rel, NoLock);
	return rowcompress ? at : NULL;
}

static Plan *
wrap_agg(Plan *plan, void *arg)
{
	WrapContext *cxt = arg;
	Plan	  **seqscan_at;
	Plan	   *seqscan = NULL;
	Plan	   *gather;
	Plan	   *result;

	if (!IsA(plan, Agg))
		return plan;
	gather = serial_input((Agg *) plan, cxt);
	/* a RowcompressScan reads what the sequential scan did, in batches */
	seqscan_at = rowcompress_seqscan_of((Agg *) plan, cxt->rtable);
	if (seqscan_at != NULL)
	{
		seqscan = *seqscan_at;
		*seqscan_at = row_scan_plan_from_seqscan((Scan *) seqscan);
	}
	result = try_vector_agg((Agg *) plan);
	if (result != plan)
	{
		if (gather != NULL)
			cxt->gathers--;
		result = parallelize((CustomScan *) result, cxt);
		cxt->added = lappend(cxt->added, result);
		return result;
	}
	if (seqscan != NULL)
		*seqscan_at = seqscan;
	if (gather != NULL)
		restore_gather((Agg *) plan, gather);
	return result;
}

static Plan *
note_max_id(Plan *plan, void *arg)
{
	int		   *max_id = arg;

	*max_id = Max(*max_id, plan->plan_node_id);
	return plan;
}

/*
 * Gives the nodes added to stmt's plans ids after the statement's others:
 * plan node ids are unique within a statement (parallel query's keys).
 */
void
number_added_plan_nodes(PlannedStmt *stmt, List *added)
{
	int			max_id = 0;
	ListCell   *lc;

	walk_statement(stmt, note_max_id, &max_id);
	foreach(lc, added)
		((Plan *) lfirst(lc))->plan_node_id = ++max_id;
}

static PlannedStmt *
vector_agg_planner(Query *parse, const char *query_string, int cursor_options,
				   ParamListInfo bound_params)
{
	PlannedStmt *stmt;
	WrapContext cxt = {NIL, NIL, false, 0, false};
	ListCell   *lc;

	if (prev_planner != NULL)
		stmt = prev_planner(parse, query_string, cursor_options, bound_params);
	else
		stmt = standard_planner(parse, query_string, cursor_options, bound_params);

	if (!storage_engine_enable_vectorized_aggregation)
		return stmt;
	cxt.rtable = stmt->rtable;
	/* no Gather in a subplan: it may run in a parallel worker */
	foreach(lc, stmt->subplans)
		lfirst(lc) = walk_plans(lfirst(lc), wrap_agg, &cxt);
	cxt.parallel_ok = statement_allows_parallel(parse, cursor_options);
	walk_plans(stmt->planTree, count_gathers, &cxt.gathers);
	stmt->planTree = walk_plans(stmt->planTree, wrap_agg, &cxt);
	if (cxt.added == NIL)
		return stmt;
	if (cxt.parallelized)
		stmt->parallelModeNeeded = true;

	number_added_plan_nodes(stmt, cxt.added);
	return stmt;
}

void
vector_agg_init(void)
{
	vector_agg_exec_init();
	prev_planner = planner_hook;
	planner_hook = vector_agg_planner;
}
