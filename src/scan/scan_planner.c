/*-------------------------------------------------------------------------
 *
 * scan_planner.c
 *	  Planning of the custom scans of both access methods.
 *
 *	  For every colcompress base relation we add a custom path that reads
 *	  only the columns the query uses (target list, filters, and whatever
 *	  joins, sorts and aggregates above need, which all arrive through the
 *	  relation's target list) and skips stripes and chunk groups whose
 *	  zone maps exclude the filter.  Its cost is the sequential scan's with
 *	  the page cost scaled by the share of columns read, so the planner
 *	  still prefers an index or a plain scan when those are cheaper.  A
 *	  partial path with parallel workers is added the same way.
 *
 *	  A rowcompress query that reads no column of the table (count(*)), or
 *	  filters on clauses zone maps can test, gets a RowcompressScan, which
 *	  counts rows from the batches' metadata, or skips the batches whose
 *	  zone maps exclude the filter.
 *
 *	  For both access methods, every path is charged what decoding really
 *	  costs (the columns it reads; for index and bitmap paths the frames
 *	  they touch), and the index_scan option and GUC can keep index paths
 *	  out.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include <math.h>
#include <unistd.h>

#include "access/amapi.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "catalog/pg_statistic.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/plancat.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/spccache.h"

#include "catalog/options.h"
#include "codec/frames.h"
#include "colstore/col_tableam.h"
#include "rowstore/row_tableam.h"
#include "guc.h"
#include "scan/col_customscan.h"
#include "scan/prune.h"
#include "scan/row_customscan.h"
#include "scan/scan_internal.h"

static set_rel_pathlist_hook_type prev_set_rel_pathlist = NULL;
static get_relation_info_hook_type prev_get_relation_info = NULL;

static Plan *plan_col_path(PlannerInfo *root, RelOptInfo *rel,
						   CustomPath *best_path, List *tlist,
						   List *clauses, List *custom_plans);

static const CustomPathMethods col_path_methods = {
	.CustomName = COL_SCAN_NAME,
	.PlanCustomPath = plan_col_path,
};

static Plan *plan_row_scan_path(PlannerInfo *root, RelOptInfo *rel,
								CustomPath *best_path, List *tlist,
								List *clauses, List *custom_plans);

static const CustomPathMethods row_scan_path_methods = {
	.CustomName = ROW_SCAN_NAME,
	.PlanCustomPath = plan_row_scan_path,
};

/*
 * Attribute numbers (1-based) the expressions use: every one for a
 * whole-row reference, none for count(*), whose rows the chunk group
 * metadata counts.
 */
List *
used_columns(List *exprs, Index relid, int natts)
{
	Bitmapset  *attrs = NULL;
	List	   *result = NIL;
	bool		whole_row;
	int			a;

	pull_varattnos((Node *) exprs, relid, &attrs);
	whole_row = bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, attrs);
	for (a = 1; a <= natts; a++)
		if (whole_row || bms_is_member(a - FirstLowInvalidHeapAttributeNumber, attrs))
			result = lappend_int(result, a);
	return result;
}

/*
 * Does the query read a system column other than ctid and tableoid (xmin)?
 * Our scans' slots do not have them; the table AM's slots answer xmin
 * (format/storage_slots.c).
 */
static bool
uses_row_system_columns(RelOptInfo *rel)
{
	Bitmapset  *attrs = NULL;
	int			member = -1;

	pull_varattnos((Node *) rel->reltarget->exprs, rel->relid, &attrs);
	pull_varattnos((Node *) extract_actual_clauses(rel->baserestrictinfo, false),
				   rel->relid, &attrs);
	while ((member = bms_next_member(attrs, member)) >= 0)
	{
		AttrNumber	attno = member + FirstLowInvalidHeapAttributeNumber;

		if (attno < 0 && attno != SelfItemPointerAttributeNumber &&
			attno != TableOidAttributeNumber)
			return true;
	}
	return false;
}

List *
plan_output_vars(List *tlist, int varno)
{
	List	   *result = NIL;
	ListCell   *lc;

	foreach(lc, tlist)
	{
		TargetEntry *te = lfirst(lc);
		Node	   *expr = (Node *) te->expr;

		result = lappend(result,
						 makeTargetEntry((Expr *) makeVar(varno, te->resno,
														  exprType(expr),
														  exprTypmod(expr),
														  exprCollation(expr), 0),
										 te->resno, te->resname, false));
	}
	return result;
}

/* The share of a path's rows one participant handles, as costsize.c has it. */
double
parallel_divisor(int parallel_workers)
{
	double		divisor = parallel_workers;

	if (parallel_workers <= 0)
		return 1.0;
	if (parallel_leader_participation && parallel_workers < 4)
		divisor += 1.0 - 0.3 * parallel_workers;
	return divisor;
}

/*
 * Decoding is what our scans pay beyond a heap scan's per-tuple costs, and
 * the heap-shaped costing knows nothing of it: cpu_operator_cost per value
 * decoded.
 */
static double
decode_cost(double rows, int columns)
{
	return rows * columns * cpu_operator_cost;
}

/*
 * The share of a colcompress table's pages a plan reading nused of its
 * natts columns reads; below 1 even for every column, so that pruning is
 * preferred to the plain scan at equal I/O.
 */
static double
pages_read_fraction(int natts, int nused)
{
	return natts > 0 ? (double) nused / (natts + 1) : 1.0;
}

/*
 * Correlation ANALYZE found between column attno's values and the order of
 * rel's rows (row numbers), or 0 when it has none.
 */
static double
column_correlation(PlannerInfo *root, RelOptInfo *rel, Relation relation,
				   AttrNumber attno)
{
	Form_pg_attribute attr = TupleDescAttr(RelationGetDescr(relation), attno - 1);
	Var		   *var = makeVar(rel->relid, attno, attr->atttypid, attr->atttypmod,
							  attr->attcollation, 0);
	VariableStatData vardata;
	double		correlation = 0.0;

	examine_variable(root, (Node *) var, 0, &vardata);
	if (HeapTupleIsValid(vardata.statsTuple))
	{
		AttStatsSlot sslot;

		if (get_attstatsslot(&sslot, vardata.statsTuple,
							 STATISTIC_KIND_CORRELATION, InvalidOid,
							 ATTSTATSSLOT_NUMBERS))
		{
			if (sslot.nnumbers > 0)
				correlation = sslot.numbers[0];
			free_attstatsslot(&sslot);
		}
	}
	ReleaseVariableStats(vardata);
	return correlation;
}

/*
 * The column a filter clause of rel zone maps can test compares, or
 * InvalidAttrNumber when it is not such a clause or involves more columns.
 */
static AttrNumber
prunable_column(RestrictInfo *clause, RelOptInfo *rel, Relation relation)
{
	Bitmapset  *attrs = NULL;
	int			member;

	if (!prune_clause_supported(clause->clause, rel->relid, relation))
		return InvalidAttrNumber;
	pull_varattnos((Node *) clause->clause, rel->relid, &attrs);
	if (!bms_get_singleton_member(attrs, &member))
		return InvalidAttrNumber;
	member += FirstLowInvalidHeapAttributeNumber;
	return member > 0 ? (AttrNumber) member : InvalidAttrNumber;
}

/*
 * How many separate ranges of a column's values a prunable clause selects,
 * each of which may start a unit of its own even when the rows lie in that
 * column's order: one for a comparison, one per element of IN (...) or per
 * arm of an OR; -1 when it cannot be known at planning (an array that is a
 * parameter).
 */
static double
clause_ranges(Node *clause)
{
	if (IsA(clause, RestrictInfo))
		return clause_ranges((Node *) ((RestrictInfo *) clause)->clause);
	if (is_orclause(clause) || is_andclause(clause))
	{
		bool		any = is_orclause(clause);
		double		total = any ? 0 : -1;
		ListCell   *lc;

		foreach(lc, ((BoolExpr *) clause)->args)
		{
			double		arm = clause_ranges(lfirst(lc));

			if (any)
			{
				if (arm < 0)
					return -1;
				total += arm;
			}
			else if (arm >= 0)
				total = total < 0 ? arm : Min(total, arm);
		}
		return total;
	}
	if (IsA(clause, ScalarArrayOpExpr) && ((ScalarArrayOpExpr *) clause)->useOr)
	{
		Node	   *array = lsecond(((ScalarArrayOpExpr *) clause)->args);

		if (IsA(array, Const) && !((Const *) array)->constisnull)
		{
			ArrayType  *a = DatumGetArrayTypeP(((Const *) array)->constvalue);

			return Max(ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a)), 1);
		}
		if (IsA(array, ArrayExpr))
			return Max(list_length(((ArrayExpr *) array)->elements), 1);
		return -1;
	}
	return 1;
}

/*
 * The share of rel's units (chunk groups, batches) of unit_rows rows that
 * a scan still reads once zone maps have tested its filter.  Most units'
 * min/max exclude a filter on a column only when the rows lie in that
 * column's order, which is what ANALYZE's correlation measures, and what
 * btcostestimate weighs an index scan's I/O by.  Perfectly correlated, the
 * scan reads the filter's selectivity of the units plus, for each range
 * of values it selects (IN lists and ORs select several, scattered over
 * the table), the unit where the range starts; uncorrelated, all of them;
 * in between, interpolated by the squared correlation.  Filters are ANDed:
 * the best column wins.  Without this, a scan skipping nine tenths of a
 * table cost as much as one reading it all, and lost to a bitmap scan
 * decoding the same rows frame by frame.
 */
static double
pruned_fraction(PlannerInfo *root, RelOptInfo *rel, Relation relation,
				double unit_rows)
{
	double		units = Max(rel->tuples / Max(unit_rows, 1.0), 1.0);
	double		best = 1.0;
	int			nclauses = list_length(rel->baserestrictinfo);
	AttrNumber *columns;
	int			i;

	if (!storage_engine_enable_pruning || nclauses == 0)
		return 1.0;
	/* each clause's column, once: testing a clause looks up its operators */
	columns = palloc(sizeof(AttrNumber) * nclauses);
	for (i = 0; i < nclauses; i++)
		columns[i] = prunable_column(list_nth(rel->baserestrictinfo, i), rel,
									 relation);
	for (i = 0; i < nclauses; i++)
	{
		AttrNumber	attno = columns[i];
		List	   *clauses = NIL;
		double		ranges = -1;
		double		selectivity;
		double		correlation;
		double		ordered;
		int			j;

		/* a column's clauses are taken together at its first one */
		if (attno == InvalidAttrNumber)
			continue;
		for (j = 0; j < i && columns[j] != attno; j++)
			;
		if (j < i)
			continue;
		for (j = i; j < nclauses; j++)
		{
			Node	   *clause = list_nth(rel->baserestrictinfo, j);
			double		r;

			if (columns[j] != attno)
				continue;
			clauses = lappend(clauses, clause);
			r = clause_ranges(clause);
			if (r >= 0)
				ranges = ranges < 0 ? r : Min(ranges, r);
		}
		selectivity = clauselist_selectivity(root, clauses, rel->relid,
											 JOIN_INNER, NULL);
		/* unknown: as many ranges as rows, at worst */
		if (ranges < 0)
			ranges = Max(selectivity * rel->tuples, 1.0);
		ordered = Min(selectivity + ranges / units, 1.0);
		correlation = column_correlation(root, rel, relation, attno);
		best = Min(best, ordered +
				   (1.0 - ordered) * (1.0 - correlation * correlation));
	}
	pfree(columns);
	return best;
}

/*
 * The share of the table a ColcompressScan or RowcompressScan plan reads
 * (pruned_fraction), kept as the last element of its custom_private for
 * decisions made after planning (scan_divisor_for).
 */
static Node *
pruned_node(double pruned)
{
	return (Node *) makeFloat(psprintf("%.6g", pruned));
}

static double
plan_pruned_fraction(CustomScan *cscan)
{
	Node	   *last = cscan->custom_private != NIL ? llast(cscan->custom_private) : NULL;

	return last != NULL && IsA(last, Float) ? floatVal(last) : 1.0;
}

/*
 * The share of a scan's rows one participant handles: parallel_divisor's,
 * except that the participants of our parallel scans claim whole units of
 * work (chunk groups, batches), so with fewer units left to read after
 * pruning than participants, some have nothing to do.  work_units: the
 * units of work the scan reads.
 */
static double
scan_divisor(int parallel_workers, double work_units)
{
	double		divisor = parallel_divisor(parallel_workers);

	if (parallel_workers > 0)
		divisor = Min(divisor, Max(work_units, 1.0));
	return divisor;
}

/*
 * What a worker's start costs a parallel colcompress scan, on top of the
 * parallel_setup_cost its Gather charges: our scans' costs run about four
 * times heap's per unit of time (Q2 of the events table: 23,090 in 11 ms
 * against heap's 59,167 in 140 ms; Q5 3,125 in 1.6 ms against 6,713 in
 * 15 ms), so the start PostgreSQL prices for heap weighs four times as much
 * against them.  Without it a one-month range that pruning leaves 9 chunk
 * groups of (1.6 ms serially) went parallel and took 4-6 ms.
 */
#define COL_WORKER_START_WEIGHT	3.0

double
col_worker_start_cost(void)
{
	return COL_WORKER_START_WEIGHT * parallel_setup_cost;
}

static void
cost_col_path(CustomPath *path, PlannerInfo *root, RelOptInfo *rel,
			  int natts, int nused, int parallel_workers, double pruned,
			  double group_rows)
{
	QualCost	qual_cost;
	double		fraction = pages_read_fraction(natts, nused) * pruned;
	double		rows = rel->tuples * pruned;
	double		cpu_per_tuple;
	double		divisor = scan_divisor(parallel_workers,
									   rows / Max(group_rows, 1.0));

	cost_qual_eval(&qual_cost, rel->baserestrictinfo, root);
	cpu_per_tuple = cpu_tuple_cost + qual_cost.per_tuple;
	path->path.rows = clamp_row_est(rel->rows / divisor);
	path->path.startup_cost = qual_cost.startup +
		(parallel_workers > 0 ? col_worker_start_cost() : 0.0);
	path->path.total_cost = path->path.startup_cost +
		seq_page_cost * rel->pages * fraction +
		(cpu_per_tuple * rows + decode_cost(rows, nused)) / divisor;
}

static CustomPath *
make_col_path(PlannerInfo *root, RelOptInfo *rel, int natts, int nused,
			  int parallel_workers, double pruned, double group_rows)
{
	CustomPath *path = makeNode(CustomPath);

	path->path.pathtype = T_CustomScan;
	path->path.parent = rel;
	path->path.pathtarget = rel->reltarget;
	path->path.param_info = NULL;
	path->path.parallel_aware = parallel_workers > 0;
	path->path.parallel_safe = rel->consider_parallel;
	path->path.parallel_workers = parallel_workers;
	path->path.pathkeys = NIL;
	/* it projects (ExecScan's projection): no Result node above it */
	path->flags = CUSTOMPATH_SUPPORT_BACKWARD_SCAN | CUSTOMPATH_SUPPORT_PROJECTION;
	path->methods = &col_path_methods;
	path->custom_private = list_make1(pruned_node(pruned));
	cost_col_path(path, root, rel, natts, nused, parallel_workers, pruned,
				  group_rows);
	/* it stands in for the sequential scan: enable_seqscan = off is for it too */
	compat_path_disable_unless(&path->path, enable_seqscan);
	return path;
}

/* Does some filter clause of rel allow pruning by zone maps? */
static bool
has_prunable_clause(RelOptInfo *rel, Relation relation)
{
	ListCell   *lc;

	if (!storage_engine_enable_pruning)
		return false;
	foreach(lc, rel->baserestrictinfo)
		if (prune_clause_supported(((RestrictInfo *) lfirst(lc))->clause,
								   rel->relid, relation))
			return true;
	return false;
}

/*
 * workers, cut to leave no more participants (the workers, and the leader
 * when it takes part) than storage_engine.max_parallel_participants, by
 * default the machine's cores.  Our scans are bound by decompression: on two
 * cores a leader and two workers scanned 10-15% slower than a leader and
 * one, each process also costing its start.
 */
static int
cap_workers(int workers)
{
	static long cores = 0;
	long		participants = storage_engine_max_parallel_participants;

	if (participants == 0)
	{
		if (cores == 0)
			cores = Max(sysconf(_SC_NPROCESSORS_ONLN), 1);
		participants = cores;
	}
	if (parallel_leader_participation)
		participants--;
	return (int) Max(Min((long) workers, participants), 0);
}

/* Workers a parallel scan of rel by one of our custom scans gets; 0: none. */
static int
parallel_scan_workers(RelOptInfo *rel)
{
	if (!rel->consider_parallel || !storage_engine_enable_parallel_execution ||
		rel->lateral_relids != NULL)
		return 0;
	return cap_workers(compute_parallel_worker(rel, rel->pages, -1,
											   max_parallel_workers_per_gather));
}

/*
 * The same for a plan made after planning, which has no RelOptInfo: by
 * PostgreSQL's rule (compute_parallel_worker) on the table's blocks.
 */
int
parallel_scan_workers_for(Relation relation)
{
	RelOptInfo *rel;

	if (!storage_engine_enable_parallel_execution ||
		relation->rd_rel->relpersistence == RELPERSISTENCE_TEMP)
		return 0;
	rel = makeNode(RelOptInfo);
	rel->reloptkind = RELOPT_BASEREL;
	rel->rel_parallel_workers = -1;
	return cap_workers(compute_parallel_worker(rel,
											   RelationGetNumberOfBlocks(relation),
											   -1, max_parallel_workers_per_gather));
}

/*
 * scan_divisor for a plan made after planning, which has no RelOptInfo: the
 * units of work are the chunk groups or batches of relation that scan (our
 * custom scan of it) reads, as estimated when it was planned.
 */
double
scan_divisor_for(Relation relation, int parallel_workers, CustomScan *scan)
{
	double		unit_rows = 1.0;
	double		rows = relation->rd_rel->reltuples;

	if (is_colcompress(relation))
	{
		ColcompressOptions opts;

		colcompress_options_get(RelationGetRelid(relation), &opts);
		unit_rows = opts.chunk_group_row_limit;
	}
	else if (is_rowcompress(relation))
	{
		RowcompressOptions opts;

		rowcompress_options_get(RelationGetRelid(relation), &opts);
		unit_rows = opts.batch_size;
	}
	if (rows < 0)				/* never analyzed: as many units as it takes */
		return parallel_divisor(parallel_workers);
	return scan_divisor(parallel_workers,
						rows * plan_pruned_fraction(scan) / Max(unit_rows, 1.0));
}

/*
 * A RowcompressScan: for a query that reads no column of the table it
 * counts rows from the batches' metadata and reads no data; for a filter
 * zone maps can test it skips the batches they exclude, and otherwise
 * costs what a sequential scan does, a little less, so that pruning wins
 * at equal cost (the share of batches pruned is not estimated).
 */
static uint32
row_scan_flags(bool parallel)
{
	/* a participant of a parallel scan cannot go back over its batches */
	return parallel ? 0 : CUSTOMPATH_SUPPORT_BACKWARD_SCAN;
}

static CustomPath *
make_row_scan_path(PlannerInfo *root, RelOptInfo *rel, int natts,
				   bool no_columns, int parallel_workers, double pruned,
				   double batch_rows)
{
	CustomPath *path = makeNode(CustomPath);
	QualCost	qual_cost;
	double		rows = rel->tuples * pruned;
	double		divisor = scan_divisor(parallel_workers,
									   rows / Max(batch_rows, 1.0));

	cost_qual_eval(&qual_cost, rel->baserestrictinfo, root);
	path->path.pathtype = T_CustomScan;
	path->path.parent = rel;
	path->path.pathtarget = rel->reltarget;
	path->path.parallel_aware = parallel_workers > 0;
	path->path.parallel_safe = rel->consider_parallel;
	path->path.parallel_workers = parallel_workers;
	path->path.rows = clamp_row_est(rel->rows / divisor);
	path->path.startup_cost = qual_cost.startup;
	path->path.total_cost = qual_cost.startup +
		(cpu_tuple_cost + qual_cost.per_tuple) * rows / divisor;
	if (!no_columns)
		path->path.total_cost += seq_page_cost * rel->pages * pruned * natts / (natts + 1) +
			decode_cost(rows, natts) / divisor;
	compat_path_disable_unless(&path->path, enable_seqscan);
	path->flags = row_scan_flags(parallel_workers > 0);
	path->custom_private = list_make2(makeBoolean(no_columns),
									  pruned_node(pruned));
	path->methods = &row_scan_path_methods;
	return path;
}

/*
 * A scan that reads no column and tests no filter hands over row counts
 * (of chunk groups, of batches from the metadata) to a vectorized
 * count(*), a few milliseconds for a million rows: no parallel plan of the
 * table, ours or the table AM's, can beat it, and one would cost worker
 * start-up (measured: 2.4 ms serial, 10.7 ms with 2 workers).  Costs
 * cannot tell, as they charge every row to the Aggregate above.  So for
 * such a scan this drops the partial paths already made (the table AM's)
 * and says so, and the caller makes none of its own.
 */
static bool
counts_only(RelOptInfo *rel, bool no_columns)
{
	if (!no_columns || rel->baserestrictinfo != NIL)
		return false;
	rel->partial_pathlist = NIL;
	return true;
}

static void
add_row_scan_path(PlannerInfo *root, RelOptInfo *rel, Oid relid, int natts,
				  double batch_rows)
{
	bool		no_columns;
	int			workers;
	Relation	relation;
	double		pruned;

	no_columns = used_columns(list_concat(list_copy(rel->reltarget->exprs),
										  extract_actual_clauses(rel->baserestrictinfo, false)),
							  rel->relid, natts) == NIL;
	relation = table_open(relid, NoLock);
	if (!no_columns && !has_prunable_clause(rel, relation))
	{
		table_close(relation, NoLock);
		return;
	}
	pruned = pruned_fraction(root, rel, relation, batch_rows);
	table_close(relation, NoLock);

	add_path(rel, &make_row_scan_path(root, rel, natts, no_columns, 0, pruned,
									  batch_rows)->path);
	if (counts_only(rel, no_columns))
		return;
	workers = parallel_scan_workers(rel);
	if (workers > 0)
		add_partial_path(rel, &make_row_scan_path(root, rel, natts, no_columns,
												  workers, pruned, batch_rows)->path);
}

static bool
index_paths_allowed(Oid relid)
{
	ColcompressOptions opts;

	if (!storage_engine_enable_columnar_index_scan)
		return false;
	colcompress_options_get(relid, &opts);
	return opts.index_scan;
}

/*
 * Index, index-only and bitmap scans are planned from rel->indexlist: an
 * empty list keeps them out before any path is built.
 */
static void
col_get_relation_info(PlannerInfo *root, Oid relid, bool inhparent,
					  RelOptInfo *rel)
{
	Relation	relation;
	bool		ours;

	if (prev_get_relation_info)
		prev_get_relation_info(root, relid, inhparent, rel);
	if (rel->indexlist == NIL)
		return;
	relation = table_open(relid, NoLock);
	ours = is_colcompress(relation);
	table_close(relation, NoLock);
	if (ours && !index_paths_allowed(relid))
		rel->indexlist = NIL;
}

/*
 * Rows in a frame: at most FRAME_MAX_ROWS of a unit (chunk group or
 * batch) of unit_rows, and, for rowcompress, whose frames hold whole rows,
 * about FRAME_TARGET_RAW_BYTES of rows of row_width bytes.
 */
static double
frame_rows_of(double unit_rows, double row_width)
{
	double		rows = Min(unit_rows, FRAME_MAX_ROWS);

	if (row_width > 0)
		rows = Min(rows, Max(FRAME_TARGET_RAW_BYTES / row_width, 1.0));
	return rows;
}

/*
 * Rows a fetch by TID decodes per colcompress column: a quarter of a
 * frame.  Packed integers and decimals, dictionary codes and raw
 * fixed-width values are read by arithmetic, compressible columns in
 * frames of 4 or 16 kB: on the events table fetching all 17 columns of a
 * row cost what scanning about 320 rows of them did (1,000 rows by primary
 * key 40 ms, every row scanned 124 ms), where a whole frame charged the
 * index scan three times too much, and a parallel scan of every row won.
 */
#define COL_FETCH_FRAME_SHARE	4.0

static double
col_fetch_frame_rows(const ColcompressOptions *opts)
{
	return frame_rows_of(Max(opts->chunk_group_row_limit, 1), 0) /
		COL_FETCH_FRAME_SHARE;
}

/*
 * The correlation of the index's order with the table's, as the index AM
 * estimates it for cost_index (which keeps it to itself).
 */
static double
index_correlation(PlannerInfo *root, IndexPath *path)
{
	Cost		startup;
	Cost		total;
	Selectivity selectivity;
	double		correlation = 0;
	double		pages;

	((amcostestimate_function) path->indexinfo->amcostestimate)
		(root, path, 1.0, &startup, &total, &selectivity, &correlation, &pages);
	return correlation;
}

/*
 * Frames an index or bitmap path decodes per column; 0 for other paths.
 * A bitmap scan fetches in table order: one frame per row fetched, at
 * most every frame of the table.  An index scan fetches in the index's
 * order, and a fetch keeps only the last frame it decoded: rows in an
 * order unlike the table's decode a frame each, however many that makes
 * (a count(DISTINCT user_id) of every row through the user_id index took
 * 880 ms, charged as a tenth of a scan that took 19).  Between the two by
 * the square of the index's correlation, as cost_index interpolates pages.
 */
static double
frames_touched(PlannerInfo *root, RelOptInfo *rel, Path *path,
			   double frame_rows)
{
	double		fetched;
	double		clustered;
	double		correlation;

	if (IsA(path, IndexPath))
		fetched = ((IndexPath *) path)->indexselectivity * rel->tuples;
	else if (IsA(path, BitmapHeapPath))
		fetched = path->rows;
	else
		return 0;
	fetched = Max(fetched, 1.0);
	clustered = Min(fetched, Max(rel->tuples / frame_rows, 1.0));
	if (!IsA(path, IndexPath) || clustered == fetched)
		return clustered;
	correlation = index_correlation(root, (IndexPath *) path);
	return fetched + correlation * correlation * (clustered - fetched);
}

/*
 * The table AM's own parallel scan of our tables (a partial SeqScan, which
 * the vectorized aggregation turns into our batch scan of a rowcompress
 * table) gets no more workers than our scans (cap_workers): on 2 cores a
 * rowcompress Q2 took 105 ms with one worker and 112-118 ms with two.
 * Such paths are made again with that many workers, costed as
 * PostgreSQL costs them; the rest are kept.  (add_partial_path may free
 * the paths it rejects: each is added once, from a list of its own.)
 */
static void
cap_partial_seqscans(PlannerInfo *root, RelOptInfo *rel)
{
	List	   *paths = NIL;
	bool		capped = false;
	ListCell   *lc;

	foreach(lc, rel->partial_pathlist)
	{
		Path	   *path = lfirst(lc);
		int			workers = cap_workers(path->parallel_workers);

		if (path->pathtype == T_SeqScan && workers < path->parallel_workers)
		{
			capped = true;
			if (workers > 0)
				paths = lappend(paths, create_seqscan_path(root, rel, NULL, workers));
		}
		else
			paths = lappend(paths, path);
	}
	if (!capped)
		return;
	rel->partial_pathlist = NIL;
	foreach(lc, paths)
		add_partial_path(rel, lfirst(lc));
}

/*
 * Charges the table AM's paths for decoding.  A sequential scan decodes
 * every column of every row (the table AM cannot know which columns the
 * query needs).  Fetching a row by TID decodes the frame holding it
 * (codec/frames.h) of every column (colcompress) or of the batch
 * (rowcompress): index and bitmap paths pay that once per frame they
 * touch.  Without this, nested loops of index scans look cheap and decode
 * a frame per row, and a plain scan looks cheaper than a bitmap scan that
 * decodes a tenth of the table.  frame_rows is the rows of a frame
 * (frame_rows_of()).
 */
static void
charge_decoding(PlannerInfo *root, RelOptInfo *rel, double frame_rows,
				int natts)
{
	bool		charged_fetches = false;
	Path	   *seqscan;
	ListCell   *lc;

	foreach(lc, rel->pathlist)
	{
		Path	   *path = lfirst(lc);
		double		frames = frames_touched(root, rel, path, frame_rows);

		if (path->pathtype == T_SeqScan)
			path->total_cost += decode_cost(rel->tuples, natts);
		else if (frames > 0)
		{
			path->total_cost += frames * decode_cost(frame_rows, natts);
			charged_fetches = true;
		}
	}
	/*
	 * Partial paths likewise, each participant its share; a parallel bitmap
	 * heap scan decodes every column (only serial ones get a wrapper that
	 * decodes fewer, add_bitmap_columns_paths).
	 */
	foreach(lc, rel->partial_pathlist)
	{
		Path	   *path = lfirst(lc);
		double		frames = frames_touched(root, rel, path, frame_rows);

		if (path->pathtype == T_SeqScan)
			path->total_cost += decode_cost(rel->tuples, natts) /
				parallel_divisor(path->parallel_workers);
		else if (frames > 0)
			path->total_cost += frames * decode_cost(frame_rows, natts) /
				parallel_divisor(path->parallel_workers);
	}

	/* a plain scan the cheaper-looking index paths pushed out comes back */
	if (charged_fetches)
	{
		seqscan = create_seqscan_path(root, rel, NULL, 0);
		seqscan->total_cost += decode_cost(rel->tuples, natts);
		add_path(rel, seqscan);
	}
}

/*
 * Charges PostgreSQL's own parallel paths of a colcompress table (a seq
 * scan by the table AM, a parallel bitmap or index scan) a worker's start
 * as ours are (col_worker_start_cost): otherwise the table AM's parallel
 * scan, which decodes every column, beat our partial path for the start
 * alone.  The same sum on every path keeps the list's order.
 */
static void
charge_worker_starts(RelOptInfo *rel)
{
	ListCell   *lc;

	foreach(lc, rel->partial_pathlist)
	{
		Path	   *path = lfirst(lc);

		path->startup_cost += col_worker_start_cost();
		path->total_cost += col_worker_start_cost();
	}
}

/*
 * What cost_bitmap_heap_scan charged an unparameterized serial bitmap heap
 * path for reading the table's pages, as it computes it.
 */
static Cost
bitmap_page_cost(PlannerInfo *root, RelOptInfo *rel, BitmapHeapPath *path)
{
	Cost		index_cost;
	double		tuples;
	double		pages = compute_bitmap_pages(root, rel, path->bitmapqual, 1,
											 &index_cost, &tuples);
	double		T = rel->pages > 1 ? (double) rel->pages : 1.0;
	double		random_cost;
	double		seq_cost;

	get_tablespace_page_costs(rel->reltablespace, &random_cost, &seq_cost);
	if (pages < 2.0)
		return pages * random_cost;
	return pages * (random_cost - (random_cost - seq_cost) * sqrt(pages / T));
}

/*
 * Bitmap heap paths of a colcompress table that decode only the nused
 * columns the query reads (fetch_columns.c) replace the plain ones,
 * cheaper by the other columns' frames and, as a plain scan of those
 * columns is charged (cost_col_path), by the other columns' share of the
 * pages PostgreSQL charged for.  Without the second, a bitmap scan of a
 * few columns that touches every chunk group looked dearer than a
 * parallel scan evaluating its condition on every row (seen: GIN
 * `tags @> ...` on 5% of the rows, 20 ms, lost to a 150 ms parallel
 * scan).
 */
static void
add_bitmap_columns_paths(PlannerInfo *root, RelOptInfo *rel,
						 double frame_rows, int natts, int nused)
{
	List	   *bitmap_paths = NIL;
	ListCell   *lc;

	foreach(lc, rel->pathlist)
		if (IsA(lfirst(lc), BitmapHeapPath) &&
			!((Path *) lfirst(lc))->parallel_aware)
			bitmap_paths = lappend(bitmap_paths, lfirst(lc));
	foreach(lc, bitmap_paths)
	{
		Path	   *path = lfirst(lc);
		Cost		saved = frames_touched(root, rel, path, frame_rows) *
			decode_cost(frame_rows, natts - nused);

		/* a parameterized path's loop count is not kept: left as it is */
		if (path->param_info == NULL)
			saved += bitmap_page_cost(root, rel, (BitmapHeapPath *) path) *
				(1.0 - pages_read_fraction(natts, nused));

		/* add_path frees the paths it rejects: the wrapper keeps this one */
		rel->pathlist = list_delete_ptr(rel->pathlist, path);
		add_path(rel, bitmap_columns_path(path, saved));
	}
}

/*
 * Index and index-only paths of a colcompress table that decode only the
 * nused columns the query reads, or none (fetch_columns.c), replace the
 * plain ones, cheaper by the other columns' frames.
 */
static void
add_index_columns_paths(PlannerInfo *root, RelOptInfo *rel,
						double frame_rows, int natts, int nused)
{
	List	   *index_paths = NIL;
	ListCell   *lc;

	foreach(lc, rel->pathlist)
		if (IsA(lfirst(lc), IndexPath) &&
			!((Path *) lfirst(lc))->parallel_aware &&
			(((Path *) lfirst(lc))->pathtype == T_IndexOnlyScan || nused < natts))
			index_paths = lappend(index_paths, lfirst(lc));
	foreach(lc, index_paths)
	{
		IndexPath  *path = lfirst(lc);
		int			decoded = path->path.pathtype == T_IndexOnlyScan ? 0 : nused;
		Cost		saved = frames_touched(root, rel, &path->path, frame_rows) *
			decode_cost(frame_rows, natts - decoded);

		/* add_path frees the paths it rejects: the wrapper keeps this one */
		rel->pathlist = list_delete_ptr(rel->pathlist, path);
		add_path(rel, index_columns_path(path, saved));
	}
}

static void
col_set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
					 RangeTblEntry *rte)
{
	Relation	relation;
	ColcompressOptions opts;
	int			natts;
	List	   *used;
	int			nused;
	int			workers;
	double		pruned;

	if (prev_set_rel_pathlist)
		prev_set_rel_pathlist(root, rel, rti, rte);

	/*
	 * Tables and partitions (members of an append relation) alike;
	 * TABLESAMPLE is the sample scan's business.  A table with inheritance
	 * children (rte->inh) is an append relation here: its paths are
	 * Appends over the members, its own rows one of them (a scan of the
	 * table alone returned the parent's rows only).
	 */
	if (!IS_SIMPLE_REL(rel) || rte->rtekind != RTE_RELATION || rte->inh ||
		rte->relkind == RELKIND_PARTITIONED_TABLE || rte->tablesample != NULL)
		return;
	relation = table_open(rte->relid, NoLock);
	natts = RelationGetDescr(relation)->natts;
	if (is_rowcompress(relation))
	{
		RowcompressOptions ropts;

		table_close(relation, NoLock);
		rowcompress_options_get(rte->relid, &ropts);
		cap_partial_seqscans(root, rel);
		charge_decoding(root, rel,
						frame_rows_of(Max(ropts.batch_size, 1),
									  get_relation_data_width(rte->relid, NULL)),
						natts);
		if (storage_engine_enable_custom_scan && !uses_row_system_columns(rel))
			add_row_scan_path(root, rel, rte->relid, natts,
							  Max(ropts.batch_size, 1));
		return;
	}
	if (!is_colcompress(relation))
	{
		table_close(relation, NoLock);
		return;
	}
	colcompress_options_get(rte->relid, &opts);
	pruned = pruned_fraction(root, rel, relation,
							 Max(opts.chunk_group_row_limit, 1));
	table_close(relation, NoLock);
	cap_partial_seqscans(root, rel);
	charge_decoding(root, rel, col_fetch_frame_rows(&opts), natts);
	charge_worker_starts(rel);

	used = used_columns(list_concat(list_copy(rel->reltarget->exprs),
									extract_actual_clauses(rel->baserestrictinfo, false)),
						rel->relid, natts);
	nused = list_length(used);
	if (storage_engine_enable_bitmap_projection && nused < natts)
		add_bitmap_columns_paths(root, rel, col_fetch_frame_rows(&opts),
								 natts, nused);
	if (storage_engine_enable_index_projection)
		add_index_columns_paths(root, rel, col_fetch_frame_rows(&opts), natts,
								nused);

	/* the table AM's own parallel scan obeys the same switch */
	if (!storage_engine_enable_parallel_execution)
		rel->partial_pathlist = NIL;
	if (!storage_engine_enable_custom_scan || uses_row_system_columns(rel))
		return;

	add_path(rel, (Path *) make_col_path(root, rel, natts, nused, 0, pruned,
										 opts.chunk_group_row_limit));
	if (counts_only(rel, nused == 0))
		return;

	workers = parallel_scan_workers(rel);
	if (workers > 0)
		add_partial_path(rel, (Path *) make_col_path(root, rel, natts, nused,
													 workers, pruned,
													 opts.chunk_group_row_limit));
}

/* The clauses of actual (a list of clauses) that zone maps can test. */
static List *
prunable_clauses(List *actual, Index relid, Relation relation)
{
	List	   *prunable = NIL;
	ListCell   *lc;

	if (storage_engine_enable_pruning)
		foreach(lc, actual)
			if (prune_clause_supported(lfirst(lc), relid, relation))
				prunable = lappend(prunable, copyObject(lfirst(lc)));
	return prunable;
}

static Plan *
plan_col_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
			  List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *actual = extract_actual_clauses(clauses, false);
	Relation	relation = table_open(planner_rt_fetch(rel->relid, root)->relid, NoLock);
	List	   *prunable = prunable_clauses(actual, rel->relid, relation);

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = actual;
	cscan->scan.scanrelid = rel->relid;
	cscan->flags = best_path->flags;
	cscan->methods = &col_scan_methods;
	cscan->custom_private = best_path->custom_private;
	cscan->custom_exprs = prunable;
	/* the columns it reads come from its final target list, at execution */
	table_close(relation, NoLock);
	return &cscan->scan.plan;
}

static Plan *
plan_row_scan_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				   List *tlist, List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	List	   *actual = extract_actual_clauses(clauses, false);
	Relation	relation = table_open(planner_rt_fetch(rel->relid, root)->relid, NoLock);

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = actual;
	cscan->scan.scanrelid = rel->relid;
	cscan->flags = best_path->flags;
	cscan->methods = &row_scan_methods;
	cscan->custom_exprs = prunable_clauses(actual, rel->relid, relation);
	cscan->custom_private = best_path->custom_private;
	table_close(relation, NoLock);
	return &cscan->scan.plan;
}

Plan *
row_scan_plan_from_seqscan(Scan *scan)
{
	CustomScan *cscan = makeNode(CustomScan);

	cscan->scan = *scan;
	NodeSetTag(cscan, T_CustomScan);
	cscan->scan.plan.lefttree = NULL;
	cscan->scan.plan.righttree = NULL;
	cscan->flags = row_scan_flags(scan->plan.parallel_aware);
	cscan->methods = &row_scan_methods;
	cscan->custom_exprs = NIL;
	cscan->custom_private = list_make2(makeBoolean(false), pruned_node(1.0));
	return &cscan->scan.plan;
}

void
col_scan_planner_init(void)
{
	prev_get_relation_info = get_relation_info_hook;
	get_relation_info_hook = col_get_relation_info;
	prev_set_rel_pathlist = set_rel_pathlist_hook;
	set_rel_pathlist_hook = col_set_rel_pathlist;
}
