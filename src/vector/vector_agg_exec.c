/*-------------------------------------------------------------------------
 *
 * vector_agg_exec.c
 *	  Execution of ColcompressVectorAgg: pulls the ColcompressScan's
 *	  batches (col_scan_next_batch), maps their rows to groups, adds each
 *	  aggregate's column into per-group states with its kernel, then
 *	  returns one row per group.  As RowcompressVectorAgg it pulls a
 *	  RowcompressScan's batches (row_scan_next_batch) the same way; those
 *	  of a scan reading no column have no column, for count(*).
 *
 *	  The original Agg is initialized too, with the scan below it: when a
 *	  kernel meets a value it cannot compute exactly, when the groups
 *	  outgrow hash_mem (the Agg could spill to disk, this node cannot), or
 *	  when storage_engine.enable_vectorized_aggregation is off at
 *	  execution, the scan is rewound and the Agg computes the query; the
 *	  node then only passes its rows on.  Nothing has been returned by
 *	  then: aggregation reads all of its input before the first row.
 *
 *	  As the partial half of a parallel aggregation (below a Gather, the
 *	  Finalize Aggregate above it) the node emits PostgreSQL's partial
 *	  states, and cannot start over: a parallel scan's rows are gone once
 *	  read.  So it decides before reading, from the zone maps of the
 *	  stripes or batches, that no value can make a kernel give up
 *	  (agg_kernel_safe), or lets
 *	  the Agg do this participant's share; and when its groups outgrow
 *	  hash_mem it emits them and starts new ones, which the Finalize
 *	  Aggregate combines.
 *
 *	  A parallel aggregation of the nodes' own (vector_agg.h) needs no such
 *	  decision: an EXPORT node that meets a value its kernels cannot take
 *	  says so in its output and stops, and the COMBINE node above the
 *	  Gather then stops the participants and lets the Agg, over a scan of
 *	  its own, compute the query; so it does when the combined groups
 *	  outgrow hash_mem.  It has returned nothing by then either.
 *
 *	  Keys and aggregate arguments are the scan's columns, taken from the
 *	  batch as they are, or expressions over them, evaluated for each
 *	  selected row on the scan's slot into arrays of the batch's size.
 *
 *	  Memory: agg_cxt holds the groups, keys and states for the node's
 *	  life (reset on rescan); batch_cxt a batch's computed inputs; out_cxt
 *	  each returned row's results.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "commands/explain.h"
#include COMPAT_EXPLAIN_FORMAT_HEADER
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "catalog/zone_map.h"
#include "utils/memutils.h"
#include "utils/sortsupport.h"
#include "utils/rel.h"
#include "utils/builtins.h"
#include "utils/ruleutils.h"

#include "guc.h"
#include "scan/col_customscan.h"
#include "scan/row_customscan.h"
#include "vector/agg_bounds.h"
#include "vector/agg_grouping.h"
#include "vector/agg_kernels.h"
#include "vector/agg_partial.h"
#include "vector/numeric_scaled.h"
#include "vector/vector_agg.h"

/*
 * A key or an aggregate's argument: a column of the batch (attno), or an
 * expression computed row by row into values/isnull.
 */
typedef struct VecInput
{
	int			attno;			/* 0-based column; -1: expr */
	Expr	   *source;			/* the expression, over the scan's columns */
	ExprState  *expr;
	ColumnBatch computed;
	uint32		computed_size;	/* rows computed's arrays have room for */
} VecInput;

/* One output column: a group key, or an aggregate's kernel and input. */
typedef struct VecAggColumn
{
	const AggKernel *kernel;	/* NULL: group key key */
	int			key;
	bool		has_input;		/* false: count(*) */
	VecInput	input;
	char	   *states;			/* [allocated groups] of state_size */
	void	   *info;			/* what the kernel's setup made */
	/* a column other kernels also read as scaled numerics: made once */
	bool		shares_scaled;
	ColumnBatch view;			/* the column with its scaled values */
	/* -1, or the earlier column whose states this one's results read */
	int			same_as;
} VecAggColumn;

/* What the node asks of the scan below it: one for each access method. */
typedef struct BatchSource
{
	/* the columns its batches must load; NULL: the scan knows */
	void		(*batch_columns) (CustomScanState *scan, const Bitmapset *columns);
	/* the numeric columns read only as scaled integers; NULL: none are */
	void		(*scaled_columns) (CustomScanState *scan, const Bitmapset *columns);
	RowBatch   *(*next_batch) (CustomScanState *scan);
	TupleTableSlot *(*batch_row) (CustomScanState *scan, uint32 row);
	bool		(*zones_all) (CustomScanState *scan, ZoneTestFn test, void *arg);
} BatchSource;

static const BatchSource col_source = {
	NULL, col_scan_scaled_columns, col_scan_next_batch, col_scan_batch_row,
	col_scan_zones_all
};

static const BatchSource row_source = {
	row_scan_batch_columns, NULL, row_scan_next_batch, row_scan_batch_row,
	row_scan_zones_all
};

typedef struct VecAggState
{
	CustomScanState css;
	PlanState  *agg;			/* the original Agg */
	CustomScanState *scan;		/* the ColcompressScan or RowcompressScan */
	const BatchSource *source;	/* the scan's */
	int			nkeys;
	VecInput   *keys;			/* [nkeys] */
	ColumnBatch **key_batches;	/* [nkeys], for the grouping */
	VecAggMode	mode;
	VecInput  **exprs;			/* the inputs that are expressions */
	int			nexprs;
	PlanState  *gather;			/* COMBINE: the Gather of the participants */
	int			naggs;			/* columns that are aggregates */
	bool		gave_up;		/* EXPORT: a value the kernels cannot take */
	bool		kernels_ready;	/* every kernel's setup succeeded */
	/* a batch's columns as scaled numerics, by attno (NULL: not made) */
	struct ScaledNumeric **scaled;
	/* GroupAggregate: groups come out in the Sort's order (NULL: any) */
	SortSupport key_order;		/* [nkeys] */
	uint32	   *order;			/* the groups, sorted */
	int			ncolumns;
	VecAggColumn *columns;

	AggGrouping *grouping;
	uint32		allocated;		/* groups each states array has room for */
	uint32	   *groups;			/* a batch's group of each row */
	uint32		groups_size;
	uint32		next_group;		/* next to return */

	bool		started;
	bool		input_done;		/* the scan has no more batches */
	bool		fell_back;		/* the Agg computes the query */
	const char *fallback_reason;
	uint64		batches;

	MemoryContext agg_cxt;
	MemoryContext batch_cxt;
	MemoryContext out_cxt;
} VecAggState;

static Node *create_vector_agg_state(CustomScan *cscan);
static void share_states(VecAggState *state);
static void share_scaled(VecAggState *state);
static void ask_scaled(VecAggState *state);
static void begin_vector_agg(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_vector_agg(CustomScanState *node);
static void end_vector_agg(CustomScanState *node);
static void rescan_vector_agg(CustomScanState *node);
static void explain_vector_agg(CustomScanState *node, List *ancestors,
							   ExplainState *es);

const CustomScanMethods vector_agg_plan_methods = {
	.CustomName = VECTOR_AGG_NAME,
	.CreateCustomScanState = create_vector_agg_state,
};

const CustomScanMethods row_vector_agg_plan_methods = {
	.CustomName = ROW_VECTOR_AGG_NAME,
	.CreateCustomScanState = create_vector_agg_state,
};

static const CustomExecMethods vector_agg_exec_methods = {
	.CustomName = VECTOR_AGG_NAME,
	.BeginCustomScan = begin_vector_agg,
	.ExecCustomScan = exec_vector_agg,
	.EndCustomScan = end_vector_agg,
	.ReScanCustomScan = rescan_vector_agg,
	.ExplainCustomScan = explain_vector_agg,
};

static Node *
create_vector_agg_state(CustomScan *cscan)
{
	VecAggState *state = (VecAggState *) newNode(sizeof(VecAggState),
												 T_CustomScanState);

	state->css.methods = &vector_agg_exec_methods;
	return (Node *) state;
}

/* Position of expr in list (equal()), -1 if absent. */
static int
list_position(List *list, Expr *expr)
{
	ListCell   *lc;

	foreach(lc, list)
		if (equal(lfirst(lc), expr))
			return foreach_current_index(lc);
	return -1;
}

/*
 * A plain column is read from the batch, anything else computed per row.
 * The expression belongs to the scan's plan state: its rows are the scan's
 * (its slot type and descriptor, which a JIT-compiled deform relies on).
 */
static void
init_input(VecAggState *state, Expr *expr, VecInput *input)
{
	if (IsA(expr, Var))
		input->attno = ((Var *) expr)->varattno - 1;
	else
	{
		input->attno = -1;
		input->source = expr;
		input->expr = ExecInitExpr(expr, &state->scan->ss.ps);
		state->exprs[state->nexprs++] = input;
	}
}

/*
 * The input's values for batch b: its column, or (an expression) the
 * values compute_expressions computed.
 */
static ColumnBatch *
input_values(VecInput *input, RowBatch *b)
{
	return input->attno >= 0 ? &b->cols[input->attno] : &input->computed;
}

/* Does col's kernel read a column of the batch (not an expression)? */
static bool
reads_column(const VecAggColumn *col)
{
	return col->kernel != NULL && col->has_input && col->input.attno >= 0;
}

/* Does col's kernel read one of the natts columns as scaled numerics? */
static bool
reads_scaled_column(const VecAggColumn *col, int natts)
{
	return reads_column(col) && col->input.attno < natts &&
		agg_kernel_reads_scaled(col->kernel);
}

/*
 * Asks the scan to leave as scaled integers the numeric columns that only
 * sum, avg, min and max read (agg_kernel_reads_scaled): their
 * numerics are then never written, but a new minimum's or maximum's.  A
 * column something else reads too (a key, an expression, the scan's
 * filter) gets its values written when that reads them (make_values,
 * batch_make_value), so the ask is only about speed.
 */
static void
ask_scaled(VecAggState *state)
{
	int			natts = RelationGetDescr(state->scan->ss.ss_currentRelation)->natts;
	Bitmapset  *columns = NULL;
	int			i;

	if (state->source->scaled_columns == NULL)
		return;
	for (i = 0; i < state->ncolumns; i++)
		if (reads_scaled_column(&state->columns[i], natts))
			columns = bms_add_member(columns, state->columns[i].input.attno + 1);
	if (columns != NULL)
		state->source->scaled_columns(state->scan, columns);
}

/*
 * Writes the values of batch b's columns that the keys and the kernels
 * reading more than scaled integers take, where the scan left them scaled.
 */
static void
make_values(VecAggState *state, RowBatch *b)
{
	int			i;

	for (i = 0; i < state->nkeys; i++)
		if (state->keys[i].attno >= 0)
			batch_make_values(&b->cols[state->keys[i].attno], b->nrows);
	for (i = 0; i < state->ncolumns; i++)
	{
		VecAggColumn *col = &state->columns[i];

		if (reads_column(col) && !agg_kernel_reads_scaled(col->kernel))
			batch_make_values(&b->cols[col->input.attno], b->nrows);
	}
}

/*
 * Computes every expression input (keys and arguments) for the selected
 * rows of batch b, in batch_cxt: each row goes to the scan's slot once for
 * all of them.
 */
static void
compute_expressions(VecAggState *state, RowBatch *b)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	MemoryContext old;
	uint32		k;
	int			i;

	if (state->nexprs == 0)
		return;
	for (i = 0; i < state->nexprs; i++)
	{
		VecInput   *input = state->exprs[i];

		if (input->computed_size < b->nrows)
		{
			input->computed.values = MemoryContextAllocHuge(state->agg_cxt,
															sizeof(Datum) * b->nrows);
			input->computed.isnull = MemoryContextAllocHuge(state->agg_cxt,
															sizeof(bool) * b->nrows);
			input->computed_size = b->nrows;
		}
	}
	old = MemoryContextSwitchTo(state->batch_cxt);
	for (k = 0; k < b->nsel; k++)
	{
		uint32		row = b->sel != NULL ? b->sel[k] : k;

		econtext->ecxt_scantuple = state->source->batch_row(state->scan, row);
		for (i = 0; i < state->nexprs; i++)
		{
			VecInput   *input = state->exprs[i];

			input->computed.values[row] = ExecEvalExpr(input->expr, econtext,
													   &input->computed.isnull[row]);
		}
	}
	MemoryContextSwitchTo(old);
}

static void
begin_vector_agg(CustomScanState *node, EState *estate, int eflags)
{
	VecAggState *state = (VecAggState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	ListCell   *lc;
	int			i = 0;

	state->mode = (VecAggMode) linitial_int(cscan->custom_private);
	if (state->mode == VEC_AGG_EXPORT)
	{
		/* a participant: the parallel scan, nothing to fall back to */
		state->scan = (CustomScanState *) ExecInitNode(linitial(cscan->custom_plans),
													   estate, eflags);
	}
	else
	{
		state->agg = ExecInitNode(linitial(cscan->custom_plans), estate, eflags);
		state->scan = (CustomScanState *) outerPlanState(state->agg);
		/* a GroupAggregate's input: the Sort of the scan */
		if (IsA(state->scan, SortState))
			state->scan = (CustomScanState *) outerPlanState(state->scan);
	}
	state->source = cscan->methods == &row_vector_agg_plan_methods ?
		&row_source : &col_source;
	/* EXPLAIN shows the scan (or the Gather) under this node; the Agg is a reserve */
	if (state->mode == VEC_AGG_COMBINE)
	{
		state->gather = ExecInitNode(lsecond(cscan->custom_plans), estate, eflags);
		node->custom_ps = list_make1(state->gather);
	}
	else
		node->custom_ps = list_make1(state->scan);

	state->nkeys = list_length(cscan->custom_exprs);
	state->keys = palloc0(sizeof(VecInput) * Max(state->nkeys, 1));
	state->exprs = palloc(sizeof(VecInput *) *
						  (state->nkeys + list_length(cscan->custom_scan_tlist) + 1));
	state->key_batches = palloc0(sizeof(ColumnBatch *) * Max(state->nkeys, 1));
	/* COMBINE: keys and states come in the participants' rows */
	if (state->mode != VEC_AGG_COMBINE)
		foreach(lc, cscan->custom_exprs)
			init_input(state, lfirst(lc), &state->keys[i++]);
	if (list_length(cscan->custom_private) > 1)
	{
		state->key_order = palloc0(sizeof(SortSupportData) * state->nkeys);
		for (i = 0; i < state->nkeys; i++)
		{
			SortSupport ssup = &state->key_order[i];

			ssup->ssup_cxt = CurrentMemoryContext;
			ssup->ssup_collation = (Oid) list_nth_int(cscan->custom_private, 3 * i + 2);
			ssup->ssup_nulls_first = list_nth_int(cscan->custom_private, 3 * i + 3) != 0;
			PrepareSortSupportFromOrderingOp((Oid) list_nth_int(cscan->custom_private, 3 * i + 1),
											 ssup);
		}
	}
	state->kernels_ready = true;
	state->ncolumns = list_length(cscan->custom_scan_tlist);
	state->columns = palloc0(sizeof(VecAggColumn) * Max(state->ncolumns, 1));
	i = 0;
	foreach(lc, cscan->custom_scan_tlist)
	{
		TargetEntry *te = lfirst(lc);
		VecAggColumn *col = &state->columns[i++];

		col->same_as = -1;
		if (IsA(te->expr, Aggref))
		{
			Aggref	   *aggref = (Aggref *) te->expr;

			col->kernel = agg_kernel_for(aggref, aggref->aggsplit);
			state->naggs++;
			if (col->kernel->setup != NULL &&
				!col->kernel->setup(aggref, state->mode == VEC_AGG_PARTIAL,
									&col->info))
				state->kernels_ready = false;
			col->has_input = aggref->args != NIL;
			if (col->has_input && state->mode != VEC_AGG_COMBINE)
				init_input(state, ((TargetEntry *) linitial(aggref->args))->expr,
						   &col->input);
		}
		else
			col->key = list_position(cscan->custom_exprs, te->expr);
	}
	if (state->mode != VEC_AGG_COMBINE)
	{
		share_states(state);
		share_scaled(state);
		ask_scaled(state);
	}
	if (state->source->batch_columns != NULL && state->mode != VEC_AGG_COMBINE)
	{
		Bitmapset  *columns = NULL;

		for (i = 0; i < state->nkeys; i++)
			if (state->keys[i].attno >= 0)
				columns = bms_add_member(columns, state->keys[i].attno + 1);
		for (i = 0; i < state->ncolumns; i++)
			if (state->columns[i].has_input && state->columns[i].input.attno >= 0)
				columns = bms_add_member(columns, state->columns[i].input.attno + 1);
		state->source->batch_columns(state->scan, columns);
	}
	state->agg_cxt = AllocSetContextCreate(CurrentMemoryContext,
										   "vectorized aggregation",
										   ALLOCSET_DEFAULT_SIZES);
	state->batch_cxt = AllocSetContextCreate(CurrentMemoryContext,
											 "vectorized aggregation batch",
											 ALLOCSET_DEFAULT_SIZES);
	state->out_cxt = AllocSetContextCreate(CurrentMemoryContext,
										   "vectorized aggregation result",
										   ALLOCSET_SMALL_SIZES);
}

/*
 * Points each aggregate whose kernel keeps the same state over the same
 * input as an earlier one (sum and avg of a column; one aggregate twice)
 * at that one's states, which only that one adds to: on the benchmark's
 * sum and avg of a numeric column, adding each value twice was a quarter
 * of the query.  A participant's merged states (COMBINE) stay apart.
 */
static void
share_states(VecAggState *state)
{
	int			i;
	int			j;

	for (i = 0; i < state->ncolumns; i++)
	{
		VecAggColumn *col = &state->columns[i];

		if (col->kernel == NULL)
			continue;
		for (j = 0; j < i; j++)
		{
			VecAggColumn *other = &state->columns[j];

			if (other->kernel == NULL || other->same_as >= 0 ||
				!agg_kernel_same_state(other->kernel, col->kernel) ||
				other->has_input != col->has_input)
				continue;
			if (col->has_input &&
				(other->input.attno != col->input.attno ||
				 (col->input.attno < 0 &&
				  !equal(other->input.source, col->input.source))))
				continue;
			col->same_as = j;
			break;
		}
	}
}

/* The states col's results read: its own, or those it shares. */
static char *
states_of(VecAggState *state, VecAggColumn *col)
{
	return col->same_as >= 0 ? state->columns[col->same_as].states :
		col->states;
}

#ifdef VEC_HAVE_SCALED_NUMERIC
/*
 * Marks the columns that two or more kernels read as scaled numerics (sum,
 * avg, min and max of one numeric column): a batch's values are converted
 * once for all of them (scaled_view), which was half of such a query.
 */
static void
share_scaled(VecAggState *state)
{
	int			natts = RelationGetDescr(state->scan->ss.ss_currentRelation)->natts;
	int		   *readers = palloc0(sizeof(int) * (natts + 1));
	int			i;

	for (i = 0; i < state->ncolumns; i++)
		if (reads_scaled_column(&state->columns[i], natts) &&
			state->columns[i].same_as < 0)
			readers[state->columns[i].input.attno]++;
	for (i = 0; i < state->ncolumns; i++)
	{
		VecAggColumn *col = &state->columns[i];

		if (reads_scaled_column(col, natts) && col->same_as < 0 &&
			readers[col->input.attno] > 1)
		{
			col->shares_scaled = true;
			if (state->scaled == NULL)
				state->scaled = palloc0(sizeof(ScaledNumeric *) * natts);
		}
	}
	pfree(readers);
}

/*
 * The column col reads in batch b, with its values as scaled numerics,
 * converted once per batch for every kernel reading the column (in
 * batch_cxt, reset with the batch).
 */
static ColumnBatch *
scaled_view(VecAggState *state, VecAggColumn *col, RowBatch *b)
{
	ColumnBatch *in = &b->cols[col->input.attno];
	ScaledNumeric **scaled = &state->scaled[col->input.attno];

	/* the scan's packed decimals, already scaled */
	if (in->scaled != NULL)
		return in;
	if (*scaled == NULL)
	{
		uint32		k;

		*scaled = MemoryContextAllocHuge(state->batch_cxt,
										 sizeof(ScaledNumeric) * Max(b->nrows, 1));
		for (k = 0; k < b->nsel; k++)
		{
			uint32		row = b->sel != NULL ? b->sel[k] : k;
			ScaledNumeric *s = &(*scaled)[row];
			int			dscale;

			if (in->isnull[row])
				continue;
			s->ok = numeric_to_scaled(in->values[row], &s->mantissa, &dscale);
			s->dscale = dscale;
		}
	}
	col->view = *in;
	col->view.scaled = *scaled;
	return &col->view;
}
#else
/* no kernel reads scaled numerics without 128-bit integers */
static void
share_scaled(VecAggState *state)
{
}

static ColumnBatch *
scaled_view(VecAggState *state, VecAggColumn *col, RowBatch *b)
{
	elog(ERROR, "scaled numerics need 128-bit integers");
	return NULL;
}
#endif

/* Gives every states array room for the grouping's groups, zeroed. */
static void
grow_states(VecAggState *state)
{
	uint32		need = state->grouping->ngroups;
	uint32		allocated = Max(state->allocated, 16);
	int			i;

	if (need <= state->allocated)
		return;
	while (allocated < need)
		allocated *= 2;
	for (i = 0; i < state->ncolumns; i++)
	{
		VecAggColumn *col = &state->columns[i];
		Size		size;

		if (col->kernel == NULL || col->same_as >= 0)
			continue;
		size = col->kernel->state_size;
		if (col->states == NULL)
			col->states = MemoryContextAllocExtended(state->agg_cxt, size * allocated,
													  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		else
		{
			col->states = repalloc_huge(col->states, size * allocated);
			memset(col->states + size * state->allocated, 0,
				   size * (allocated - state->allocated));
		}
	}
	state->allocated = allocated;
}

/* Frees the groups and their states. */
static void
reset_groups(VecAggState *state)
{
	int			i;

	MemoryContextReset(state->agg_cxt);
	state->grouping = NULL;
	state->allocated = 0;
	state->groups = NULL;
	state->groups_size = 0;
	for (i = 0; i < state->ncolumns; i++)
	{
		state->columns[i].states = NULL;
		state->columns[i].input.computed_size = 0;
	}
	for (i = 0; i < state->nkeys; i++)
		state->keys[i].computed_size = 0;
	state->next_group = 0;
	state->order = NULL;
}

/*
 * Lets the Agg compute the query, rewinding the scan if it has been read
 * (never in a partial aggregation: see the header).  A participant of the
 * nodes' own parallel aggregation has no Agg: it gives up, which the
 * COMBINE node sees and falls back on.
 */
static void
fall_back(VecAggState *state, const char *reason)
{
	if (state->mode == VEC_AGG_PARTIAL && state->batches > 0)
		elog(ERROR, "vectorized partial aggregation met a value its zone maps excluded");
	if (state->mode == VEC_AGG_EXPORT)
	{
		reset_groups(state);
		state->gave_up = true;
		state->input_done = true;
		return;
	}
	if (state->gather != NULL)
		ExecShutdownNode(state->gather);	/* stops the participants */
	state->fell_back = true;
	state->fallback_reason = reason;
	if (state->batches > 0)
		ExecReScan(&state->scan->ss.ps);
	reset_groups(state);
}

/*
 * What partial_safe asks of each zone (stripe, batch) about one column or
 * one expression over the scan's columns (expr, with attr one of them).
 */
typedef struct ZoneCheck
{
	const AggKernel *kernel;
	Form_pg_attribute attr;
	Expr	   *expr;
	TupleDesc	desc;
	uint64		rows;			/* in every zone: summed first */
} ZoneCheck;

static bool
zone_add_rows(void *arg, ZoneStatsFn stats_fn, void *zone)
{
	ZoneCheck  *check = arg;
	ZoneStats	s;

	/* unknown: bounds kept in another ordering (ALTER COLUMN TYPE) */
	if (!stats_fn(zone, check->attr->attnum, &s))
		return false;
	check->rows += s.row_count;
	return true;
}

static bool
zone_kernel_safe(void *arg, ZoneStatsFn stats_fn, void *zone)
{
	ZoneCheck  *check = arg;
	ZoneStats	s;

	if (check->expr != NULL)
	{
		AggExprBounds b;

		return agg_expr_bounds(check->expr, check->desc, stats_fn, zone, &b) &&
			agg_kernel_safe_bounds(check->kernel, &b, check->rows);
	}
	if (!stats_fn(zone, check->attr->attnum, &s))
		return false;
	if (s.null_count >= s.row_count)
		return true;			/* no values */
	return s.min != NULL && s.max != NULL &&
		agg_kernel_safe(check->kernel, check->attr,
						zone_bound_deserialize(s.min, check->attr),
						zone_bound_deserialize(s.max, check->attr),
						check->rows);
}

/*
 * Partial aggregation: can every kernel take every value of its column?
 * Decided from the zone maps of what the scan reads, before reading.
 */
static bool
partial_safe(VecAggState *state)
{
	TupleDesc	desc = RelationGetDescr(state->scan->ss.ss_currentRelation);
	int			i;

	for (i = 0; i < state->ncolumns; i++)
	{
		VecAggColumn *col = &state->columns[i];
		ZoneCheck	check;

		if (col->kernel == NULL || col->kernel->safety == AGG_SAFE_ALWAYS)
			continue;
		check.kernel = col->kernel;
		check.expr = NULL;
		check.desc = desc;
		check.rows = 0;
		if (col->input.attno >= 0)
			check.attr = TupleDescAttr(desc, col->input.attno);
		else
		{
			/* an expression: bounded from its columns' (agg_bounds.c) */
			List	   *vars = pull_var_clause((Node *) col->input.source, 0);
			Var		   *first;

			if (vars == NIL)
				return false;
			first = linitial(vars);
			if (first->varattno < 1 || first->varattno > desc->natts)
				return false;
			check.attr = TupleDescAttr(desc, first->varattno - 1);
			check.expr = col->input.source;
		}
		if (!state->source->zones_all(state->scan, zone_add_rows, &check) ||
			!state->source->zones_all(state->scan, zone_kernel_safe, &check))
			return false;
	}
	return true;
}

/* Adds one batch; false if the Agg must take over. */
static bool
add_batch(VecAggState *state, RowBatch *b)
{
	const uint32 *groups = NULL;
	MemoryContext old;
	int			i;

	MemoryContextReset(state->batch_cxt);
	ResetExprContext(state->css.ss.ps.ps_ExprContext);
	if (state->scaled != NULL)
		memset(state->scaled, 0, sizeof(ScaledNumeric *) *
			   RelationGetDescr(state->scan->ss.ss_currentRelation)->natts);
	make_values(state, b);
	compute_expressions(state, b);
	if (state->grouping->methods != NULL)
	{
		for (i = 0; i < state->nkeys; i++)
			state->key_batches[i] = input_values(&state->keys[i], b);
		if (state->groups_size < b->nrows)
		{
			state->groups = MemoryContextAllocHuge(state->agg_cxt,
												   sizeof(uint32) * b->nrows);
			state->groups_size = b->nrows;
		}
		state->grouping->methods->assign(state->grouping, state->key_batches,
										 b->sel, b->nsel, state->groups);
		groups = state->groups;
	}
	grow_states(state);

	/* kernels that keep values (percentile) allocate in the groups' memory */
	old = MemoryContextSwitchTo(state->agg_cxt);
	for (i = 0; i < state->ncolumns; i++)
	{
		VecAggColumn *col = &state->columns[i];

		if (col->kernel == NULL || col->same_as >= 0)
			continue;
		if (!col->kernel->add(col->states, groups,
							  col->shares_scaled ? scaled_view(state, col, b) :
							  col->has_input ? input_values(&col->input, b) : NULL,
							  b->sel, b->nsel))
		{
			MemoryContextSwitchTo(old);
			fall_back(state, "a value the kernels do not compute exactly");
			return false;
		}
	}
	MemoryContextSwitchTo(old);
	return true;
}

static int
compare_groups(const void *a, const void *b, void *arg)
{
	VecAggState *state = arg;
	AggGrouping *g = state->grouping;
	int			k;

	for (k = 0; k < state->nkeys; k++)
	{
		bool		a_null;
		bool		b_null;
		Datum		a_key = g->methods->key(g, *(const uint32 *) a, k, &a_null);
		Datum		b_key = g->methods->key(g, *(const uint32 *) b, k, &b_null);
		int			c = ApplySortComparator(a_key, a_null, b_key, b_null,
											&state->key_order[k]);

		if (c != 0)
			return c;
	}
	return 0;
}

/* A GroupAggregate's groups in its Sort's order. */
static void
order_groups(VecAggState *state)
{
	uint32		n = state->grouping->ngroups;
	uint32		i;

	state->order = MemoryContextAllocHuge(state->agg_cxt, sizeof(uint32) * Max(n, 1));
	for (i = 0; i < n; i++)
		state->order[i] = i;
	qsort_arg(state->order, n, sizeof(uint32), compare_groups, state);
}

/* Starts aggregating: checks whether to, creates the first groups. */
static void
start(VecAggState *state)
{
	state->started = true;
	if (!storage_engine_enable_vectorized_aggregation)
		fall_back(state, "storage_engine.enable_vectorized_aggregation is off");
	else if (!state->kernels_ready)
		fall_back(state, "an aggregate the kernels cannot compute here");
	else if (state->mode == VEC_AGG_PARTIAL && !partial_safe(state))
		fall_back(state, "values a partial aggregation cannot take");
}

/*
 * Adds batches to new groups until the scan ends, or (partial
 * aggregation) until the groups fill hash_mem.
 */
static void
aggregate(VecAggState *state)
{
	CustomScan *cscan = (CustomScan *) state->css.ss.ps.plan;
	size_t		limit = get_hash_memory_limit();
	Oid		   *types = palloc(sizeof(Oid) * Max(state->nkeys, 1));
	ListCell   *lc;

	reset_groups(state);
	foreach(lc, cscan->custom_exprs)
		types[foreach_current_index(lc)] = exprType(lfirst(lc));
	state->grouping = agg_grouping_create(state->nkeys, types, state->agg_cxt);
	pfree(types);
	grow_states(state);

	for (;;)
	{
		RowBatch   *b = state->source->next_batch(state->scan);

		if (b == NULL)
		{
			state->input_done = true;
			return;
		}
		state->batches++;
		if (b->nsel == 0)
			continue;
		if (!add_batch(state, b))
			return;
		if (MemoryContextMemAllocated(state->agg_cxt, true) > limit)
		{
			if ((state->mode == VEC_AGG_PARTIAL || state->mode == VEC_AGG_EXPORT) &&
				state->grouping->methods != NULL)
				return;			/* emit these groups, then go on */
			fall_back(state, "more groups than hash_mem holds");
			return;
		}
	}
}

/*
 * COMBINE: merges the participants' groups, each row a group's keys and
 * its aggregates' exported states, until the Gather ends; falls back when
 * a participant gave up or the groups outgrow hash_mem.
 */
static void
combine(VecAggState *state)
{
	CustomScan *cscan = (CustomScan *) state->css.ss.ps.plan;
	size_t		limit = get_hash_memory_limit();
	Oid		   *types = palloc(sizeof(Oid) * Max(state->nkeys, 1));
	ColumnBatch *key_values = palloc(sizeof(ColumnBatch) * Max(state->nkeys, 1));
	ListCell   *lc;
	int			k;

	reset_groups(state);
	foreach(lc, cscan->custom_exprs)
		types[foreach_current_index(lc)] = exprType(lfirst(lc));
	state->grouping = agg_grouping_create(state->nkeys, types, state->agg_cxt);
	grow_states(state);

	for (;;)
	{
		TupleTableSlot *row = ExecProcNode(state->gather);
		uint32		group = 0;
		int			input;
		int			i;
		MemoryContext old;

		if (TupIsNull(row))
		{
			state->input_done = true;
			break;
		}
		slot_getallattrs(row);
		if (state->naggs > 0 && row->tts_isnull[state->nkeys])
		{
			fall_back(state, "a participant met a value the kernels do not compute exactly");
			break;
		}
		MemoryContextReset(state->batch_cxt);
		if (state->grouping->methods != NULL)
		{
			for (k = 0; k < state->nkeys; k++)
			{
				key_values[k].values = &row->tts_values[k];
				key_values[k].isnull = &row->tts_isnull[k];
				key_values[k].loaded = true;
				state->key_batches[k] = &key_values[k];
			}
			state->grouping->methods->assign(state->grouping, state->key_batches,
											 NULL, 1, &group);
			grow_states(state);
		}

		/* DISTINCT sets grow in the groups' memory */
		old = MemoryContextSwitchTo(state->agg_cxt);
		input = state->nkeys;
		for (i = 0; i < state->ncolumns; i++)
		{
			VecAggColumn *col = &state->columns[i];
			bytea	   *exported;

			if (col->kernel == NULL)
				continue;
			MemoryContextSwitchTo(state->batch_cxt);
			exported = DatumGetByteaP(row->tts_values[input++]);
			MemoryContextSwitchTo(state->agg_cxt);
			agg_kernel_merge(col->kernel, col->states + col->kernel->state_size * group,
							 exported);
		}
		MemoryContextSwitchTo(old);
		if (MemoryContextMemAllocated(state->agg_cxt, true) > limit)
		{
			fall_back(state, "more groups than hash_mem holds");
			break;
		}
	}
	pfree(types);
	pfree(key_values);
}

/*
 * EXPORT: the row that says this participant gave up (NULL keys and
 * states), once.
 */
static TupleTableSlot *
give_up_row(VecAggState *state)
{
	TupleTableSlot *slot = state->css.ss.ss_ScanTupleSlot;

	ExecClearTuple(slot);
	if (!state->gave_up)
		return slot;
	state->gave_up = false;
	memset(slot->tts_isnull, true, sizeof(bool) * state->ncolumns);
	return ExecStoreVirtualTuple(slot);
}

static TupleTableSlot *
exec_vector_agg(CustomScanState *node)
{
	VecAggState *state = (VecAggState *) node;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;
	uint32		group;
	int			i;

	if (!state->started)
		start(state);
	for (;;)
	{
		if (state->fell_back)
			return ExecProcNode(state->agg);
		if (state->grouping != NULL &&
			state->next_group < state->grouping->ngroups)
			break;
		/* plain aggregation emits its group once, even over no rows */
		if (state->input_done)
			return give_up_row(state);
		if (state->mode == VEC_AGG_COMBINE)
			combine(state);
		else
			aggregate(state);
		if (state->input_done && !state->fell_back && state->key_order != NULL)
			order_groups(state);
	}
	group = state->order != NULL ? state->order[state->next_group] :
		state->next_group;
	state->next_group++;

	ExecClearTuple(slot);
	MemoryContextReset(state->out_cxt);
	{
		MemoryContext old = MemoryContextSwitchTo(state->out_cxt);

		for (i = 0; i < state->ncolumns; i++)
		{
			VecAggColumn *col = &state->columns[i];
			AggKernelResult result;

			if (col->kernel == NULL)
			{
				slot->tts_values[i] = state->grouping->methods->key(state->grouping, group,
																	 col->key,
																	 &slot->tts_isnull[i]);
				continue;
			}
			if (state->mode == VEC_AGG_EXPORT)
			{
				slot->tts_values[i] =
					PointerGetDatum(agg_kernel_export(col->kernel,
													  states_of(state, col) + col->kernel->state_size * group));
				slot->tts_isnull[i] = false;
				continue;
			}
			result = state->mode == VEC_AGG_PARTIAL ?
				col->kernel->partial : col->kernel->final;
			slot->tts_values[i] = result(states_of(state, col) + col->kernel->state_size * group,
										 col->info, &slot->tts_isnull[i]);
		}
		MemoryContextSwitchTo(old);
	}
	return ExecStoreVirtualTuple(slot);
}

static void
end_vector_agg(CustomScanState *node)
{
	VecAggState *state = (VecAggState *) node;

	if (state->agg != NULL)
		ExecEndNode(state->agg);
	else
		ExecEndNode(&state->scan->ss.ps);
	if (state->gather != NULL)
		ExecEndNode(state->gather);
}

static void
rescan_vector_agg(CustomScanState *node)
{
	VecAggState *state = (VecAggState *) node;

	if (node->ss.ps.chgParam != NULL && state->agg != NULL)
		UpdateChangedParamSet(state->agg, node->ss.ps.chgParam);
	/* the Agg rewinds its input only when it has read it */
	if (state->agg != NULL)
		ExecReScan(state->agg);
	if (state->gather != NULL)
		ExecReScan(state->gather);
	else
		ExecReScan(&state->scan->ss.ps);

	reset_groups(state);
	state->started = false;
	state->input_done = false;
	state->batches = 0;
	state->fell_back = false;
	state->fallback_reason = NULL;
	state->gave_up = false;
}

static void
explain_vector_agg(CustomScanState *node, List *ancestors, ExplainState *es)
{
	VecAggState *state = (VecAggState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	if (cscan->custom_exprs != NIL)
	{
		List	   *context = set_deparse_context_plan(es->deparse_cxt,
													   node->ss.ps.plan, ancestors);
		List	   *keys = NIL;
		ListCell   *lc;

		foreach(lc, cscan->custom_exprs)
			keys = lappend(keys, deparse_expression(lfirst(lc), context,
													es->verbose, false));
		ExplainPropertyList("Group Key", keys, es);
	}
	if (state->mode == VEC_AGG_PARTIAL || state->mode == VEC_AGG_EXPORT)
		ExplainPropertyText("Mode", "partial", es);
	if (es->analyze)
	{
		/* a participant of a parallel plan knows only its own share */
		if (state->mode == VEC_AGG_WHOLE)
			ExplainPropertyInteger("Batches", NULL, (int64) state->batches, es);
		if (state->fell_back)
			ExplainPropertyText("Handed To Aggregate", state->fallback_reason, es);
	}
}

void
vector_agg_exec_init(void)
{
	RegisterCustomScanMethods(&vector_agg_plan_methods);
	RegisterCustomScanMethods(&row_vector_agg_plan_methods);
}
