/*-------------------------------------------------------------------------
 *
 * scan_exec.c
 *	  Execution of the ColcompressScan custom scan: the reader with the
 *	  projected columns and the zone-map filter, parallel stripe claiming
 *	  through dynamic shared memory, and EXPLAIN output.
 *
 *	  Rows still pass through the node's full filter (ExecScan): pruning
 *	  only decides which chunk groups are read.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/parallel.h"
#include "commands/explain.h"
#include COMPAT_EXPLAIN_FORMAT_HEADER
#include "executor/executor.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"
#include "utils/builtins.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "catalog/chunk_cache.h"
#include "colstore/col_reader.h"
#include "format/pending_writes.h"
#include "format/storage.h"
#include "scan/col_customscan.h"
#include "scan/prune.h"
#include "scan/scan_helpers.h"
#include "scan/scan_internal.h"
#include "vector/filter.h"

/* Shared by the participants of a parallel scan. */
typedef struct ColScanShared
{
	ColParallelScanDescData pscan;	/* stripe claiming */
	pg_atomic_uint64 stripes_read;	/* reported by finished workers */
	pg_atomic_uint64 stripes_pruned;
	pg_atomic_uint64 groups_read;
	pg_atomic_uint64 groups_pruned;
	pg_atomic_uint64 groups_matched;
	/* then the leader's kept stripes for its workers (chunk_cache_export) */
	Size		metadata_size;
} ColScanShared;

#define SHARED_METADATA(shared) \
	((char *) (shared) + MAXALIGN(sizeof(ColScanShared)))

typedef struct ColScanState
{
	CustomScanState css;
	bool	   *projected;
	bool	   *scaled_only;	/* col_scan_scaled_columns's, or NULL */
	PruneNode  *prune;
	ColReader  *reader;			/* created on the first row */
	ColScanShared *shared;		/* parallel scan only */
	/* counters of readers already ended (rescans) */
	uint64		stripes_read;
	uint64		stripes_pruned;
	uint64		groups_read;
	uint64		groups_pruned;
	uint64		groups_matched;
	/* the filter is all prunable clauses: zone maps can prove it */
	bool		filter_provable;
	bool		filters_built;	/* build_prune and build_vector_filter ran */

	/* vectorized filter and the clauses left to evaluate row by row */
	VecFilter  *vfilter;
	ExprState  *rest_qual;
	MemoryContext filter_cxt;	/* both, rebuilt with the reader */
	bool		may_go_backward;	/* EXEC_FLAG_BACKWARD: rows one by one */

	FilteredRows filtered;		/* rows returned from filtered batches */
	/* what estimate_dsm found to hand over, and of which storage */
	Size		metadata_size;
	uint64		metadata_storage;
} ColScanState;

static Node *create_col_scan_state(CustomScan *cscan);
static void begin_col_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_col_scan(CustomScanState *node);
static void end_col_scan(CustomScanState *node);
static void rescan_col_scan(CustomScanState *node);
static Size estimate_dsm(CustomScanState *node, ParallelContext *pcxt);
static void initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate);
static void shutdown_col_scan(CustomScanState *node);
static void explain_col_scan(CustomScanState *node, List *ancestors, ExplainState *es);

const CustomScanMethods col_scan_methods = {
	.CustomName = COL_SCAN_NAME,
	.CreateCustomScanState = create_col_scan_state,
};

static const CustomExecMethods col_exec_methods = {
	.CustomName = COL_SCAN_NAME,
	.BeginCustomScan = begin_col_scan,
	.ExecCustomScan = exec_col_scan,
	.EndCustomScan = end_col_scan,
	.ReScanCustomScan = rescan_col_scan,
	.EstimateDSMCustomScan = estimate_dsm,
	.InitializeDSMCustomScan = initialize_dsm,
	.ReInitializeDSMCustomScan = reinitialize_dsm,
	.InitializeWorkerCustomScan = initialize_worker,
	.ShutdownCustomScan = shutdown_col_scan,
	.ExplainCustomScan = explain_col_scan,
};

static Node *
create_col_scan_state(CustomScan *cscan)
{
	ColScanState *state = (ColScanState *) newNode(sizeof(ColScanState),
												   T_CustomScanState);

	state->css.methods = &col_exec_methods;
	return (Node *) state;
}

static void
build_prune(ColScanState *state)
{
	CustomScan *cscan = (CustomScan *) state->css.ss.ps.plan;
	Relation	rel = state->css.ss.ss_currentRelation;

	state->prune = prune_build(cscan->custom_exprs, rel, RelationGetDescr(rel),
							   &state->css.ss.ps, state->css.ss.ps.ps_ExprContext);
	/* the pruning clauses are a subset of the filter: are they all of it? */
	state->filter_provable = prune_complete(state->prune) &&
		list_length(cscan->custom_exprs) == list_length(cscan->scan.plan.qual);
}

static void
begin_col_scan(CustomScanState *node, EState *estate, int eflags)
{
	ColScanState *state = (ColScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Relation	rel = node->ss.ss_currentRelation;
	int			natts = RelationGetDescr(rel)->natts;
	List	   *used;
	ListCell   *lc;

	if (!IsParallelWorker())
		pending_flush_for_read(rel);
	state->may_go_backward = (eflags & EXEC_FLAG_BACKWARD) != 0;
	state->filter_cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "colcompress scan filter",
											  ALLOCSET_SMALL_SIZES);

	/*
	 * The columns of the final target list and filter: the planner may give
	 * a projecting scan its target list after planning it (a projection
	 * over it is folded into it).
	 */
	used = used_columns(list_concat(list_copy(cscan->scan.plan.targetlist),
									cscan->scan.plan.qual),
						cscan->scan.scanrelid, natts);
	state->projected = palloc0(sizeof(bool) * Max(natts, 1));
	foreach(lc, used)
		state->projected[lfirst_int(lc) - 1] = true;
}

/* The vectorized filter, rebuilt with the reader (vec_filter_for_scan). */
static void
build_vector_filter(ColScanState *state)
{
	MemoryContext old;

	MemoryContextReset(state->filter_cxt);
	old = MemoryContextSwitchTo(state->filter_cxt);
	state->vfilter = vec_filter_for_scan(&state->css.ss, &state->rest_qual);
	MemoryContextSwitchTo(old);
}

/*
 * The reader, created on the first row.  The pruning values are computed
 * here and not at BeginCustomScan: a value may be an initplan's parameter
 * (WHERE x > (SELECT avg(x) ...)), which can only run once the plan tree
 * is fully initialized.
 */
static ColReader *
reader_of(ColScanState *state)
{
	if (state->reader == NULL)
	{
		ColReader  *r;

		build_prune(state);
		r = col_reader_begin(state->css.ss.ss_currentRelation,
										 state->css.ss.ps.state->es_snapshot,
										 state->projected,
										 state->shared ? &state->shared->pscan : NULL);

		if (state->scaled_only != NULL)
			col_reader_scaled_columns(r, state->scaled_only);
		if (state->prune != NULL)
			col_reader_set_filter(r, (ZoneFilterFn) prune_zone_excluded,
								  state->filter_provable ?
								  (ZoneFilterFn) prune_zone_all_match : NULL,
								  state->prune);
		build_vector_filter(state);
		state->filters_built = true;
		state->reader = r;
	}
	return state->reader;
}

static TupleTableSlot *
next_row(ScanState *ss)
{
	ColScanState *state = (ColScanState *) ss;
	bool		forward = !ScanDirectionIsBackward(ss->ps.state->es_direction);

	col_reader_next_slot(reader_of(state), forward, ss->ss_ScanTupleSlot);
	return ss->ss_ScanTupleSlot;
}

static bool
recheck_row(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

/*
 * The next chunk group with the rows passing the filter in its selection
 * vector: the vectorized clauses on the column arrays first, then the
 * others (or the whole filter, without a vectorized one) row by row on the
 * rows left.  Chunk groups whose zone maps prove the filter skip it.  NULL
 * at the end; the batch lives until the next call.
 */
static RowBatch *
next_filtered_batch(ColScanState *state)
{
	ScanState  *ss = &state->css.ss;
	ExprContext *econtext = ss->ps.ps_ExprContext;
	ColReader  *r = reader_of(state);

	if (r->desc != ss->ss_ScanTupleSlot->tts_tupleDescriptor)
		col_reader_use_desc(r, ss->ss_ScanTupleSlot->tts_tupleDescriptor);
	for (;;)
	{
		RowBatch   *b;
		ExprState  *qual = ss->ps.qual;
		uint32	   *sel;
		uint32		before;
		uint32		nsel = 0;
		uint32		k;

		CHECK_FOR_INTERRUPTS();
		if (!col_reader_next_batch(r, true))
			return NULL;
		b = &r->batch;
		r->have_batch = false;	/* not for col_reader_next_slot */
		if (qual == NULL || r->batch_all_match)
			return b;

		sel = MemoryContextAlloc(r->batch_cxt, sizeof(uint32) * Max(b->nrows, 1));
		before = b->nsel;
		if (state->vfilter != NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);

			vec_filter_apply(state->vfilter, b, sel);
			MemoryContextSwitchTo(old);
			ResetExprContext(econtext);
			qual = state->rest_qual;
		}
		if (qual != NULL)
		{
			/* in place: the selection is read ahead of where it is written */
			for (k = 0; k < b->nsel; k++)
			{
				uint32		row = b->sel != NULL ? b->sel[k] : k;

				col_reader_store_row(r, row, ss->ss_ScanTupleSlot);
				econtext->ecxt_scantuple = ss->ss_ScanTupleSlot;
				if (ExecQual(qual, econtext))
					sel[nsel++] = row;
				ResetExprContext(econtext);
			}
			b->sel = sel;
			b->nsel = nsel;
		}
		InstrCountFiltered1(ss, before - b->nsel);
		if (b->nsel > 0)
			return b;
	}
}

static RowBatch *
filtered_batch(ScanState *ss)
{
	return next_filtered_batch((ColScanState *) ss);
}

static void
store_batch_row(ScanState *ss, uint32 row, TupleTableSlot *slot)
{
	col_reader_store_row(((ColScanState *) ss)->reader, row, slot);
}

static TupleTableSlot *
exec_col_scan(CustomScanState *node)
{
	ColScanState *state = (ColScanState *) node;

	/*
	 * EvalPlanQual rechecks go through ExecScan, which knows them; so do
	 * scans that may go backward (scrollable cursors) and scans without a
	 * filter.
	 */
	if (node->ss.ps.qual != NULL && !state->may_go_backward &&
		node->ss.ps.state->es_epq_active == NULL)
		return filtered_rows_next(&node->ss, &state->filtered, filtered_batch,
								  store_batch_row);
	return ExecScan(&node->ss, next_row, recheck_row);
}

void
col_scan_scaled_columns(CustomScanState *node, const Bitmapset *columns)
{
	ColScanState *state = (ColScanState *) node;
	int			natts = RelationGetDescr(node->ss.ss_currentRelation)->natts;
	int			a;

	state->scaled_only = palloc0(sizeof(bool) * Max(natts, 1));
	for (a = 0; a < natts; a++)
		state->scaled_only[a] = state->projected[a] &&
			bms_is_member(a + 1, columns);
	if (state->reader != NULL)
		col_reader_scaled_columns(state->reader, state->scaled_only);
}

/*
 * The next chunk group as a batch, for a node that consumes batches
 * (vectorized aggregation) instead of rows: the rows that pass the
 * node's filter are in its selection vector.  NULL at the end.  The
 * batch lives until the next call.  The node's instrumentation counts the
 * batches' rows as if they had been returned one by one, so EXPLAIN
 * ANALYZE reads the same either way.
 */
RowBatch *
col_scan_next_batch(CustomScanState *node)
{
	return filtered_batch_counted(&node->ss, filtered_batch);
}

/* Moves the reader's counters into the state and ends it. */
static void
retire_reader(ColScanState *state)
{
	ColReader  *r = state->reader;

	if (r == NULL)
		return;
	state->stripes_read += r->stripes_read;
	state->stripes_pruned += r->stripes_pruned;
	state->groups_read += r->groups_read;
	state->groups_pruned += r->groups_pruned;
	state->groups_matched += r->groups_matched;
	col_reader_end(r);
	state->reader = NULL;
}

/*
 * A worker adds its counters to the shared ones when its plan has run to
 * the end (ShutdownCustomScan), before its tuple queue detaches, so that
 * they are there once the leader has drained the queues: EndCustomScan
 * comes only after the detach, when the leader may already have collected
 * them.  Its end adds what is left (a scan stopped before its end).
 */
static void
publish_counters(ColScanState *state)
{
	retire_reader(state);
	state->filtered.batch = NULL;
	pg_atomic_fetch_add_u64(&state->shared->stripes_read, state->stripes_read);
	pg_atomic_fetch_add_u64(&state->shared->stripes_pruned, state->stripes_pruned);
	pg_atomic_fetch_add_u64(&state->shared->groups_read, state->groups_read);
	pg_atomic_fetch_add_u64(&state->shared->groups_pruned, state->groups_pruned);
	pg_atomic_fetch_add_u64(&state->shared->groups_matched, state->groups_matched);
	state->stripes_read = state->stripes_pruned = 0;
	state->groups_read = state->groups_pruned = state->groups_matched = 0;
}

static void
end_col_scan(CustomScanState *node)
{
	ColScanState *state = (ColScanState *) node;

	if (state->shared != NULL && scan_participant_is_helper())
		publish_counters(state);
	retire_reader(state);
	state->filtered.batch = NULL;
}

static void
rescan_col_scan(CustomScanState *node)
{
	ColScanState *state = (ColScanState *) node;

	/* parameters may have new values: the pruning is rebuilt with the reader */
	retire_reader(state);
	state->filtered.batch = NULL;
}

/*
 * The leader collects the workers' counters before the parallel context,
 * and with it the shared memory, goes away (EXPLAIN prints later).  The
 * Gather above has drained every worker by now, and each published its
 * counters before it detached (publish_counters).
 */
static void
shutdown_col_scan(CustomScanState *node)
{
	ColScanState *state = (ColScanState *) node;

	if (state->shared == NULL)
		return;
	if (scan_participant_is_helper())
	{
		publish_counters(state);
		return;
	}

	/*
	 * A leader that took no part in the scan (parallel_leader_participation
	 * off) has not built the filters its workers ran with, which EXPLAIN
	 * ANALYZE shows (only it: other queries skip the work); their
	 * parameters were computed when the Gather started.
	 */
	if (!state->filters_built && node->ss.ps.instrument != NULL)
	{
		build_prune(state);
		build_vector_filter(state);
		state->filters_built = true;
	}
	state->stripes_read += pg_atomic_read_u64(&state->shared->stripes_read);
	state->stripes_pruned += pg_atomic_read_u64(&state->shared->stripes_pruned);
	state->groups_read += pg_atomic_read_u64(&state->shared->groups_read);
	state->groups_pruned += pg_atomic_read_u64(&state->shared->groups_pruned);
	state->groups_matched += pg_atomic_read_u64(&state->shared->groups_matched);
	state->shared = NULL;
}

static Size
estimate_dsm(CustomScanState *node, ParallelContext *pcxt)
{
	ColScanState *state = (ColScanState *) node;
	StorageMeta meta;

	state->metadata_size = 0;
	if (storage_read_meta(node->ss.ss_currentRelation, &meta))
	{
		state->metadata_storage = meta.storage_id;
		state->metadata_size = chunk_cache_export_size(meta.storage_id);
	}
	return MAXALIGN(sizeof(ColScanShared)) + state->metadata_size;
}

static void
init_shared(ColScanShared *shared)
{
	memset(shared, 0, offsetof(ColScanShared, metadata_size));
	pg_atomic_init_u64(&shared->pscan.next_group, 0);
	pg_atomic_init_u64(&shared->stripes_read, 0);
	pg_atomic_init_u64(&shared->stripes_pruned, 0);
	pg_atomic_init_u64(&shared->groups_read, 0);
	pg_atomic_init_u64(&shared->groups_pruned, 0);
	pg_atomic_init_u64(&shared->groups_matched, 0);
}

static void
initialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	ColScanState *state = (ColScanState *) node;
	ColScanShared *shared = coordinate;

	init_shared(shared);
	shared->metadata_size = 0;
	if (state->metadata_size > 0)
	{
		chunk_cache_export(state->metadata_storage, SHARED_METADATA(shared),
						   state->metadata_size);
		shared->metadata_size = state->metadata_size;
	}
	state->shared = shared;
}

static void
reinitialize_dsm(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	ColScanState *state = (ColScanState *) node;

	retire_reader(state);
	/* counters so far were collected at shutdown; start the next round */
	shutdown_col_scan(node);
	init_shared(coordinate);
	state->shared = coordinate;
}

static void
initialize_worker(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	ColScanShared *shared = coordinate;

	if (shared->metadata_size > 0)
		chunk_cache_import(SHARED_METADATA(shared));
	((ColScanState *) node)->shared = shared;
}

void
explain_columns(const char *label, List *attnums, TupleDesc desc,
				ExplainState *es)
{
	StringInfoData cols;
	ListCell   *lc;

	initStringInfo(&cols);
	foreach(lc, attnums)
	{
		Form_pg_attribute attr;

		if (lfirst_int(lc) < 1 || lfirst_int(lc) > desc->natts)
			continue;
		attr = TupleDescAttr(desc, lfirst_int(lc) - 1);
		if (attr->attisdropped)
			continue;
		if (cols.len > 0)
			appendStringInfoString(&cols, ", ");
		appendStringInfoString(&cols, quote_identifier(NameStr(attr->attname)));
	}
	ExplainPropertyText(label, cols.len > 0 ? cols.data : "none", es);
}

static void
explain_col_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	ColScanState *state = (ColScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	TupleDesc	desc = RelationGetDescr(node->ss.ss_currentRelation);
	List	   *projected = NIL;
	int			a;

	for (a = 0; a < desc->natts; a++)
		if (state->projected[a])
			projected = lappend_int(projected, a + 1);
	explain_columns("Columns", projected, desc, es);

	if (cscan->custom_exprs != NIL)
	{
		List	   *context = set_deparse_context_plan(es->deparse_cxt,
													   node->ss.ps.plan, ancestors);
		char	   *filter = deparse_expression((Node *) make_ands_explicit(cscan->custom_exprs),
												context, es->verbose, false);

		ExplainPropertyText("Zone Map Filter", filter, es);
	}

	if (es->analyze && state->vfilter != NULL)
	{
		List	   *context = set_deparse_context_plan(es->deparse_cxt,
													   node->ss.ps.plan, ancestors);

		ExplainPropertyText("Vectorized Filter",
							deparse_expression((Node *) make_ands_explicit(vec_filter_clauses(state->vfilter)),
											   context, es->verbose, false),
							es);
	}
	if (es->analyze)
	{
		uint64		stripes_read = state->stripes_read;
		uint64		stripes_pruned = state->stripes_pruned;
		uint64		groups_read = state->groups_read;
		uint64		groups_pruned = state->groups_pruned;
		uint64		groups_matched = state->groups_matched;

		if (state->reader != NULL)
		{
			stripes_read += state->reader->stripes_read;
			stripes_pruned += state->reader->stripes_pruned;
			groups_read += state->reader->groups_read;
			groups_pruned += state->reader->groups_pruned;
			groups_matched += state->reader->groups_matched;
		}
		ExplainPropertyInteger("Stripes Read", NULL, (int64) stripes_read, es);
		ExplainPropertyInteger("Stripes Pruned", NULL, (int64) stripes_pruned, es);
		ExplainPropertyInteger("Chunk Groups Read", NULL, (int64) groups_read, es);
		ExplainPropertyInteger("Chunk Groups Pruned", NULL, (int64) groups_pruned, es);
		if (state->filter_provable)
			ExplainPropertyInteger("Chunk Groups Wholly Matching", NULL,
								   (int64) groups_matched, es);
	}
}

void
col_scan_exec_init(void)
{
	RegisterCustomScanMethods(&col_scan_methods);
}

TupleTableSlot *
col_scan_batch_row(CustomScanState *node, uint32 row)
{
	ColScanState *state = (ColScanState *) node;
	TupleTableSlot *slot = node->ss.ss_ScanTupleSlot;

	col_reader_store_row(state->reader, row, slot);
	return slot;
}

bool
col_scan_zones_all(CustomScanState *node, ZoneTestFn test, void *arg)
{
	return col_reader_zones_all(reader_of((ColScanState *) node), test, arg);
}

bool
col_scan_plan_is(Plan *plan)
{
	return plan != NULL && IsA(plan, CustomScan) &&
		((CustomScan *) plan)->methods == &col_scan_methods;
}
