/*-------------------------------------------------------------------------
 *
 * fetch_columns.c
 *	  ColcompressBitmapColumns and ColcompressIndexColumns: bitmap heap
 *	  scans and index scans of a colcompress table that decode only the
 *	  columns their plan reads.
 *
 *	  These scans fetch rows by TID through the table AM, and nothing in
 *	  its interface says which columns the node's target list, filter and
 *	  recheck condition use: a GIN lookup of 5% of the rows then decodes
 *	  every column of nearly every frame, an index scan returning one
 *	  column decodes all of them, and an index-only scan, which fetches
 *	  rows only to learn they are visible (we keep no visibility map),
 *	  decodes every column of every row it returns.  So the planner wraps
 *	  each serial bitmap heap, index and index-only path of a colcompress
 *	  table in one of these custom paths.  Its one child is the unchanged
 *	  scan, built with an exact target list (custom children never get a
 *	  physical one); at execution we start the child's table or index scan
 *	  ourselves, as its first row would (the nodes start them lazily and
 *	  use the one they find), and tell its fetches the columns:
 *
 *	  - bitmap heap scan: the target list's and filter's always, the
 *	    recheck condition's only for blocks the executor rechecks;
 *	  - index scan: the target list's, the filter's and, unless the
 *	    index is a btree (which never asks for a recheck), the index
 *	    conditions' and ORDER BY's (rechecked for lossy indexes, whose
 *	    rows the table AM cannot tell apart);
 *	  - index-only scan: none, its values come from the index.
 *
 *	  A whole-row reference keeps every column.  The node hands on the
 *	  child's rows unchanged, in the child's order, and forwards mark,
 *	  restore and backward scans where the child can do them.
 *
 *	  Parallel scans are left alone.  GUCs
 *	  storage_engine.enable_bitmap_projection and
 *	  storage_engine.enable_index_projection.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/tableam.h"
#include "catalog/pg_am_d.h"
#include "commands/explain.h"
#include COMPAT_EXPLAIN_FORMAT_HEADER
#include "executor/executor.h"
#include "nodes/extensible.h"
#include "optimizer/pathnode.h"
#include "utils/rel.h"

#include "format/storage_am.h"
#include "scan/scan_internal.h"

#define BITMAP_COLUMNS_NAME "ColcompressBitmapColumns"
#define INDEX_COLUMNS_NAME "ColcompressIndexColumns"

typedef struct FetchColumnsState
{
	CustomScanState css;
	PlanState  *child;
} FetchColumnsState;

static Plan *plan_fetch_columns(PlannerInfo *root, RelOptInfo *rel,
								CustomPath *best_path, List *tlist,
								List *clauses, List *custom_plans);
static Node *create_fetch_columns_state(CustomScan *cscan);
static void begin_fetch_columns(CustomScanState *node, EState *estate,
								int eflags);
static TupleTableSlot *exec_fetch_columns(CustomScanState *node);
static void end_fetch_columns(CustomScanState *node);
static void rescan_fetch_columns(CustomScanState *node);
static void mark_fetch_columns(CustomScanState *node);
static void restore_fetch_columns(CustomScanState *node);
static void explain_fetch_columns(CustomScanState *node, List *ancestors,
								  ExplainState *es);

static const CustomPathMethods bitmap_columns_path_methods = {
	.CustomName = BITMAP_COLUMNS_NAME,
	.PlanCustomPath = plan_fetch_columns,
};

static const CustomPathMethods index_columns_path_methods = {
	.CustomName = INDEX_COLUMNS_NAME,
	.PlanCustomPath = plan_fetch_columns,
};

static const CustomScanMethods bitmap_columns_scan_methods = {
	.CustomName = BITMAP_COLUMNS_NAME,
	.CreateCustomScanState = create_fetch_columns_state,
};

static const CustomScanMethods index_columns_scan_methods = {
	.CustomName = INDEX_COLUMNS_NAME,
	.CreateCustomScanState = create_fetch_columns_state,
};

static const CustomExecMethods bitmap_columns_exec_methods = {
	.CustomName = BITMAP_COLUMNS_NAME,
	.BeginCustomScan = begin_fetch_columns,
	.ExecCustomScan = exec_fetch_columns,
	.EndCustomScan = end_fetch_columns,
	.ReScanCustomScan = rescan_fetch_columns,
	.ExplainCustomScan = explain_fetch_columns,
};

static const CustomExecMethods index_columns_exec_methods = {
	.CustomName = INDEX_COLUMNS_NAME,
	.BeginCustomScan = begin_fetch_columns,
	.ExecCustomScan = exec_fetch_columns,
	.EndCustomScan = end_fetch_columns,
	.ReScanCustomScan = rescan_fetch_columns,
	.MarkPosCustomScan = mark_fetch_columns,
	.RestrPosCustomScan = restore_fetch_columns,
	.ExplainCustomScan = explain_fetch_columns,
};

/* Wraps path at its cost less saved, with its rows, order and flags. */
static Path *
wrap_path(Path *path, Cost saved, const CustomPathMethods *methods,
		  uint32 flags)
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
	/* a disabled scan (enable_indexscan = off) stays disabled wrapped */
	compat_path_copy_disabled(&cpath->path, path);
	cpath->path.startup_cost = path->startup_cost;
	cpath->path.total_cost = Max(path->total_cost - saved, path->startup_cost);
	cpath->path.pathkeys = path->pathkeys;
	cpath->flags = CUSTOMPATH_SUPPORT_PROJECTION | flags;
	cpath->custom_paths = list_make1(path);
	cpath->methods = methods;
	return &cpath->path;
}

/*
 * Wraps path, a serial bitmap heap path of a colcompress table, at its
 * cost less saved, the decoding of the columns the plan does not read.
 */
Path *
bitmap_columns_path(Path *path, Cost saved)
{
	return wrap_path(path, saved, &bitmap_columns_path_methods, 0);
}

/* The same for a serial index or index-only path. */
Path *
index_columns_path(IndexPath *path, Cost saved)
{
	return wrap_path(&path->path, saved, &index_columns_path_methods,
					 path->indexinfo->amcanmarkpos ?
					 CUSTOMPATH_SUPPORT_MARK_RESTORE : 0);
}

static Plan *
plan_fetch_columns(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				   List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	Scan	   *child = linitial(custom_plans);
	Index		relid = child->scanrelid;
	List	   *columns = NIL;
	List	   *recheck = NIL;
	bool		projected = true;

	if (IsA(child, BitmapHeapScan))
	{
		projected = storage_columns_read((Node *) child->plan.targetlist, relid, &columns) &&
			storage_columns_read((Node *) child->plan.qual, relid, &columns) &&
			storage_columns_read((Node *) ((BitmapHeapScan *) child)->bitmapqualorig,
								 relid, &recheck);
		cscan->methods = &bitmap_columns_scan_methods;
	}
	else if (IsA(child, IndexScan))
	{
		IndexScan  *scan = (IndexScan *) child;
		IndexPath  *ipath = linitial(best_path->custom_paths);

		projected = storage_columns_read((Node *) child->plan.targetlist, relid, &columns) &&
			storage_columns_read((Node *) child->plan.qual, relid, &columns);
		/* btree returns exactly the rows its conditions select: no recheck */
		if (projected && ipath->indexinfo->relam != BTREE_AM_OID)
			projected = storage_columns_read((Node *) scan->indexqualorig, relid, &columns) &&
				storage_columns_read((Node *) scan->indexorderbyorig, relid, &columns);
		cscan->methods = &index_columns_scan_methods;
	}
	else
	{
		/* an index-only scan's fetches only test visibility */
		Assert(IsA(child, IndexOnlyScan));
		cscan->methods = &index_columns_scan_methods;
	}

	/* the child evaluates the quals; we hand on its rows */
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = 0;
	cscan->custom_scan_tlist = copyObject(child->plan.targetlist);
	cscan->custom_plans = custom_plans;
	cscan->flags = best_path->flags;
	if (ExecSupportsBackwardScan(&child->plan))
		cscan->flags |= CUSTOMPATH_SUPPORT_BACKWARD_SCAN;
	cscan->custom_private = list_make3(makeBoolean(projected), columns, recheck);
	return &cscan->scan.plan;
}

static Node *
create_fetch_columns_state(CustomScan *cscan)
{
	FetchColumnsState *state = (FetchColumnsState *)
		newNode(sizeof(FetchColumnsState), T_CustomScanState);

	state->css.methods = cscan->methods == &index_columns_scan_methods ?
		&index_columns_exec_methods : &bitmap_columns_exec_methods;
	return (Node *) state;
}

static void
begin_fetch_columns(CustomScanState *node, EState *estate, int eflags)
{
	FetchColumnsState *state = (FetchColumnsState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	PlanState  *child;
	Bitmapset  *columns;
	MemoryContext old;

	state->child = child = ExecInitNode(linitial(cscan->custom_plans), estate,
										eflags);
	node->custom_ps = list_make1(child);
	/* without a projection we return the child's slots, of its kind */
	node->ss.ps.resultopsset = true;
	node->ss.ps.resultopsfixed = false;
	if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) ||
		!boolVal(linitial(cscan->custom_private)))
		return;

	old = MemoryContextSwitchTo(estate->es_query_cxt);
	columns = storage_column_set(lsecond(cscan->custom_private));
	if (IsA(child, BitmapHeapScanState))
	{
		ScanState  *scan = (ScanState *) child;

		if (scan->ss_currentScanDesc == NULL)
			scan->ss_currentScanDesc =
				table_beginscan_bm(scan->ss_currentRelation,
								   estate->es_snapshot, 0, NULL);
		storage_scan_bitmap_columns(scan->ss_currentScanDesc, columns,
									storage_column_set(lthird(cscan->custom_private)));
	}
	else if (IsA(child, IndexScanState))
	{
		IndexScanState *scan = (IndexScanState *) child;

		compat_start_index_scan(scan, estate->es_snapshot);
		storage_index_fetch_columns(scan->iss_ScanDesc->xs_heapfetch, columns);
	}
	else
	{
		IndexOnlyScanState *scan = castNode(IndexOnlyScanState, child);

		compat_start_index_only_scan(scan, estate->es_snapshot);
		storage_index_fetch_columns(scan->ioss_ScanDesc->xs_heapfetch, columns);
	}
	MemoryContextSwitchTo(old);
}

static TupleTableSlot *
exec_fetch_columns(CustomScanState *node)
{
	FetchColumnsState *state = (FetchColumnsState *) node;
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
end_fetch_columns(CustomScanState *node)
{
	ExecEndNode(((FetchColumnsState *) node)->child);
}

static void
rescan_fetch_columns(CustomScanState *node)
{
	PlanState  *child = ((FetchColumnsState *) node)->child;

	if (node->ss.ps.chgParam != NULL)
		UpdateChangedParamSet(child, node->ss.ps.chgParam);
	/* a child with changed parameters rescans on its next row */
	if (child->chgParam == NULL)
		ExecReScan(child);
}

static void
mark_fetch_columns(CustomScanState *node)
{
	ExecMarkPos(((FetchColumnsState *) node)->child);
}

static void
restore_fetch_columns(CustomScanState *node)
{
	ExecRestrPos(((FetchColumnsState *) node)->child);
}

static void
explain_fetch_columns(CustomScanState *node, List *ancestors,
					  ExplainState *es)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	ScanState  *child = (ScanState *) ((FetchColumnsState *) node)->child;
	TupleDesc	desc = RelationGetDescr(child->ss_currentRelation);

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
fetch_columns_init(void)
{
	RegisterCustomScanMethods(&bitmap_columns_scan_methods);
	RegisterCustomScanMethods(&index_columns_scan_methods);
}
