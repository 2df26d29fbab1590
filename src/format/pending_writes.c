/*-------------------------------------------------------------------------
 *
 * pending_writes.c
 *	  Owns the write buffers of the current transaction, for both access
 *	  methods: one buffer per (relation, subtransaction), and the rules for
 *	  when buffered rows are written.  The buffers themselves belong to the
 *	  access methods (PendingWriterOps).
 *
 *	  Metadata rows get the xid of the subtransaction that inserts them, so
 *	  a buffer may only be written while its own subtransaction is the
 *	  current one:
 *	  - at top-level commit (PRE_COMMIT), every buffer is written;
 *	  - a subtransaction that commits hands its buffers to its parent (the
 *		rows are the parent's now), except those the parent has one for
 *		too, which it writes first; one that aborts throws them away;
 *	  - SAVEPOINT writes the buffers first, so a later read inside the
 *		savepoint needs nothing from an outer level;
 *	  - a query that reads a table with buffered rows writes them at
 *		ExecutorStart (before any parallel mode begins), and a scan started
 *		outside the executor writes them at scan start;
 *	  - statements that may build an index write them before they run,
 *		outer levels' too (kept as below): a parallel build enters parallel
 *		mode before its scan starts, and nothing can be written then (a
 *		restore in one transaction loads a table and indexes it);
 *	  - a table rewrite writes its transient table's at its end, before the
 *		storage swap (storage_am_finish_bulk_insert);
 *	  - past storage_engine.write_buffer_memory, the largest is written.
 *	  - a read inside a subtransaction begun without SAVEPOINT (a PL/pgSQL
 *		block with EXCEPTION) of rows an outer level buffers writes them in
 *		that subtransaction, and the buffer keeps them (written_in) until
 *		the write is the outer level's: a subtransaction that commits hands
 *		the write to its parent; if the writing subtransaction aborts, its
 *		metadata rows go and the rows are buffered again, to be written at
 *		the outer level's next chance.  Their row numbers, already in
 *		indexes, do not change.
 *	  A buffer belongs to the relation's storage (relfilenode) it was made
 *	  for.  TRUNCATE, a rewrite or DROP leave it in place, unread and
 *	  unwritten (entry_for), since a subtransaction that did it may abort
 *	  and bring that storage back with these rows; at commit it is dropped.
 *
 *	  The buffers live in a context under TopMemoryContext that is reset
 *	  at the end of every transaction.  Together they hold at most about
 *	  storage_engine.write_buffer_memory: a transaction inserting into many
 *	  tables or partitions would otherwise hold up to a stripe for each.
 *	  Past it, the largest buffer of the current subtransaction is written
 *	  early, as a shorter stripe or batch, and its memory released.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/relation.h"
#include "access/xact.h"
#include "executor/executor.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "format/pending_writes.h"
#include "format/storage_am.h"
#include "format/tid_blocks.h"
#include "guc.h"

typedef struct PendingWrite
{
	Oid			relid;
	RelFileNumber relnumber;
	SubTransactionId subxid;
	SubTransactionId written_in;	/* rows written by this descendant of
									 * subxid's, kept while it may abort */
	const PendingWriterOps *ops;
	void	   *writer;
	Size		empty_memory;	/* what the writer held when made */
} PendingWrite;

uint64		pending_flush_count = 0;

static MemoryContext pending_cxt = NULL;
static List *pending = NIL;

/*
 * What the buffers hold for their rows, at least: summing every buffer's
 * memory for every row would cost a load into many partitions a call per
 * partition per row, so only the buffer last handed out is measured again
 * (rows go into it), and the exact sum is taken when this passes the
 * budget.  What an empty writer holds is not counted: writing its rows
 * cannot give that back, and counting it made 40 partitions under a 1 MB
 * budget write a stripe every few rows.
 */
static Size held_memory = 0;
static PendingWrite *last_handed = NULL;
static Size last_handed_memory = 0;

static ExecutorStart_hook_type prev_executor_start = NULL;
static ProcessUtility_hook_type prev_process_utility = NULL;

static void
forget_all(void)
{
	pending = NIL;
	held_memory = 0;
	last_handed = NULL;
	if (pending_cxt != NULL)
		MemoryContextReset(pending_cxt);
}

/* Rows of entry p not written yet (none while a write of them is kept). */
static uint64
unwritten_rows(PendingWrite *p)
{
	return p->written_in != InvalidSubTransactionId ? 0 :
		p->ops->pending_rows(p->writer);
}

/*
 * Is entry p's buffer for rel's storage?  Not once the relation's storage
 * was replaced (TRUNCATE, a rewrite) or the relation dropped: the entry
 * stays, unwritten and unread, for the subtransaction that did it may
 * abort and bring the storage back with the rows the entry holds for it.
 */
static bool
entry_for(PendingWrite *p, Relation rel)
{
	return p->relid == RelationGetRelid(rel) &&
		p->relnumber == RelFileNumberOf(rel);
}

/* Entry p's relation, open, or NULL when entry_for it no longer holds. */
static Relation
open_entry_relation(PendingWrite *p)
{
	Relation	rel = try_relation_open(p->relid, NoLock);

	if (rel != NULL && !entry_for(p, rel))
	{
		relation_close(rel, NoLock);
		rel = NULL;
	}
	return rel;
}

/* Writes entry p's rows in the current subtransaction, keeping them. */
static void
write_entry(PendingWrite *p)
{
	Relation	rel = open_entry_relation(p);

	pending_flush_count++;
	if (rel == NULL)
		return;
	p->ops->write(p->writer, rel);
	relation_close(rel, NoLock);
}

static void
flush_entry(PendingWrite *p)
{
	if (unwritten_rows(p) == 0)
		return;
	write_entry(p);
	p->ops->clear(p->writer);
}

/*
 * Writes entry p's rows so that reads by subtransaction subxid (the
 * current one) see them: an outer level's are kept until the write is its
 * own (written_in).
 */
static void
write_for_read(PendingWrite *p, SubTransactionId subxid)
{
	if (p->subxid == subxid)
		flush_entry(p);
	else if (unwritten_rows(p) > 0)
	{
		write_entry(p);
		p->written_in = subxid;
	}
}

/* Counts the growth of the buffer last handed out into held_memory. */
static void
measure_last_handed(void)
{
	Size		now;

	if (last_handed == NULL)
		return;
	now = last_handed->ops->memory(last_handed->writer);
	if (now > last_handed_memory)
		held_memory += now - last_handed_memory;
	last_handed_memory = now;
}

static void *
hand_out(PendingWrite *p)
{
	last_handed = p;
	last_handed_memory = p->ops->memory(p->writer);
	return p->writer;
}

/* Memory entry p's writer holds for its rows. */
static Size
rows_memory(PendingWrite *p)
{
	Size		memory = p->ops->memory(p->writer);

	return memory > p->empty_memory ? memory - p->empty_memory : 0;
}

/* Gives entry p a new, empty writer for rel. */
static void
new_writer(PendingWrite *p, Relation rel)
{
	p->writer = p->ops->create(rel, pending_cxt);
	p->empty_memory = p->ops->memory(p->writer);
}

/* Releases entry p's writer (its rows written or thrown away). */
static void
free_writer(PendingWrite *p)
{
	if (last_handed == p)
		last_handed = NULL;
	p->ops->free(p->writer);
	p->writer = NULL;
}

/*
 * Writes entry p's rows and gives it a new writer: a writer keeps its
 * arrays for its next stripe, which is memory too.
 */
static void
renew_entry(PendingWrite *p)
{
	Relation	rel;

	flush_entry(p);
	rel = open_entry_relation(p);
	free_writer(p);
	if (rel == NULL)
	{
		/* the current level's rows of storage it replaced: nothing keeps them */
		pending = list_delete_ptr(pending, p);
		pfree(p);
		return;
	}
	new_writer(p, rel);
	relation_close(rel, NoLock);
}

void
pending_keep_within_budget(void)
{
	Size		budget = (Size) storage_engine_write_buffer_memory * 1024;
	SubTransactionId subxid = GetCurrentSubTransactionId();

	measure_last_handed();
	while (held_memory > budget)
	{
		PendingWrite *largest = NULL;
		Size		largest_memory = 0;
		Size		current_level = 0;
		ListCell   *lc;

		held_memory = 0;
		foreach(lc, pending)
		{
			PendingWrite *p = lfirst(lc);
			Size		memory = rows_memory(p);

			held_memory += memory;
			if (p->subxid != subxid)
				continue;
			current_level += memory;
			if (memory > largest_memory && unwritten_rows(p) > 0)
			{
				largest = p;
				largest_memory = memory;
			}
		}

		/*
		 * Only the current subtransaction's buffers can be written.  When
		 * an outer level's (buffered before a PL/pgSQL block with an
		 * EXCEPTION clause began) pass the budget alone, the current ones
		 * are still given half of it, or every row would be a stripe.
		 */
		if (held_memory <= budget || largest == NULL ||
			current_level <= budget / 2)
			break;

		renew_entry(largest);
		held_memory -= Min(held_memory, largest_memory);
	}
}

void *
pending_writer(Relation rel, const PendingWriterOps *ops)
{
	SubTransactionId subxid = GetCurrentSubTransactionId();
	PendingWrite *p = NULL;
	ListCell   *lc;
	MemoryContext old;

	measure_last_handed();
	foreach(lc, pending)
	{
		PendingWrite *e = lfirst(lc);

		if (e->relid == RelationGetRelid(rel) && e->subxid == subxid &&
			e->relnumber == RelFileNumberOf(rel))
			p = e;
	}

	/* a column added since the buffer began: write what it holds first */
	if (p != NULL && p->ops->natts(p->writer) != RelationGetDescr(rel)->natts)
	{
		flush_entry(p);
		free_writer(p);
		new_writer(p, rel);
	}
	if (p != NULL)
		return p == last_handed ? p->writer : hand_out(p);

	if (pending_cxt == NULL)
		pending_cxt = AllocSetContextCreate(TopMemoryContext,
											"pending writes",
											ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(pending_cxt);
	p = palloc0(sizeof(PendingWrite));
	p->relid = RelationGetRelid(rel);
	p->relnumber = RelFileNumberOf(rel);
	p->subxid = subxid;
	p->ops = ops;
	new_writer(p, rel);
	pending = lappend(pending, p);
	MemoryContextSwitchTo(old);
	return hand_out(p);
}

void
pending_flush_for_read(Relation rel)
{
	SubTransactionId subxid = GetCurrentSubTransactionId();
	ListCell   *lc;

	foreach(lc, pending)
	{
		PendingWrite *p = lfirst(lc);

		if (!entry_for(p, rel) || unwritten_rows(p) == 0)
			continue;
		if (IsInParallelMode())
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot write buffered rows of %s table \"%s\" during a parallel operation",
							p->ops->am_name, RelationGetRelationName(rel)),
					 errhint("Disable parallel query for this statement.")));
		write_for_read(p, subxid);
	}
}

uint64
pending_row_count(Relation rel)
{
	uint64		rows = 0;
	ListCell   *lc;

	foreach(lc, pending)
	{
		PendingWrite *p = lfirst(lc);

		if (entry_for(p, rel))
			rows += unwritten_rows(p);
	}
	return rows;
}

bool
pending_holds_row(Relation rel, uint64 rownum)
{
	ListCell   *lc;

	foreach(lc, pending)
	{
		PendingWrite *p = lfirst(lc);

		if (entry_for(p, rel) && unwritten_rows(p) > 0 &&
			p->ops->holds_row(p->writer, rownum))
			return true;
	}
	return false;
}

void
pending_flush_row(Relation rel, uint64 rownum)
{
	if (pending_holds_row(rel, rownum))
		pending_flush_for_read(rel);
}

/* Writes the current level's rows, or with all_levels every level's. */
static void
flush_levels(bool all_levels)
{
	SubTransactionId subxid = GetCurrentSubTransactionId();
	ListCell   *lc;

	foreach(lc, pending)
	{
		PendingWrite *p = lfirst(lc);

		if (p->subxid == subxid || all_levels)
			write_for_read(p, subxid);
	}
}

void
pending_forget(Relation rel)
{
	ListCell   *lc;

	foreach(lc, pending)
	{
		PendingWrite *p = lfirst(lc);

		if (entry_for(p, rel))
		{
			free_writer(p);
			pending = foreach_delete_current(pending, lc);
		}
	}
}

static void
xact_callback(XactEvent event, void *arg)
{
	ListCell   *lc;

	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PARALLEL_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			{
				uint64		flushes = pending_flush_count;

				foreach(lc, pending)
					flush_entry(lfirst(lc));
				forget_all();

				/*
				 * What the commit does next sees the metadata rows just
				 * written: ON COMMIT DELETE ROWS deletes them, which a row
				 * inserted by the current command cannot be.
				 */
				if (pending_flush_count != flushes)
					CommandCounterIncrement();
			}
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_PREPARE:
			forget_all();
			break;
	}
}

/* Does the parent level buffer rows for entry p's storage too? */
static bool
parent_buffers_same(PendingWrite *p, SubTransactionId parentSubid)
{
	ListCell   *lc;

	foreach(lc, pending)
	{
		PendingWrite *q = lfirst(lc);

		if (q->subxid == parentSubid && q->relid == p->relid &&
			q->relnumber == p->relnumber)
			return true;
	}
	return false;
}

static void
subxact_callback(SubXactEvent event, SubTransactionId mySubid,
				 SubTransactionId parentSubid, void *arg)
{
	ListCell   *lc;

	switch (event)
	{
		case SUBXACT_EVENT_PRE_COMMIT_SUB:

			/*
			 * A buffer the parent has one of for the same storage is
			 * written now, while its rows are still this subtransaction's:
			 * handed up, it would sit beside the parent's until the end
			 * (two buffers cannot be joined: their rows' numbers are in
			 * indexes already), and a loop of PL/pgSQL blocks with
			 * EXCEPTION clauses, each a subtransaction, held one buffer per
			 * block, 22 kB each: 20,000 blocks took 440 MB.
			 */
			foreach(lc, pending)
			{
				PendingWrite *p = lfirst(lc);

				if (p->subxid != mySubid || !parent_buffers_same(p, parentSubid))
					continue;
				flush_entry(p);
				free_writer(p);
				pending = foreach_delete_current(pending, lc);
				pfree(p);
			}
			break;
		case SUBXACT_EVENT_COMMIT_SUB:
			foreach(lc, pending)
			{
				PendingWrite *p = lfirst(lc);

				if (p->subxid == mySubid)
					p->subxid = parentSubid;
				if (p->written_in != mySubid)
					continue;
				/* the write is the parent's now; the owner's: done */
				p->written_in = parentSubid;
				if (parentSubid == p->subxid)
				{
					p->ops->clear(p->writer);
					p->written_in = InvalidSubTransactionId;
				}
			}
			break;
		case SUBXACT_EVENT_ABORT_SUB:
			foreach(lc, pending)
			{
				PendingWrite *p = lfirst(lc);

				if (p->subxid == mySubid)
				{
					free_writer(p);
					pending = foreach_delete_current(pending, lc);
				}
				else if (p->written_in == mySubid)
					p->written_in = InvalidSubTransactionId;	/* buffered again */
			}
			break;
		default:
			break;
	}
}

/* Is relid read by this plan (anything but the target of an INSERT)? */
static bool
plan_reads(PlannedStmt *stmt, Oid relid)
{
	ListCell   *lc;
	Index		rti = 0;

	foreach(lc, stmt->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		rti++;
		if (rte->rtekind != RTE_RELATION || rte->relid != relid)
			continue;
		if (stmt->commandType == CMD_INSERT &&
			list_member_int(stmt->resultRelations, (int) rti))
			continue;
		return true;
	}
	return false;
}

static void
executor_start(QueryDesc *queryDesc, int eflags)
{
	if (pending != NIL && !IsInParallelMode())
	{
		ListCell   *lc;

		foreach(lc, pending)
		{
			PendingWrite *p = lfirst(lc);

			if (unwritten_rows(p) > 0 &&
				plan_reads(queryDesc->plannedstmt, p->relid))
			{
				Relation	rel = relation_open(p->relid, NoLock);

				pending_flush_for_read(rel);
				relation_close(rel, NoLock);
			}
		}
	}
	if (prev_executor_start)
		prev_executor_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

static void
process_utility(PlannedStmt *pstmt, const char *queryString,
				bool readOnlyTree, ProcessUtilityContext context,
				ParamListInfo params, QueryEnvironment *queryEnv,
				DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;

	storage_am_utility_starts(parsetree, context);
	if (pending != NIL && IsA(parsetree, TransactionStmt) &&
		((TransactionStmt *) parsetree)->kind == TRANS_STMT_SAVEPOINT)
		flush_levels(false);
	else if (pending != NIL && !IsInParallelMode() &&
			 statement_may_build_index(parsetree))
		flush_levels(true);		/* also an outer level's, which the build reads */

	if (prev_process_utility)
		prev_process_utility(pstmt, queryString, readOnlyTree, context,
							 params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);

	/* what a parallel BRIN build could not do itself (tid_blocks.c) */
	if (statement_may_build_index(parsetree))
		tid_blocks_cover_noted();
}

void
pending_writes_init(void)
{
	RegisterXactCallback(xact_callback, NULL);
	RegisterSubXactCallback(subxact_callback, NULL);
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = executor_start;
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = process_utility;
}
