/*-------------------------------------------------------------------------
 *
 * helper_gather.c
 *	  HelperGather: a Gather whose workers are the session's scan helpers
 *	  (scan_helpers.c).
 *
 *	  After planning, a Gather over our parallel scans (with our partial
 *	  aggregation, or PostgreSQL's, or a Sort, between) that sits under
 *	  nothing but aggregations, sorts and the like gets a HelperGather
 *	  above it, when storage_engine.scan_helpers is set.  At its first row
 *	  the node decides: where helpers can take part (helper_task.c says
 *	  when), it runs the Gather's input itself, as a participating leader
 *	  does, hands the same input to the helpers as a task, and returns
 *	  their rows with its own; the Gather is not run.  Otherwise it runs
 *	  the Gather, and PostgreSQL's parallel workers do the work.  Results
 *	  are the same either way: the same plan runs in every participant,
 *	  sharing out the scan's work as it does among parallel workers.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/xact.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "commands/explain.h"
#include COMPAT_EXPLAIN_FORMAT_HEADER
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "pgstat.h"
#include "storage/latch.h"

#include "guc.h"
#include "scan/col_customscan.h"
#include "scan/helper_task.h"
#include "scan/scan_helpers.h"
#include "scan/row_customscan.h"
#include "vector/vector_agg.h"

#define HELPER_GATHER_NAME "HelperGather"

typedef struct HelperGatherState
{
	CustomScanState css;
	bool		started;
	bool		passthrough;	/* the Gather runs, with parallel workers */
	bool		local_done;
	HelperTask *task;
	TupleTableSlot *helper_slot;
	int			launched;
	int			joined;
} HelperGatherState;

static planner_hook_type prev_planner = NULL;

static Node *create_helper_gather_state(CustomScan *cscan);
static void begin_helper_gather(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_helper_gather(CustomScanState *node);
static void end_helper_gather(CustomScanState *node);
static void rescan_helper_gather(CustomScanState *node);
static void shutdown_helper_gather(CustomScanState *node);
static void explain_helper_gather(CustomScanState *node, List *ancestors,
								  ExplainState *es);

static const CustomScanMethods helper_gather_plan_methods = {
	.CustomName = HELPER_GATHER_NAME,
	.CreateCustomScanState = create_helper_gather_state,
};

static const CustomExecMethods helper_gather_exec_methods = {
	.CustomName = HELPER_GATHER_NAME,
	.BeginCustomScan = begin_helper_gather,
	.ExecCustomScan = exec_helper_gather,
	.EndCustomScan = end_helper_gather,
	.ReScanCustomScan = rescan_helper_gather,
	.ShutdownCustomScan = shutdown_helper_gather,
	.ExplainCustomScan = explain_helper_gather,
};

/* ---------------------------------------------------------------------
 * Planning
 * ---------------------------------------------------------------------
 */

static bool
is_our_scan(Plan *plan)
{
	return col_scan_plan_is(plan) || row_scan_plan_is(plan);
}

/* Our scans, and our aggregation nodes over them. */
static bool
is_our_node(Plan *plan)
{
	return is_our_scan(plan) ||
		(IsA(plan, CustomScan) &&
		 (((CustomScan *) plan)->methods == &vector_agg_plan_methods ||
		  ((CustomScan *) plan)->methods == &row_vector_agg_plan_methods));
}

/*
 * Can a helper run this part of a Gather's input: only nodes that keep
 * to themselves (no shared state but our scans', no subplans, no
 * initplans), and parallel awareness only in our scans.
 */
static bool
helper_runnable(Plan *plan, int *parallel_scans)
{
	ListCell   *lc;

	if (plan == NULL)
		return true;
	if (plan->initPlan != NIL)
		return false;
	if (plan->parallel_aware)
	{
		if (!is_our_scan(plan))
			return false;
		(*parallel_scans)++;
	}
	switch (nodeTag(plan))
	{
		case T_Agg:
		case T_Sort:
		case T_Result:
			break;
		case T_CustomScan:
			if (!is_our_node(plan))
				return false;
			foreach(lc, ((CustomScan *) plan)->custom_plans)
				if (!helper_runnable(lfirst(lc), parallel_scans))
					return false;
			break;
		default:
			return false;
	}
	return helper_runnable(plan->lefttree, parallel_scans) &&
		helper_runnable(plan->righttree, parallel_scans);
}

static bool
gather_takes_helpers(Gather *gather)
{
	Plan	   *input = gather->plan.lefttree;
	Bitmapset  *params;
	int			parallel_scans = 0;

	if (gather->single_copy || gather->num_workers <= 0 ||
		gather->initParam != NULL || gather->plan.initPlan != NIL)
		return false;
	/* no parameter but the one that rewinds the scan */
	params = bms_copy(input->extParam);
	if (gather->rescan_param >= 0)
		params = bms_del_member(params, gather->rescan_param);
	if (!bms_is_empty(params))
		return false;
	return helper_runnable(input, &parallel_scans) && parallel_scans > 0;
}

static Plan *
helper_gather_over(Gather *gather)
{
	CustomScan *cscan = makeNode(CustomScan);

	cscan->scan.plan.startup_cost = gather->plan.startup_cost;
	cscan->scan.plan.total_cost = gather->plan.total_cost;
	cscan->scan.plan.plan_rows = gather->plan.plan_rows;
	cscan->scan.plan.plan_width = gather->plan.plan_width;
	cscan->scan.plan.parallel_safe = false;
	cscan->scan.plan.targetlist = plan_output_vars(gather->plan.targetlist, INDEX_VAR);
	/* the Gather is the outer plan: EXPLAIN shows it, Vars refer to it */
	cscan->scan.plan.lefttree = (Plan *) gather;
	cscan->scan.plan.extParam = bms_copy(gather->plan.extParam);
	cscan->scan.plan.allParam = bms_copy(gather->plan.allParam);
	cscan->scan.scanrelid = 0;
	cscan->custom_scan_tlist = plan_output_vars(gather->plan.targetlist, OUTER_VAR);
	/* how many helpers it takes */
	cscan->custom_private = list_make1_int(Min(gather->num_workers,
											   storage_engine_scan_helpers));
	cscan->methods = &helper_gather_plan_methods;
	return (Plan *) cscan;
}

/*
 * Puts a HelperGather over the Gathers that only aggregations, sorts,
 * limits and subquery scans read from, above which nothing runs the
 * Gather again.
 */
static Plan *
place_helper_gathers(Plan *plan, List **added)
{
	ListCell   *lc;

	if (plan == NULL)
		return NULL;
	if (IsA(plan, Gather) && gather_takes_helpers((Gather *) plan))
	{
		Plan	   *helper = helper_gather_over((Gather *) plan);

		*added = lappend(*added, helper);
		return helper;
	}
	switch (nodeTag(plan))
	{
		case T_Agg:
		case T_Sort:
		case T_IncrementalSort:
		case T_Result:
		case T_Limit:
		case T_Unique:
		case T_WindowAgg:
			plan->lefttree = place_helper_gathers(plan->lefttree, added);
			break;
		case T_SubqueryScan:
			((SubqueryScan *) plan)->subplan =
				place_helper_gathers(((SubqueryScan *) plan)->subplan, added);
			break;
		case T_CustomScan:
			if (is_our_node(plan))
				foreach(lc, ((CustomScan *) plan)->custom_plans)
					lfirst(lc) = place_helper_gathers(lfirst(lc), added);
			break;
		default:
			break;
	}
	return plan;
}

static PlannedStmt *
helper_gather_planner(Query *parse, const char *query_string,
					  int cursor_options, ParamListInfo bound_params)
{
	PlannedStmt *stmt;
	List	   *added = NIL;

	if (prev_planner != NULL)
		stmt = prev_planner(parse, query_string, cursor_options, bound_params);
	else
		stmt = standard_planner(parse, query_string, cursor_options, bound_params);

	if (storage_engine_scan_helpers <= 0 || !IsUnderPostmaster ||
		IsParallelWorker() || stmt->commandType != CMD_SELECT ||
		!stmt->parallelModeNeeded || stmt->subplans != NIL)
		return stmt;
	stmt->planTree = place_helper_gathers(stmt->planTree, &added);
	if (added != NIL)
		number_added_plan_nodes(stmt, added);
	return stmt;
}

/* ---------------------------------------------------------------------
 * Execution
 * ---------------------------------------------------------------------
 */

static Node *
create_helper_gather_state(CustomScan *cscan)
{
	HelperGatherState *state = palloc0(sizeof(HelperGatherState));

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &helper_gather_exec_methods;
	return (Node *) state;
}

static void
begin_helper_gather(CustomScanState *node, EState *estate, int eflags)
{
	HelperGatherState *state = (HelperGatherState *) node;

	outerPlanState(node) = ExecInitNode(outerPlan(node->ss.ps.plan), estate, eflags);
	/* rows come as the input's slots or the helpers' minimal tuples */
	node->ss.ps.resultopsset = true;
	node->ss.ps.resultopsfixed = false;
	/* the helpers send rows of the Gather's input */
	state->helper_slot =
		ExecInitExtraTupleSlot(estate,
							   ExecGetResultType(outerPlanState(outerPlanState(node))),
							   &TTSOpsMinimalTuple);
}

/*
 * Can helpers take part in this run?  Where they would see something the
 * leader does not (helper_task.c), or could not run the input as
 * PostgreSQL's workers would, the Gather runs.
 */
static bool
helpers_may_run(EState *estate)
{
	return estate->es_use_parallel_mode && storage_engine_scan_helpers > 0 &&
		!IsolationIsSerializable() &&
		!TransactionIdIsValid(GetTopTransactionIdIfAny()) &&
		(estate->es_param_list_info == NULL ||
		 estate->es_param_list_info->numParams == 0) &&
		GetSessionUserId() == GetAuthenticatedUserId();
}

static void
start_helpers(HelperGatherState *state)
{
	EState	   *estate = state->css.ss.ps.state;
	PlanState  *gather = outerPlanState(state);
	ScanHelper *helpers[SCAN_HELPERS_MAX];
	int			wanted;
	int			n;

	state->started = true;
	state->passthrough = true;
	if (!helpers_may_run(estate))
		return;
	wanted = linitial_int(((CustomScan *) state->css.ss.ps.plan)->custom_private);
	n = scan_helpers_get(wanted, helpers);
	if (n == 0)
		return;
	state->task = helper_task_start(outerPlanState(gather), estate, helpers, n);
	if (state->task == NULL)
		return;
	state->passthrough = false;
	state->local_done = false;
	state->launched = n;
}

/* A row of the Gather's input as the Gather returns it: projected, maybe. */
static TupleTableSlot *
as_gather_row(PlanState *gather, TupleTableSlot *slot)
{
	ExprContext *econtext = gather->ps_ExprContext;

	if (gather->ps_ProjInfo == NULL)
		return slot;
	ResetExprContext(econtext);
	econtext->ecxt_outertuple = slot;
	return ExecProject(gather->ps_ProjInfo);
}

static TupleTableSlot *
exec_helper_gather(CustomScanState *node)
{
	HelperGatherState *state = (HelperGatherState *) node;
	PlanState  *gather = outerPlanState(node);

	if (!state->started)
		start_helpers(state);
	if (state->passthrough)
		return ExecProcNode(gather);

	for (;;)
	{
		MinimalTuple tuple;
		bool		helpers_done;

		CHECK_FOR_INTERRUPTS();
		tuple = helper_task_next(state->task, &helpers_done);
		if (tuple != NULL)
			return as_gather_row(gather,
								 ExecStoreMinimalTuple(tuple, state->helper_slot, false));

		/*
		 * The leader's own part, as a participating leader of PostgreSQL's
		 * Gather does; without parallel_leader_participation, only when no
		 * helper took part.
		 */
		if (!state->local_done &&
			(parallel_leader_participation ||
			 (helpers_done && helper_task_joined(state->task) == 0)))
		{
			TupleTableSlot *slot = ExecProcNode(outerPlanState(gather));

			if (!TupIsNull(slot))
				return as_gather_row(gather, slot);
			state->local_done = true;
			helper_task_withdraw(state->task);
			continue;
		}
		/* here the leader's part is done, or the helpers did it all */
		if (helpers_done)
		{
			state->joined = helper_task_joined(state->task);
			return ExecClearTuple(state->helper_slot);
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

static void
end_task(HelperGatherState *state)
{
	if (state->task == NULL)
		return;
	state->joined = helper_task_joined(state->task);
	helper_task_end(state->task);
	state->task = NULL;
}

/*
 * After the input's own shutdown (children first): our scans have read
 * the counters the helpers left in the task's shared memory.
 */
static void
shutdown_helper_gather(CustomScanState *node)
{
	end_task((HelperGatherState *) node);
}

static void
end_helper_gather(CustomScanState *node)
{
	end_task((HelperGatherState *) node);
	ExecEndNode(outerPlanState(node));
}

static void
rescan_helper_gather(CustomScanState *node)
{
	HelperGatherState *state = (HelperGatherState *) node;

	end_task(state);
	state->started = false;
	ExecReScan(outerPlanState(node));
}

static void
explain_helper_gather(CustomScanState *node, List *ancestors, ExplainState *es)
{
	HelperGatherState *state = (HelperGatherState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	ExplainPropertyInteger("Helpers Planned", NULL,
						   linitial_int(cscan->custom_private), es);
	if (es->analyze)
	{
		ExplainPropertyInteger("Helpers Launched", NULL, state->launched, es);
		ExplainPropertyInteger("Helpers Joined", NULL, state->joined, es);
	}
}

void
helper_gather_init(void)
{
	RegisterCustomScanMethods(&helper_gather_plan_methods);
	prev_planner = planner_hook;
	planner_hook = helper_gather_planner;
}
