/*-------------------------------------------------------------------------
 *
 * bitmap_columns.c
 *	  ColcompressBitmapColumns: a bitmap heap scan of a colcompress table
 *	  that decodes only the columns its plan reads.
 *
 *	  The executor's bitmap heap scan asks the table AM for whole rows, and
 *	  nothing in the table AM interface says which columns the node's
 *	  target list, filter and recheck condition use: a GIN lookup of 5% of
 *	  the rows then decodes every column of nearly every frame.  So the
 *	  planner wraps each bitmap heap path of a colcompress table in this
 *	  custom path.  Its one child is the unchanged BitmapHeapScan, built
 *	  with an exact target list (custom children never get a physical
 *	  one); at execution we start the child's table scan ourselves (from
 *	  PostgreSQL 17 the node starts it lazily and uses the one it finds)
 *	  and tell it the columns: those of the target list and filter always,
 *	  those of the recheck condition only for blocks the executor
 *	  rechecks.  A whole-row reference keeps every column.  The node hands
 *	  on the child's rows unchanged.
 *
 *	  Parallel bitmap scans are left alone.  GUC
 *	  storage_engine.enable_bitmap_projection.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/tableam.h"
#include "commands/explain.h"
#include COMPAT_EXPLAIN_FORMAT_HEADER
#include "executor/executor.h"
#include "nodes/extensible.h"
#include "optimizer/pathnode.h"
#include "utils/rel.h"

#include "format/storage_am.h"
#include "scan/scan_internal.h"

#define BITMAP_COLUMNS_NAME "ColcompressBitmapColumns"

typedef struct BitmapColumnsState
{
	CustomScanState css;
	PlanState  *child;
} BitmapColumnsState;

static Plan *plan_bitmap_columns(PlannerInfo *root, RelOptInfo *rel,
								 CustomPath *best_path, List *tlist,
								 List *clauses, List *custom_plans);
static Node *create_bitmap_columns_state(CustomScan *cscan);
static void begin_bitmap_columns(CustomScanState *node, EState *estate,
								 int eflags);
static TupleTableSlot *exec_bitmap_columns(CustomScanState *node);
static void end_bitmap_columns(CustomScanState *node);
static void rescan_bitmap_columns(CustomScanState *node);
static void explain_bitmap_columns(CustomScanState *node, List *ancestors,
								   ExplainState *es);

static const CustomPathMethods bitmap_columns_path_methods = {
	.CustomName = BITMAP_COLUMNS_NAME,
	.PlanCustomPath = plan_bitmap_columns,
};

static const CustomScanMethods bitmap_columns_scan_methods = {
	.CustomName = BITMAP_COLUMNS_NAME,
	.CreateCustomScanState = create_bitmap_columns_state,
};

static const CustomExecMethods bitmap_columns_exec_methods = {
	.CustomName = BITMAP_COLUMNS_NAME,
	.BeginCustomScan = begin_bitmap_columns,
	.ExecCustomScan = exec_bitmap_columns,
	.EndCustomScan = end_bitmap_columns,
	.ReScanCustomScan = rescan_bitmap_columns,
	.ExplainCustomScan = explain_bitmap_columns,
};

/*
 * Wraps path, a bitmap heap path of a colcompress table, at its cost less
 * saved, the decoding of the columns the plan does not read.
 */
Path *
bitmap_columns_path(Path *path, Cost saved)
{
	CustomPath *cpath = makeNode(CustomPath);

	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = path->parent;
	cpath->path.pathtarget = path->pathtarget;
	cpath->path.param_info = path->param_info;
	cpath->path.parallel_aware = false;
	cpath->path.parallel_safe = path->parallel_safe;
	cpath->path.parallel_workers = 0;
	cpath->path.rows = path->rows;
	cpath->path.startup_cost = path->startup_cost;
	cpath->path.total_cost = Max(path->total_cost - saved, path->startup_cost);
	cpath->path.pathkeys = NIL;
	cpath->flags = CUSTOMPATH_SUPPORT_PROJECTION;
	cpath->custom_paths = list_make1(path);
	cpath->methods = &bitmap_columns_path_methods;
	return &cpath->path;
}

static Plan *
plan_bitmap_columns(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
					List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	BitmapHeapScan *child = linitial(custom_plans);
	Index		relid = child->scan.scanrelid;
	List	   *columns = NIL;
	List	   *recheck = NIL;
	bool		projected;

	Assert(IsA(child, BitmapHeapScan));
	projected = storage_columns_read((Node *) child->scan.plan.targetlist, relid, &columns) &&
		storage_columns_read((Node *) child->scan.plan.qual, relid, &columns) &&
		storage_columns_read((Node *) child->bitmapqualorig, relid, &recheck);

	/* the child evaluates the quals; we hand on its rows */
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = 0;
	cscan->custom_scan_tlist = copyObject(child->scan.plan.targetlist);
	cscan->custom_plans = custom_plans;
	cscan->flags = best_path->flags;
	cscan->methods = &bitmap_columns_scan_methods;
	cscan->custom_private = list_make3(makeBoolean(projected), columns, recheck);
	return &cscan->scan.plan;
}

static Node *
create_bitmap_columns_state(CustomScan *cscan)
{
	BitmapColumnsState *state = (BitmapColumnsState *)
		newNode(sizeof(BitmapColumnsState), T_CustomScanState);

	state->css.methods = &bitmap_columns_exec_methods;
	return (Node *) state;
}

static void
begin_bitmap_columns(CustomScanState *node, EState *estate, int eflags)
{
	BitmapColumnsState *state = (BitmapColumnsState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	BitmapHeapScanState *child;
	MemoryContext old;

	state->child = ExecInitNode(linitial(cscan->custom_plans), estate, eflags);
	node->custom_ps = list_make1(state->child);
	/* without a projection we return the child's slots, of its kind */
	node->ss.ps.resultopsset = true;
	node->ss.ps.resultopsfixed = false;
	if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) ||
		!boolVal(linitial(cscan->custom_private)))
		return;

	child = castNode(BitmapHeapScanState, state->child);
	old = MemoryContextSwitchTo(estate->es_query_cxt);
	if (child->ss.ss_currentScanDesc == NULL)
		child->ss.ss_currentScanDesc =
			table_beginscan_bm(child->ss.ss_currentRelation,
							   estate->es_snapshot, 0, NULL);
	storage_scan_bitmap_columns(child->ss.ss_currentScanDesc,
								storage_column_set(lsecond(cscan->custom_private)),
								storage_column_set(lthird(cscan->custom_private)));
	MemoryContextSwitchTo(old);
}

static TupleTableSlot *
exec_bitmap_columns(CustomScanState *node)
{
	BitmapColumnsState *state = (BitmapColumnsState *) node;
	TupleTableSlot *slot = ExecProcNode(state->child);
	ProjectionInfo *proj = node->ss.ps.ps_ProjInfo;

	if (proj == NULL || TupIsNull(slot))
		return slot;
	/* the projection was built for our scan slot's kind */
	ExecCopySlot(node->ss.ss_ScanTupleSlot, slot);
	ResetExprContext(proj->pi_exprContext);
	proj->pi_exprContext->ecxt_scantuple = node->ss.ss_ScanTupleSlot;
	return ExecProject(proj);
}

static void
end_bitmap_columns(CustomScanState *node)
{
	ExecEndNode(((BitmapColumnsState *) node)->child);
}

static void
rescan_bitmap_columns(CustomScanState *node)
{
	PlanState  *child = ((BitmapColumnsState *) node)->child;

	if (node->ss.ps.chgParam != NULL)
		UpdateChangedParamSet(child, node->ss.ps.chgParam);
	/* a child with changed parameters rescans on its next row */
	if (child->chgParam == NULL)
		ExecReScan(child);
}

static void
explain_bitmap_columns(CustomScanState *node, List *ancestors,
					   ExplainState *es)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	BitmapHeapScanState *child = castNode(BitmapHeapScanState,
										  ((BitmapColumnsState *) node)->child);
	TupleDesc	desc = RelationGetDescr(child->ss.ss_currentRelation);

	if (!boolVal(linitial(cscan->custom_private)))
		ExplainPropertyText("Columns", "all (whole-row reference)", es);
	else
	{
		explain_columns("Columns", lsecond(cscan->custom_private), desc, es);
		if (lthird(cscan->custom_private) != NIL)
			explain_columns("Recheck Columns", lthird(cscan->custom_private),
							desc, es);
	}
}

void
bitmap_columns_init(void)
{
	RegisterCustomScanMethods(&bitmap_columns_scan_methods);
}
