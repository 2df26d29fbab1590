/*-------------------------------------------------------------------------
 *
 * row_scan_exec.c
 *	  Execution of the RowcompressScan custom scan: a scan of a rowcompress
 *	  table that needs no column at all (count(*), EXISTS, a join that only
 *	  counts), so it reads no batch and counts each batch's rows from its
 *	  metadata, less the rows deleted for the snapshot.
 *
 *	  A sequential scan cannot know that its rows go unread and decodes the
 *	  whole table.  Rows are all NULL, with their TIDs; the node's filter
 *	  (which reads no column either) still runs on them.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/parallel.h"
#include "commands/explain.h"
#include COMPAT_EXPLAIN_FORMAT_HEADER
#include "executor/executor.h"
#include "nodes/extensible.h"
#include "utils/rel.h"

#include "format/pending_writes.h"
#include "rowstore/row_reader.h"
#include "scan/scan_internal.h"

typedef struct RowScanState
{
	CustomScanState css;
	RowReader  *reader;			/* created on the first row */
} RowScanState;

static Node *create_row_scan_state(CustomScan *cscan);
static void begin_row_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_row_scan(CustomScanState *node);
static void end_row_scan(CustomScanState *node);
static void rescan_row_scan(CustomScanState *node);
static void explain_row_scan(CustomScanState *node, List *ancestors,
							 ExplainState *es);

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
	.ExplainCustomScan = explain_row_scan,
};

static Node *
create_row_scan_state(CustomScan *cscan)
{
	RowScanState *state = (RowScanState *) newNode(sizeof(RowScanState),
												   T_CustomScanState);

	state->css.methods = &row_exec_methods;
	return (Node *) state;
}

static void
begin_row_scan(CustomScanState *node, EState *estate, int eflags)
{
	/* rows this transaction still buffers must be counted too */
	if (!IsParallelWorker())
		pending_flush_for_read(node->ss.ss_currentRelation);
}

static TupleTableSlot *
next_row(ScanState *ss)
{
	RowScanState *state = (RowScanState *) ss;
	bool		forward = !ScanDirectionIsBackward(ss->ps.state->es_direction);

	if (state->reader == NULL)
	{
		state->reader = row_reader_begin(ss->ss_currentRelation,
										 ss->ps.state->es_snapshot, NULL);
		row_reader_no_columns(state->reader);
	}
	row_reader_next_slot(state->reader, forward, ss->ss_ScanTupleSlot);
	return ss->ss_ScanTupleSlot;
}

static bool
recheck_row(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

static TupleTableSlot *
exec_row_scan(CustomScanState *node)
{
	return ExecScan(&node->ss, next_row, recheck_row);
}

static void
end_row_scan(CustomScanState *node)
{
	RowScanState *state = (RowScanState *) node;

	if (state->reader != NULL)
		row_reader_end(state->reader);
	state->reader = NULL;
}

static void
rescan_row_scan(CustomScanState *node)
{
	RowScanState *state = (RowScanState *) node;

	if (state->reader != NULL)
		row_reader_reset(state->reader);
}

static void
explain_row_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	explain_columns("Columns", NIL, RelationGetDescr(node->ss.ss_currentRelation),
					es);
}

void
row_scan_exec_init(void)
{
	RegisterCustomScanMethods(&row_scan_methods);
}
