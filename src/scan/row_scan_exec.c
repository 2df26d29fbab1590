/*-------------------------------------------------------------------------
 *
 * row_scan_exec.c
 *	  Execution of the RowcompressScan custom scan: a scan of a rowcompress
 *	  table that skips the batches whose zone maps exclude the filter, and,
 *	  when the query needs no column at all (count(*), EXISTS, a join that
 *	  only counts), reads no batch: it counts each batch's rows from its
 *	  metadata, less the rows deleted for the snapshot.  In parallel, the
 *	  participants claim batches in turn (as the table AM's parallel scan).
 *
 *	  A sequential scan can know neither, and decodes the whole table.
 *	  Rows still pass through the node's full filter, so results never
 *	  depend on pruning; rows of a scan that needs no column are all NULL,
 *	  with their TIDs.
 *
 *	  Below a RowcompressVectorAgg the node hands over whole batches
 *	  instead of rows (row_scan_next_batch): each row passing the filter is
 *	  deformed once into the batch's arrays of the columns the aggregation
 *	  reads, pointing into the decompressed batch, which stays until the
 *	  next one is read.  The filter's clauses that have a kernel
 *	  (vector/filter.c, as for colcompress) are evaluated on those arrays,
 *	  the columns they read deformed with the others, and only the rows
 *	  they pass go through the expression interpreter for the rest: a
 *	  LIKE 'prefix%' per row through it cost more than the comparison of
 *	  bytes the kernel makes.  A scan returning rows whose filter has
 *	  kernels reads the same filtered batches (scan/filtered_rows.c) and
 *	  stores in its slot only the rows they select.
 *
 *	  custom_exprs holds the prunable clauses, custom_private whether the
 *	  query needs no column.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/parallel.h"
#include "access/sysattr.h"
#include "commands/explain.h"
#include COMPAT_EXPLAIN_FORMAT_HEADER
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "utils/ruleutils.h"
#include "utils/rel.h"

#include "format/pending_writes.h"
#include "format/row_number.h"
#include "rowstore/row_reader.h"
#include "scan/prune.h"
#include "scan/row_customscan.h"
#include "scan/scan_helpers.h"
#include "scan/scan_internal.h"
#include "vector/filter.h"

/* Shared by the participants of a parallel scan. */
typedef struct RowScanShared
{
	RowParallelScanDescData pscan;	/* batch claiming */
	pg_atomic_uint64 batches_read;	/* reported by finished workers */
	pg_atomic_uint64 batches_pruned;
} RowScanShared;

typedef struct RowScanState
{
	CustomScanState css;
	RowReader  *reader;			/* created on the first row */
	RowScanShared *shared;		/* parallel scan only */
	/* counters of readers already ended (rescans) */
	uint64		batches_read;
	uint64		batches_pruned;
	RowBatch	batch;			/* row_scan_next_batch's, in the reader's cxt */
	uint32		capacity;		/* rows its arrays have room for */
	Bitmapset  *batch_columns;	/* it loads (row_scan_batch_columns) */
	AttrNumber	last_loaded;	/* its last loaded column (1-based); 0: none */
	Datum	   *row_values;		/* [last_loaded] a row's, on their way */
	bool	   *row_isnull;
	/* the batch's vectorized filter and the clauses it leaves, or NULL */
	VecFilter  *vfilter;
	ExprState  *rest_qual;
	Bitmapset  *vfilter_columns;	/* it reads (pull_varattnos offsets) */
	MemoryContext filter_cxt;	/* all three, rebuilt with the reader */
	bool		may_go_backward;	/* EXEC_FLAG_BACKWARD: rows one by one */
	FilteredRows filtered;		/* rows returned from filtered batches */
} RowScanState;

static Node *create_row_scan_state(CustomScan *cscan);
static void begin_row_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_row_scan(CustomScanState *node);
static void end_row_scan(CustomScanState *node);
static void rescan_row_scan(CustomScanState *node);
static void explain_row_scan(CustomScanState *node, List *ancestors,
							 ExplainState *es);
static Size estimate_row_dsm(CustomScanState *node, ParallelContext *pcxt);
static void initialize_row_dsm(CustomScanState *node, ParallelContext *pcxt,
							   void *coordinate);
static void reinitialize_row_dsm(CustomScanState *node, ParallelContext *pcxt,
								 void *coordinate);
static void initialize_row_worker(CustomScanState *node, shm_toc *toc,
								  void *coordinate);
static void shutdown_row_scan(CustomScanState *node);

const CustomScanMethods row_scan_methods = {
	.CustomName = ROW_SCAN_NAME,
	.CreateCustomScanState = create_row_scan_state,
};

static const CustomExecMethods row_exec_methods = {
	.CustomName = ROW_SCAN_NAME,
	.BeginCustomScan = begin_row_scan,
	.ExecCustomScan = exec_row_scan,
	.EndCustomScan = end_row_scan,
	.ReScanCustomScan = rescan_row_scan,
	.EstimateDSMCustomScan = estimate_row_dsm,
	.InitializeDSMCustomScan = initialize_row_dsm,
	.ReInitializeDSMCustomScan = reinitialize_row_dsm,
	.InitializeWorkerCustomScan = initialize_row_worker,
	.ShutdownCustomScan = shutdown_row_scan,
	.ExplainCustomScan = explain_row_scan,
};

static Node *
create_row_scan_state(CustomScan *cscan)
{
	RowScanState *state = (RowScanState *) newNode(sizeof(RowScanState),
												   T_CustomScanState);

	state->css.methods = &row_exec_methods;
	/* as the table AM's scans: the row is stored, and deformed as needed */
	compat_custom_scan_slot_ops(&state->css, &TTSOpsMinimalTuple);
	return (Node *) state;
}

static void
begin_row_scan(CustomScanState *node, EState *estate, int eflags)
{
	RowScanState *state = (RowScanState *) node;

	state->filter_cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "rowcompress scan filter",
											  ALLOCSET_SMALL_SIZES);
	state->may_go_backward = (eflags & EXEC_FLAG_BACKWARD) != 0;
	/* rows this transaction still buffers must be counted too */
	if (!IsParallelWorker())
		pending_flush_for_read(node->ss.ss_currentRelation);
}

/*
 * The last column exprs read of the scan's relation (0: none), or -1 when
 * they read a whole row or a system column, which need the stored row.
 */
static int
last_column_read(CustomScan *cscan, List *exprs)
{
	Bitmapset  *attrs = NULL;
	int			last = 0;
	int			x = -1;

	pull_varattnos((Node *) exprs, cscan->scan.scanrelid, &attrs);
	while ((x = bms_next_member(attrs, x)) >= 0)
	{
		int			attno = x + FirstLowInvalidHeapAttributeNumber;

		if (attno <= 0)
			return -1;
		last = Max(last, attno);
	}
	return last;
}

/*
 * The reader, created on the first row: a pruning value may be an
 * initplan's parameter.
 */
static RowReader *
reader_of(RowScanState *state)
{
	ScanState  *ss = &state->css.ss;

	if (state->reader == NULL)
	{
		CustomScan *cscan = (CustomScan *) ss->ps.plan;
		Relation	rel = ss->ss_currentRelation;
		PruneNode  *prune;

		state->reader = row_reader_begin(rel, ss->ps.state->es_snapshot,
										 state->shared ? &state->shared->pscan : NULL);
		if (boolVal(linitial(cscan->custom_private)))
			row_reader_no_columns(state->reader);

		/*
		 * Rows are read as far as the target list and the filter reach:
		 * everything above reads the scan's rows through them, a
		 * vectorized aggregation's loaded columns and the expressions it
		 * evaluates on the scan's slot included.
		 */
		state->reader->read_upto =
			Max(last_column_read(cscan, list_concat(list_copy(cscan->scan.plan.targetlist),
													cscan->scan.plan.qual)), 0);
		prune = prune_build(cscan->custom_exprs, rel, RelationGetDescr(rel),
							&ss->ps, ss->ps.ps_ExprContext);
		if (prune != NULL)
			row_reader_set_filter(state->reader,
								  (ZoneFilterFn) prune_zone_excluded, prune);
	}
	return state->reader;
}

static TupleTableSlot *
next_row(ScanState *ss)
{
	bool		forward = !ScanDirectionIsBackward(ss->ps.state->es_direction);

	row_reader_next_slot(reader_of((RowScanState *) ss), forward,
						 ss->ss_ScanTupleSlot);
	return ss->ss_ScanTupleSlot;
}

bool
row_scan_plan_is(Plan *plan)
{
	return plan != NULL && IsA(plan, CustomScan) &&
		((CustomScan *) plan)->methods == &row_scan_methods;
}

bool
row_scan_plan_counts_rows(Plan *plan)
{
	return row_scan_plan_is(plan) &&
		boolVal(linitial(((CustomScan *) plan)->custom_private)) &&
		plan->qual == NIL;
}

void
row_scan_batch_columns(CustomScanState *node, const Bitmapset *columns)
{
	RowScanState *state = (RowScanState *) node;
	MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(state));

	state->batch_columns = bms_copy(columns);
	MemoryContextSwitchTo(old);
}

/*
 * The batch's vectorized filter, rebuilt with the reader
 * (vec_filter_for_scan), and the columns it reads.
 */
static void
build_vector_filter(RowScanState *state)
{
	CustomScan *cscan = (CustomScan *) state->css.ss.ps.plan;
	MemoryContext old;

	MemoryContextReset(state->filter_cxt);
	state->vfilter_columns = NULL;
	old = MemoryContextSwitchTo(state->filter_cxt);
	state->vfilter = vec_filter_for_scan(&state->css.ss, &state->rest_qual);
	if (state->vfilter != NULL)
		pull_varattnos((Node *) vec_filter_clauses(state->vfilter),
					   cscan->scan.scanrelid, &state->vfilter_columns);
	MemoryContextSwitchTo(old);
}

/* Sets up the batch's column arrays on the first batch of a reader. */
static void
init_batch(RowScanState *state, RowReader *r)
{
	RowBatch   *b = &state->batch;
	int			a;

	b->natts = RelationGetDescr(state->css.ss.ss_currentRelation)->natts;
	b->cols = MemoryContextAllocZero(r->cxt, sizeof(ColumnBatch) * Max(b->natts, 1));
	state->capacity = 0;
	state->last_loaded = 0;
	if (r->no_columns)
		return;
	build_vector_filter(state);
	for (a = 0; a < b->natts; a++)
	{
		/* the aggregation's columns, and those the kernels read */
		if (!bms_is_member(a + 1, state->batch_columns) &&
			!bms_is_member(a + 1 - FirstLowInvalidHeapAttributeNumber,
						   state->vfilter_columns))
			continue;
		b->cols[a].loaded = true;
		state->last_loaded = a + 1;
	}
	state->row_values = MemoryContextAlloc(r->cxt, sizeof(Datum) * Max(state->last_loaded, 1));
	state->row_isnull = MemoryContextAlloc(r->cxt, sizeof(bool) * Max(state->last_loaded, 1));
}

/* Room in the batch's arrays for n rows. */
static void
reserve_rows(RowScanState *state, MemoryContext cxt, uint32 n)
{
	RowBatch   *b = &state->batch;
	int			a;

	if (n <= state->capacity)
		return;
	for (a = 0; a < b->natts; a++)
	{
		ColumnBatch *col = &b->cols[a];

		if (!col->loaded)
			continue;
		if (col->values != NULL)
		{
			pfree(col->values);
			pfree(col->isnull);
		}
		col->values = MemoryContextAllocHuge(cxt, sizeof(Datum) * n);
		col->isnull = MemoryContextAllocHuge(cxt, sizeof(bool) * n);
	}
	if (b->sel != NULL)
		pfree(b->sel);
	b->sel = MemoryContextAllocHuge(cxt, sizeof(uint32) * n);
	state->capacity = n;
}

/* Row i's values of the loaded columns into the batch's arrays. */
static void
store_loaded(RowScanState *state, uint32 i, const Datum *values,
			 const bool *isnull)
{
	RowBatch   *b = &state->batch;
	int			a;

	for (a = 0; a < state->last_loaded; a++)
	{
		if (!b->cols[a].loaded)
			continue;
		b->cols[a].values[i] = values[a];
		b->cols[a].isnull[i] = isnull[a];
	}
}

/*
 * Row i's loaded columns deformed into the batch's arrays, straight from
 * the row: through the slot it cost a fifth of a scan summing two
 * columns.  A row lacking a loaded column (added since) takes the slot's
 * way, which supplies its missing values.
 */
static void
load_row(RowScanState *state, RowReader *r, uint32 i, TupleTableSlot *slot)
{
	if (state->last_loaded == 0)
		return;
	if (r->read_upto >= state->last_loaded &&
		row_reader_read_columns(r, i, state->last_loaded,
								state->row_values, state->row_isnull))
	{
		store_loaded(state, i, state->row_values, state->row_isnull);
		return;
	}
	row_reader_store_row(r, i, slot);
	slot_getsomeattrs(slot, state->last_loaded);
	store_loaded(state, i, slot->tts_values, slot->tts_isnull);
}

/*
 * With a vectorized filter: every row's loaded columns, the kernels on
 * the arrays, then the rest of the filter row by row on the rows left.
 */
static void
load_filtered(RowScanState *state, RowReader *r)
{
	ScanState  *ss = &state->css.ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	ExprContext *econtext = ss->ps.ps_ExprContext;
	RowBatch   *b = &state->batch;
	uint32	   *room = b->sel;
	uint32		nsel = 0;
	uint32		i;
	MemoryContext old;

	for (i = 0; i < r->nrows; i++)
		load_row(state, r, i, slot);
	b->sel = NULL;
	b->nsel = r->nrows;
	old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	vec_filter_apply(state->vfilter, b, room);
	MemoryContextSwitchTo(old);
	ResetExprContext(econtext);
	b->sel = room;
	if (state->rest_qual != NULL)
	{
		uint32		k;

		/* in place: the selection is read ahead of where it is written */
		for (k = 0; k < b->nsel; k++)
		{
			row_reader_store_row(r, b->sel[k], slot);
			econtext->ecxt_scantuple = slot;
			if (ExecQual(state->rest_qual, econtext))
				b->sel[nsel++] = b->sel[k];
			ResetExprContext(econtext);
		}
		b->nsel = nsel;
	}
	InstrCountFiltered1(&ss->ps, r->nrows - b->nsel);
}

/*
 * The loaded batch's rows that pass the filter, selected, with their
 * loaded columns deformed into the arrays.
 */
static void
load_columns(RowScanState *state, RowReader *r)
{
	ScanState  *ss = &state->css.ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	ExprState  *qual = ss->ps.qual;
	ExprContext *econtext = ss->ps.ps_ExprContext;
	RowBatch   *b = &state->batch;
	uint32		i;

	reserve_rows(state, r->cxt, r->nrows);
	if (state->vfilter != NULL)
	{
		load_filtered(state, r);
		return;
	}
	b->nsel = 0;
	for (i = 0; i < r->nrows; i++)
	{
		if (qual == NULL)
		{
			load_row(state, r, i, slot);
			b->sel[b->nsel++] = i;
			continue;
		}
		row_reader_store_row(r, i, slot);
		ResetExprContext(econtext);
		econtext->ecxt_scantuple = slot;
		if (!ExecQual(qual, econtext))
		{
			InstrCountFiltered1(&ss->ps, 1);
			continue;
		}
		b->sel[b->nsel++] = i;
		if (state->last_loaded == 0)
			continue;
		slot_getsomeattrs(slot, state->last_loaded);
		store_loaded(state, i, slot->tts_values, slot->tts_isnull);
	}
}

/* The reader, with the batch's arrays and filter set up. */
static RowReader *
batch_reader_of(RowScanState *state)
{
	RowReader  *r = reader_of(state);

	if (state->batch.cols == NULL)
		init_batch(state, r);
	return r;
}

/* The next batch with the rows passing the filter selected, or NULL. */
static RowBatch *
next_loaded_batch(RowScanState *state)
{
	RowReader  *r = batch_reader_of(state);
	RowBatch   *b = &state->batch;

	CHECK_FOR_INTERRUPTS();
	if (!row_reader_next_batch(r, true))
		return NULL;
	b->nrows = r->nrows;
	b->rownums = r->rownums;
	if (r->no_columns && state->css.ss.ps.qual == NULL)
	{
		b->sel = NULL;
		b->nsel = r->nrows;
	}
	else
		load_columns(state, r);
	return b;
}

static RowBatch *
filtered_batch(ScanState *ss)
{
	return next_loaded_batch((RowScanState *) ss);
}

static void
store_batch_row(ScanState *ss, uint32 row, TupleTableSlot *slot)
{
	row_reader_store_row(((RowScanState *) ss)->reader, row, slot);
}

RowBatch *
row_scan_next_batch(CustomScanState *node)
{
	return filtered_batch_counted(&node->ss, filtered_batch);
}

TupleTableSlot *
row_scan_batch_row(CustomScanState *node, uint32 row)
{
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;

	row_reader_store_row(((RowScanState *) node)->reader, row, slot);
	return slot;
}

bool
row_scan_zones_all(CustomScanState *node, ZoneTestFn test, void *arg)
{
	return row_reader_zones_all(reader_of((RowScanState *) node), test, arg);
}

/*
 * An EvalPlanQual recheck hands the scan the row to test in a table slot
 * (minimal-tuple), not the scan's own slot.  Before PostgreSQL 16 a custom
 * scan cannot declare its scan slot type, so the executor takes it for a
 * virtual slot and reads its values without deforming: the row is deformed
 * here, or the recheck saw zeros (an UPDATE wrote "v + 10" as 10, or
 * skipped the row as failing its WHERE clause).
 */
static bool
recheck_row(ScanState *ss, TupleTableSlot *slot)
{
	slot_getallattrs(slot);
	return true;
}

/*
 * Whether the filter has kernels: built with the reader's batch arrays,
 * never for a scan that reads no column.
 */
static bool
filter_has_kernels(RowScanState *state)
{
	batch_reader_of(state);
	return state->vfilter != NULL;
}

static TupleTableSlot *
exec_row_scan(CustomScanState *node)
{
	RowScanState *state = (RowScanState *) node;

	/*
	 * Rows from filtered batches (filtered_rows.c) when the filter has
	 * kernels; without, a row is tested in the slot it is returned in.
	 * EvalPlanQual rechecks go through ExecScan, which knows them; so do
	 * scans that may go backward (scrollable cursors).
	 */
	if (node->ss.ps.qual != NULL && !state->may_go_backward &&
		node->ss.ps.state->es_epq_active == NULL && filter_has_kernels(state))
		return filtered_rows_next(&node->ss, &state->filtered, filtered_batch,
								  store_batch_row);
	return ExecScan(&node->ss, next_row, recheck_row);
}

/* Moves the reader's counters into the state and ends it. */
static void
retire_reader(RowScanState *state)
{
	/* the batch's arrays are in the reader's context (init_batch anew) */
	memset(&state->batch, 0, sizeof(RowBatch));
	state->filtered.batch = NULL;
	if (state->reader == NULL)
		return;
	state->batches_read += state->reader->batches_read;
	state->batches_pruned += state->reader->batches_pruned;
	row_reader_end(state->reader);
	state->reader = NULL;
}

/* As the colcompress scan's (scan_exec.c): before the queue detaches. */
static void
publish_counters(RowScanState *state)
{
	retire_reader(state);
	pg_atomic_fetch_add_u64(&state->shared->batches_read, state->batches_read);
	pg_atomic_fetch_add_u64(&state->shared->batches_pruned, state->batches_pruned);
	state->batches_read = state->batches_pruned = 0;
}

static void
end_row_scan(CustomScanState *node)
{
	RowScanState *state = (RowScanState *) node;

	if (state->shared != NULL && scan_participant_is_helper())
		publish_counters(state);
	retire_reader(state);
}

static void
rescan_row_scan(CustomScanState *node)
{
	/* parameters may have new values: the pruning is rebuilt with the reader */
	retire_reader((RowScanState *) node);
}

/*
 * The leader collects the workers' counters before the parallel context,
 * and with it the shared memory, goes away (EXPLAIN prints later); the
 * workers published theirs before their queues detached.
 */
static void
shutdown_row_scan(CustomScanState *node)
{
	RowScanState *state = (RowScanState *) node;

	if (state->shared == NULL)
		return;
	if (scan_participant_is_helper())
	{
		publish_counters(state);
		return;
	}
	state->batches_read += pg_atomic_read_u64(&state->shared->batches_read);
	state->batches_pruned += pg_atomic_read_u64(&state->shared->batches_pruned);
	state->shared = NULL;
}

static Size
estimate_row_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	return sizeof(RowScanShared);
}

static void
init_row_shared(RowScanShared *shared)
{
	memset(shared, 0, sizeof(RowScanShared));
	pg_atomic_init_u64(&shared->pscan.next_batch, 0);
	pg_atomic_init_u64(&shared->batches_read, 0);
	pg_atomic_init_u64(&shared->batches_pruned, 0);
}

static void
initialize_row_dsm(CustomScanState *node, ParallelContext *pcxt,
				   void *coordinate)
{
	init_row_shared(coordinate);
	((RowScanState *) node)->shared = coordinate;
}

static void
reinitialize_row_dsm(CustomScanState *node, ParallelContext *pcxt,
					 void *coordinate)
{
	RowScanState *state = (RowScanState *) node;

	retire_reader(state);
	/* counters so far were collected at shutdown; start the next round */
	shutdown_row_scan(node);
	init_row_shared(coordinate);
	state->shared = coordinate;
}

static void
initialize_row_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	((RowScanState *) node)->shared = coordinate;
}

static void
explain_row_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	RowScanState *state = (RowScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	if (boolVal(linitial(cscan->custom_private)))
		explain_columns("Columns", NIL,
						RelationGetDescr(node->ss.ss_currentRelation), es);
	if (es->analyze && state->vfilter != NULL)
	{
		List	   *context = set_deparse_context_plan(es->deparse_cxt,
													   node->ss.ps.plan, ancestors);

		ExplainPropertyText("Vectorized Filter",
							deparse_expression((Node *) make_ands_explicit(vec_filter_clauses(state->vfilter)),
											   context, es->verbose, false),
							es);
	}
	if (cscan->custom_exprs != NIL)
	{
		List	   *context = set_deparse_context_plan(es->deparse_cxt,
													   node->ss.ps.plan, ancestors);

		ExplainPropertyText("Zone Map Filter",
							deparse_expression((Node *) make_ands_explicit(cscan->custom_exprs),
											   context, es->verbose, false),
							es);
		if (es->analyze)
		{
			uint64		read = state->batches_read;
			uint64		pruned = state->batches_pruned;

			if (state->reader != NULL)
			{
				read += state->reader->batches_read;
				pruned += state->reader->batches_pruned;
			}
			ExplainPropertyInteger("Batches Read", NULL, (int64) read, es);
			ExplainPropertyInteger("Batches Pruned", NULL, (int64) pruned, es);
		}
	}
}

void
row_scan_exec_init(void)
{
	RegisterCustomScanMethods(&row_scan_methods);
}
