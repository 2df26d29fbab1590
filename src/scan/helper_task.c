/*-------------------------------------------------------------------------
 *
 * helper_task.c
 *	  A task for scan helpers (scan_helpers.c): the part of a plan below a
 *	  Gather, which the leader runs too, handed over in a shared memory
 *	  segment with what a parallel worker would restore: the snapshot, the
 *	  users, the settings the session changed, and each parallel-aware
 *	  node's shared state.  Each helper has a seat in the task and a tuple
 *	  queue back to the leader.
 *
 *	  A seat moves from PENDING to ACCEPTED when its helper is ready to
 *	  run, or to WITHDRAWN when the leader is done with its own part
 *	  first; a helper that cannot run it (the leader's snapshot is gone, a
 *	  relation's lock is not free, any error) DECLINES.  Only after
 *	  accepting does a helper take part in the scan (claim work from the
 *	  scan's shared state), so a declined or withdrawn seat leaves nothing
 *	  undone, and the leader never waits for a helper that is not running.
 *	  Before accepting, the helper takes its locks without waiting: one
 *	  that waited behind a queued lock request could wait for the leader,
 *	  which would wait for it, a deadlock no detector sees (parallel
 *	  workers are in the leader's lock group; a helper is not).  An
 *	  accepted seat ends DONE, after its last tuple, or FAILED, with the
 *	  error the leader raises.  A helper that dies before either leaves its
 *	  part of the scan undone: the leader raises an error rather than
 *	  return fewer rows.
 *
 *	  A helper is not the leader's parallel worker: it runs in a
 *	  transaction of its own, so it helps only where that cannot differ:
 *	  the leader has no transaction id (no writes of its own to see), is
 *	  not serializable (predicate locks are the transaction's), has no
 *	  parameters, and is the same session user it started the helper as.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/xact.h"
#include "executor/tqueue.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/nodeFuncs.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/shm_mq.h"
#include "storage/shm_toc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "scan/helper_task.h"
#include "scan/scan_helpers.h"

#define TASK_MAGIC			0x5CA4E1F1
/* above any plan node id, which keys the nodes' shared state */
#define TASK_KEY_HEADER		UINT64CONST(0xE5C0000000000001)
#define TASK_KEY_PLAN		UINT64CONST(0xE5C0000000000002)
#define TASK_KEY_SNAPSHOT	UINT64CONST(0xE5C0000000000003)
#define TASK_KEY_SETTINGS	UINT64CONST(0xE5C0000000000004)
#define TASK_KEY_QUEUES		UINT64CONST(0xE5C0000000000005)

/* as PostgreSQL's Gather has it */
#define TUPLE_QUEUE_SIZE	((Size) 65536)
#define ERROR_TEXT_SIZE		1024

typedef enum SeatState
{
	SEAT_PENDING,
	SEAT_ACCEPTED,
	SEAT_DECLINED,
	SEAT_WITHDRAWN,
	SEAT_DONE,
	SEAT_FAILED
} SeatState;

typedef struct TaskSeat
{
	pg_atomic_uint32 state;
	int			helper_pid;
	int			sqlerrcode;
	char		message[ERROR_TEXT_SIZE];
	char		detail[ERROR_TEXT_SIZE];
	char		hint[ERROR_TEXT_SIZE];
} TaskSeat;

typedef struct TaskHeader
{
	uint64		task_id;
	int			leader_procno;
	int			leader_pid;
	Oid			session_user;
	Oid			outer_user;
	bool		outer_is_superuser;
	Oid			current_user;
	int			sec_context;
	int			isolation;
	Size		settings_len;
	int			nseats;
	TaskSeat	seats[FLEXIBLE_ARRAY_MEMBER];
} TaskHeader;

/* The leader's side of a task. */
struct HelperTask
{
	dsm_segment *seg;
	TaskHeader *header;
	int			nseats;
	TupleQueueReader **readers;
	BackgroundWorkerHandle **workers;
	bool	   *finished;
	int			next_seat;
	int			joined;			/* seats accepted */
};

static uint64 last_task_id = 0;

/*
 * The parallel-aware nodes of a subtree: our scans (helper_gather.c takes
 * no other), whose EstimateDSM/InitializeDSM/InitializeWorker callbacks
 * ignore the ParallelContext, which a task does not have.
 */
typedef struct NodeWalk
{
	shm_toc_estimator *estimator;
	shm_toc    *toc;
	bool		worker;
} NodeWalk;

static bool
walk_parallel_nodes(PlanState *ps, NodeWalk *w)
{
	if (ps == NULL)
		return false;
	if (IsA(ps, CustomScanState) && ps->plan->parallel_aware)
	{
		CustomScanState *css = (CustomScanState *) ps;
		const CustomExecMethods *m = css->methods;
		uint64		key = (uint64) ps->plan->plan_node_id;

		/* the size kept where PostgreSQL's ExecCustomScanEstimate keeps it */
		if (w->estimator != NULL)
		{
			css->pscan_len = m->EstimateDSMCustomScan(css, NULL);
			shm_toc_estimate_chunk(w->estimator, css->pscan_len);
			shm_toc_estimate_keys(w->estimator, 1);
		}
		else if (!w->worker)
		{
			void	   *coordinate = shm_toc_allocate(w->toc, css->pscan_len);

			m->InitializeDSMCustomScan(css, NULL, coordinate);
			shm_toc_insert(w->toc, key, coordinate);
		}
		else
			m->InitializeWorkerCustomScan(css, w->toc,
										  shm_toc_lookup(w->toc, key, false));
	}
	return planstate_tree_walker(ps, walk_parallel_nodes, w);
}

/*
 * The settings the session changed (from the client, SET, a function's
 * SET), as name and value strings one after the other: the helper has the
 * others already, from the same files, database and role.  Not those that
 * belong to a transaction or a session's identity, which the task carries
 * otherwise or a helper must keep its own.
 */
static void
serialize_settings(StringInfo buf)
{
	int			count;
	struct config_generic **vars = compat_guc_variables(&count);
	int			i;

	for (i = 0; i < count; i++)
	{
		struct config_generic *var = vars[i];
		const char *value;

		if (var->source < PGC_S_CLIENT ||
			(var->context != PGC_USERSET && var->context != PGC_SUSET) ||
			(var->flags & GUC_NO_RESET_ALL) != 0 ||
			strcmp(var->name, "client_encoding") == 0 ||
			strcmp(var->name, "application_name") == 0)
			continue;
		value = GetConfigOption(var->name, true, false);
		if (value == NULL)
			continue;
		appendBinaryStringInfo(buf, var->name, strlen(var->name) + 1);
		appendBinaryStringInfo(buf, value, strlen(value) + 1);
	}
}

static void
restore_settings(const char *p, Size len)
{
	const char *end = p + len;

	while (p < end)
	{
		const char *name = p;
		const char *value = name + strlen(name) + 1;
		const char *mine = GetConfigOption(name, true, false);

		p = value + strlen(value) + 1;
		if (mine != NULL && strcmp(mine, value) == 0)
			continue;
		/* undone when the helper's transaction ends */
		(void) set_config_option(name, value, PGC_SUSET, PGC_S_SESSION,
								 GUC_ACTION_LOCAL, true, ERROR, false);
	}
}

/* The subtree as a statement of its own, as PostgreSQL's Gather sends it. */
static char *
serialize_plan(Plan *plan, EState *estate)
{
	PlannedStmt *stmt = makeNode(PlannedStmt);
	ListCell   *lc;

	*stmt = *estate->es_plannedstmt;
	plan = copyObject(plan);
	/* the leader needs every column back, junk or not */
	foreach(lc, plan->targetlist)
		lfirst_node(TargetEntry, lc)->resjunk = false;
	stmt->commandType = CMD_SELECT;
	stmt->hasReturning = false;
	stmt->hasModifyingCTE = false;
	stmt->canSetTag = true;
	stmt->transientPlan = false;
	stmt->dependsOnRole = false;
	stmt->parallelModeNeeded = false;
	stmt->jitFlags = 0;
	stmt->planTree = plan;
	stmt->resultRelations = NIL;
	stmt->subplans = NIL;
	stmt->rewindPlanIDs = NULL;
	stmt->rowMarks = NIL;
	stmt->relationOids = NIL;
	stmt->invalItems = NIL;
	stmt->utilityStmt = NULL;
	stmt->stmt_location = -1;
	stmt->stmt_len = -1;
	return nodeToString(stmt);
}

/*
 * When the leader lets go of a task before its helpers are done (an error,
 * a cancel, a LIMIT met), they are told to stop: a partial aggregation
 * sends nothing before its end, so they would otherwise scan their whole
 * share for nobody.
 */
static void
cancel_running_seats(dsm_segment *seg, Datum arg)
{
	TaskHeader *header = (TaskHeader *) DatumGetPointer(arg);
	int			i;

	for (i = 0; i < header->nseats; i++)
		if (pg_atomic_read_u32(&header->seats[i].state) == SEAT_ACCEPTED)
			scan_helper_cancel(header->seats[i].helper_pid);
}

HelperTask *
helper_task_start(PlanState *subtree, EState *estate, ScanHelper **helpers,
				  int nhelpers)
{
	shm_toc_estimator est;
	NodeWalk	walk = {&est, NULL, false};
	StringInfoData settings;
	char	   *plan = serialize_plan(subtree->plan, estate);
	Size		header_size = add_size(offsetof(TaskHeader, seats),
									   mul_size(sizeof(TaskSeat), nhelpers));
	Size		snapshot_size = EstimateSnapshotSpace(estate->es_snapshot);
	Size		size;
	dsm_segment *seg;
	shm_toc    *toc;
	TaskHeader *header;
	char	   *space;
	char	   *queues;
	HelperTask *task;
	int			i;

	initStringInfo(&settings);
	serialize_settings(&settings);

	shm_toc_initialize_estimator(&est);
	shm_toc_estimate_chunk(&est, header_size);
	shm_toc_estimate_chunk(&est, strlen(plan) + 1);
	shm_toc_estimate_chunk(&est, snapshot_size);
	shm_toc_estimate_chunk(&est, settings.len + 1);
	shm_toc_estimate_chunk(&est, mul_size(TUPLE_QUEUE_SIZE, nhelpers));
	shm_toc_estimate_keys(&est, 5);
	walk_parallel_nodes(subtree, &walk);
	size = shm_toc_estimate(&est);

	seg = dsm_create(size, DSM_CREATE_NULL_IF_MAXSEGMENTS);
	if (seg == NULL)
		return NULL;
	toc = shm_toc_create(TASK_MAGIC, dsm_segment_address(seg), size);

	header = shm_toc_allocate(toc, header_size);
	header->task_id = ++last_task_id;
	header->leader_procno = compat_my_proc_number();
	header->leader_pid = MyProcPid;
	header->session_user = GetSessionUserId();
	header->outer_user = GetOuterUserId();
	header->outer_is_superuser = superuser_arg(header->outer_user);
	GetUserIdAndSecContext(&header->current_user, &header->sec_context);
	header->isolation = XactIsoLevel;
	header->settings_len = settings.len;
	header->nseats = nhelpers;
	for (i = 0; i < nhelpers; i++)
	{
		pg_atomic_init_u32(&header->seats[i].state, SEAT_PENDING);
		header->seats[i].helper_pid = 0;
	}
	shm_toc_insert(toc, TASK_KEY_HEADER, header);

	space = shm_toc_allocate(toc, strlen(plan) + 1);
	strcpy(space, plan);
	shm_toc_insert(toc, TASK_KEY_PLAN, space);
	space = shm_toc_allocate(toc, snapshot_size);
	SerializeSnapshot(estate->es_snapshot, space);
	shm_toc_insert(toc, TASK_KEY_SNAPSHOT, space);
	space = shm_toc_allocate(toc, settings.len + 1);
	memcpy(space, settings.data, settings.len + 1);
	shm_toc_insert(toc, TASK_KEY_SETTINGS, space);
	queues = shm_toc_allocate(toc, mul_size(TUPLE_QUEUE_SIZE, nhelpers));
	shm_toc_insert(toc, TASK_KEY_QUEUES, queues);

	walk.estimator = NULL;
	walk.toc = toc;
	walk_parallel_nodes(subtree, &walk);

	task = palloc0(sizeof(HelperTask));
	task->seg = seg;
	task->header = header;
	task->nseats = nhelpers;
	task->readers = palloc0(sizeof(TupleQueueReader *) * nhelpers);
	task->workers = palloc0(sizeof(BackgroundWorkerHandle *) * nhelpers);
	task->finished = palloc0(sizeof(bool) * nhelpers);
	for (i = 0; i < nhelpers; i++)
	{
		shm_mq	   *mq = shm_mq_create(queues + i * TUPLE_QUEUE_SIZE,
									   TUPLE_QUEUE_SIZE);

		shm_mq_set_receiver(mq, MyProc);
		task->workers[i] = scan_helper_worker(helpers[i]);
		/* with the worker's handle, a helper that dies detaches it */
		task->readers[i] = CreateTupleQueueReader(shm_mq_attach(mq, seg,
																task->workers[i]));
	}
	on_dsm_detach(seg, cancel_running_seats, PointerGetDatum(header));

	for (i = 0; i < nhelpers; i++)
	{
		HelperTaskMessage msg;

		msg.handle = dsm_segment_handle(seg);
		msg.seat = i;
		msg.task_id = header->task_id;
		if (!scan_helper_send(helpers[i], &msg))
			pg_atomic_write_u32(&header->seats[i].state, SEAT_WITHDRAWN);
	}
	return task;
}

static void
raise_seat_error(TaskSeat *seat)
{
	ereport(ERROR,
			(errcode(seat->sqlerrcode),
			 errmsg_internal("%s", seat->message),
			 seat->detail[0] != '\0' ? errdetail_internal("%s", seat->detail) : 0,
			 seat->hint[0] != '\0' ? errhint("%s", seat->hint) : 0,
			 errcontext("scan helper")));
}

/*
 * A tuple one of the helpers sent, or NULL when none has one now; *done
 * when none ever will.
 */
MinimalTuple
helper_task_next(HelperTask *task, bool *done)
{
	int			n;

	*done = true;
	for (n = 0; n < task->nseats; n++)
	{
		int			i = (task->next_seat + n) % task->nseats;
		TaskSeat   *seat = &task->header->seats[i];
		uint32		state;
		MinimalTuple tuple;
		bool		queue_done;

		if (task->finished[i])
			continue;
		state = pg_atomic_read_u32(&seat->state);
		if (state == SEAT_DECLINED || state == SEAT_WITHDRAWN)
		{
			task->finished[i] = true;
			continue;
		}
		if (state == SEAT_FAILED)
			raise_seat_error(seat);
		if (state == SEAT_PENDING)
		{
			pid_t		pid;
			BgwHandleStatus status = GetBackgroundWorkerPid(task->workers[i], &pid);
			uint32		expected = SEAT_PENDING;

			/* a helper that is gone will not take it */
			if (status != BGWH_STARTED && status != BGWH_NOT_YET_STARTED &&
				pg_atomic_compare_exchange_u32(&seat->state, &expected, SEAT_WITHDRAWN))
			{
				task->finished[i] = true;
				continue;
			}
			*done = false;
			continue;
		}
		tuple = TupleQueueReaderNext(task->readers[i], true, &queue_done);
		if (tuple != NULL)
		{
			task->next_seat = (i + 1) % task->nseats;
			*done = false;
			return tuple;
		}
		if (!queue_done)
		{
			*done = false;
			continue;
		}
		/* the helper sets its state before it lets go of the queue */
		pg_read_barrier();
		state = pg_atomic_read_u32(&seat->state);
		if (state == SEAT_FAILED)
			raise_seat_error(seat);
		if (state != SEAT_DONE)
			ereport(ERROR,
					(errcode(ERRCODE_CONNECTION_FAILURE),
					 errmsg("a scan helper exited before it finished its part of the scan")));
		task->finished[i] = true;
		task->joined++;
	}
	return NULL;
}

/* The leader's own part is done: helpers that have not started never will. */
void
helper_task_withdraw(HelperTask *task)
{
	int			i;

	for (i = 0; i < task->nseats; i++)
	{
		uint32		expected = SEAT_PENDING;

		(void) pg_atomic_compare_exchange_u32(&task->header->seats[i].state,
											  &expected, SEAT_WITHDRAWN);
	}
}

int
helper_task_joined(HelperTask *task)
{
	return task->joined;
}

void
helper_task_end(HelperTask *task)
{
	int			i;

	helper_task_withdraw(task);
	for (i = 0; i < task->nseats; i++)
		DestroyTupleQueueReader(task->readers[i]);
	dsm_detach(task->seg);
}

/* ---------------------------------------------------------------------
 * In the helper
 * ---------------------------------------------------------------------
 */

/* What a seat's error says, cut to the seat's room. */
static void
record_error(TaskSeat *seat, ErrorData *edata)
{
	seat->sqlerrcode = edata->sqlerrcode;
	strlcpy(seat->message, edata->message ? edata->message : "", ERROR_TEXT_SIZE);
	strlcpy(seat->detail, edata->detail ? edata->detail : "", ERROR_TEXT_SIZE);
	strlcpy(seat->hint, edata->hint ? edata->hint : "", ERROR_TEXT_SIZE);
}

/*
 * After accepting, a helper still takes locks that may wait: on our
 * metadata tables and the catalogs, as the executor opens them.  Should
 * one wait for a session that waits for the leader (DROP EXTENSION
 * CASCADE, which then wants the leader's table), the three would wait
 * forever; so a helper waits at most deadlock_timeout for a lock, and
 * its error ends the leader's query instead.
 */
static void
bound_lock_waits(void)
{
	char		value[32];

	if (LockTimeout > 0 && LockTimeout <= DeadlockTimeout)
		return;
	snprintf(value, sizeof(value), "%d", DeadlockTimeout);
	(void) set_config_option("lock_timeout", value, PGC_SUSET, PGC_S_SESSION,
							 GUC_ACTION_LOCAL, true, ERROR, false);
}

/* Locks every relation of the statement without waiting; false if one is taken. */
static bool
lock_relations(PlannedStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->rtable)
	{
		RangeTblEntry *rte = lfirst(lc);

		if (rte->rtekind == RTE_RELATION && rte->rellockmode != NoLock &&
			!ConditionalLockRelationOid(rte->relid, rte->rellockmode))
			return false;
	}
	return true;
}

static void
keep_queue(DestReceiver *self)
{
}

static void
wake_leader(TaskHeader *header)
{
	SetLatch(&GetPGProcByNumber(header->leader_procno)->procLatch);
}

/*
 * Runs the seat: declines it (returns) when it cannot, accepts it once the
 * executor has started, then runs the plan into the seat's queue.
 */
static void
run_seat(dsm_segment *seg, shm_toc *toc, TaskHeader *header, TaskSeat *seat,
		 int seat_index)
{
	char	   *settings = shm_toc_lookup(toc, TASK_KEY_SETTINGS, false);
	PlannedStmt *stmt;
	Snapshot	snapshot;
	QueryDesc  *qd;
	NodeWalk	walk = {NULL, toc, true};
	uint32		expected = SEAT_PENDING;
	shm_mq	   *mq;
	shm_mq_handle *mqh;

	/* a helper serves the session user it was started as, only */
	if (header->session_user != GetSessionUserId())
		return;
	XactIsoLevel = header->isolation;
	snapshot = RestoreSnapshot(shm_toc_lookup(toc, TASK_KEY_SNAPSHOT, false));
	/* fails when the leader has let go of its snapshot already */
	RestoreTransactionSnapshot(snapshot,
							   GetPGProcByNumber(header->leader_procno));
	PushActiveSnapshot(snapshot);
	SetCurrentRoleId(header->outer_user, header->outer_is_superuser);
	SetUserIdAndSecContext(header->current_user, header->sec_context);
	restore_settings(settings, header->settings_len);
	bound_lock_waits();
	stmt = (PlannedStmt *) stringToNode(shm_toc_lookup(toc, TASK_KEY_PLAN, false));
	if (!lock_relations(stmt))
		return;

	EnterParallelMode();
	qd = CreateQueryDesc(stmt, "storage_engine scan helper", GetActiveSnapshot(),
						 InvalidSnapshot, None_Receiver, NULL, NULL, 0);
	ExecutorStart(qd, 0);
	walk_parallel_nodes(qd->planstate, &walk);

	seat->helper_pid = MyProcPid;
	if (!pg_atomic_compare_exchange_u32(&seat->state, &expected, SEAT_ACCEPTED))
	{
		/* withdrawn meanwhile */
		ExecutorEnd(qd);
		FreeQueryDesc(qd);
		ExitParallelMode();
		return;
	}
	mq = (shm_mq *) ((char *) shm_toc_lookup(toc, TASK_KEY_QUEUES, false) +
					 seat_index * TUPLE_QUEUE_SIZE);
	shm_mq_set_sender(mq, MyProc);
	mqh = shm_mq_attach(mq, seg, NULL);
	qd->dest = CreateTupleQueueDestReceiver(mqh);
	/* the queue stays attached until the seat is DONE (rDestroy detaches) */
	qd->dest->rShutdown = keep_queue;

	compat_executor_run_all(qd);
	ExecutorFinish(qd);
	ExecutorEnd(qd);
	ExitParallelMode();

	/* the state first: the leader reads it when the queue detaches */
	pg_write_barrier();
	pg_atomic_write_u32(&seat->state, SEAT_DONE);
	qd->dest->rDestroy(qd->dest);
	FreeQueryDesc(qd);
}

void
helper_task_run(const HelperTaskMessage *msg)
{
	MemoryContext cxt = AllocSetContextCreate(TopMemoryContext,
											  "storage_engine scan helper task",
											  ALLOCSET_DEFAULT_SIZES);
	dsm_segment *seg;
	shm_toc    *toc;
	TaskHeader *volatile header;
	TaskSeat   *volatile seat;
	Oid			saved_user;
	int			saved_sec_context;

	/* a cancel meant for a task before this one */
	QueryCancelPending = false;
	StartTransactionCommand();
	MemoryContextSwitchTo(cxt);
	GetUserIdAndSecContext(&saved_user, &saved_sec_context);
	seg = dsm_attach(msg->handle);
	if (seg == NULL)
	{
		/* the leader is done with it already */
		CommitTransactionCommand();
		MemoryContextDelete(cxt);
		return;
	}
	toc = shm_toc_attach(TASK_MAGIC, dsm_segment_address(seg));
	header = toc != NULL ? shm_toc_lookup(toc, TASK_KEY_HEADER, true) : NULL;
	if (header == NULL || header->task_id != msg->task_id ||
		msg->seat < 0 || msg->seat >= header->nseats ||
		pg_atomic_read_u32(&header->seats[msg->seat].state) != SEAT_PENDING)
	{
		dsm_detach(seg);
		CommitTransactionCommand();
		MemoryContextDelete(cxt);
		return;
	}
	seat = &header->seats[msg->seat];
	pgstat_report_activity(STATE_RUNNING, "storage_engine scan helper task");
	scan_helpers_set_in_task(true);
	PG_TRY();
	{
		uint32		expected = SEAT_PENDING;

		run_seat(seg, toc, header, seat, msg->seat);
		/* not taken: declined, unless withdrawn meanwhile */
		(void) pg_atomic_compare_exchange_u32(&seat->state, &expected,
											  SEAT_DECLINED);
		wake_leader(header);
		scan_helpers_set_in_task(false);
		/* the seat is gone with the segment, for an error from here on */
		seat = NULL;
		header = NULL;
		dsm_detach(seg);
		if (ActiveSnapshotSet())
			PopActiveSnapshot();
		SetUserIdAndSecContext(saved_user, saved_sec_context);
		SetCurrentRoleId(InvalidOid, false);
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		uint32		expected = SEAT_PENDING;

		HOLD_INTERRUPTS();
		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		/* only this helper moves its seat on from ACCEPTED */
		if (seat != NULL && pg_atomic_read_u32(&seat->state) == SEAT_ACCEPTED)
		{
			record_error(seat, edata);
			pg_write_barrier();
			pg_atomic_write_u32(&seat->state, SEAT_FAILED);
		}
		else if (seat != NULL)
			(void) pg_atomic_compare_exchange_u32(&seat->state, &expected,
												  SEAT_DECLINED);
		if (header != NULL)
			wake_leader(header);
		scan_helpers_set_in_task(false);
		/* detaches the segment, and with it the queue */
		AbortCurrentTransaction();
		SetCurrentRoleId(InvalidOid, false);
		QueryCancelPending = false;
		RESUME_INTERRUPTS();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(TopMemoryContext);
	MemoryContextDelete(cxt);
	pgstat_report_activity(STATE_IDLE, NULL);
}
