/*-------------------------------------------------------------------------
 *
 * filtered_rows.c
 *	  Filtered batches handed upward, for both custom scans: batches whose
 *	  selection vectors hold only the rows passing the filter (kernels on
 *	  the column arrays, then the other clauses).
 *
 *	  As rows, the loop ExecScan would run, so a row is built in the
 *	  scan's slot only for a row that passes, and projected.  Forward only:
 *	  the position is the batch's own.  EvalPlanQual rechecks and scans
 *	  that may go backward stay with ExecScan.
 *
 *	  As batches, to a vectorized aggregation reading the node directly,
 *	  not through ExecProcNode: the node's instrumentation counts their
 *	  rows as if they had been returned one by one, so EXPLAIN ANALYZE
 *	  reads the same either way.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "executor/executor.h"
#include "executor/instrument.h"

#include "scan/scan_internal.h"

TupleTableSlot *
filtered_rows_next(ScanState *ss, FilteredRows *rows, FilteredBatchFn next_batch,
				   StoreBatchRowFn store_row)
{
	ExprContext *econtext = ss->ps.ps_ExprContext;
	ProjectionInfo *proj = ss->ps.ps_ProjInfo;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	uint32		row;

	ResetExprContext(econtext);
	while (rows->batch == NULL || rows->next >= rows->batch->nsel)
	{
		rows->batch = next_batch(ss);
		rows->next = 0;
		if (rows->batch == NULL)
			return proj ? ExecClearTuple(proj->pi_state.resultslot) :
				ExecClearTuple(slot);
	}
	row = rows->batch->sel != NULL ? rows->batch->sel[rows->next] : rows->next;
	rows->next++;
	store_row(ss, row, slot);
	econtext->ecxt_scantuple = slot;
	return proj ? ExecProject(proj) : slot;
}

RowBatch *
filtered_batch_counted(ScanState *ss, FilteredBatchFn next_batch)
{
	Instrumentation *instr = ss->ps.instrument;
	RowBatch   *b;

	if (instr != NULL)
		InstrStartNode(instr);
	b = next_batch(ss);
	if (instr != NULL)
		InstrStopNode(instr, b != NULL ? (double) b->nsel : 0.0);
	return b;
}
