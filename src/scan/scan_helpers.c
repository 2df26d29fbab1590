/*-------------------------------------------------------------------------
 *
 * scan_helpers.c
 *	  A session's scan helpers: background processes that take part in its
 *	  parallel scans in place of parallel workers.
 *
 *	  A parallel worker lives for one query.  Its start (the postmaster's
 *	  fork, InitPostgres, the leader's settings restored, the executor
 *	  started cold) and its exit, which the leader waits for, took 5-6 ms
 *	  of a 25 ms aggregation over a million colcompress rows; no speed-up
 *	  over the serial query could pass 1.5 on two cores.  A helper is
 *	  started once, connected to the session's database as its
 *	  authenticated user, like the stripe encoder (session_worker.c),
 *	  and waits for tasks on a queue only this session writes: a task is a
 *	  shared memory segment (helper_task.c) and a seat in it.  It goes when
 *	  the session ends (its queue detaches), after
 *	  storage_engine.scan_helper_idle_timeout without a task, or when the
 *	  postmaster dies.  It holds no lock and no snapshot between tasks, and
 *	  a session's helpers are connected to the database the session is: a
 *	  command that waits for a database's other backends (DROP DATABASE)
 *	  finds them gone with the session.
 *
 *	  The session keeps its helpers' control segments mapped for its
 *	  lifetime (dsm_pin_mapping), outside any transaction.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/shm_mq.h"
#include "storage/shm_toc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "guc.h"
#include "session_worker.h"
#include "scan/scan_helpers.h"

#define HELPER_MAGIC		0x5CA4E1F0
#define HELPER_KEY_CONTROL	SESSION_WORKER_KEY_HEADER
#define HELPER_TYPE			"storage_engine scan helper"
#define HELPER_KEY_TASKS	2
#define TASK_QUEUE_SIZE		((Size) 4096)

/* PGDLLEXPORT: the postmaster finds it by name */
PGDLLEXPORT void scan_helper_main(Datum arg);

typedef struct HelperControl
{
	SessionWorkerHeader session;	/* first: session_worker.h */
	int			idle_timeout;	/* ms */
} HelperControl;

/* The session's side of one helper. */
struct ScanHelper
{
	dsm_segment *seg;
	shm_mq_handle *tasks;
	BackgroundWorkerHandle *handle;
};

static ScanHelper *helpers[SCAN_HELPERS_MAX];
static int	nhelpers = 0;
static MemoryContext helpers_cxt = NULL;

/* In a helper: is it running a task? */
static bool in_task = false;

static void
helper_forget(int i)
{
	ScanHelper *h = helpers[i];

	/*
	 * Detached, it finds its queue gone and exits.  The worker handle stays:
	 * a task's queues may still name it (a few bytes a helper).
	 */
	dsm_detach(h->seg);
	pfree(h);
	helpers[i] = helpers[--nhelpers];
}

/* A new helper, or NULL when none can be started. */
static ScanHelper *
helper_start(void)
{
	shm_toc_estimator est;
	MemoryContext old;
	ScanHelper *h;
	Size		size;
	shm_toc    *toc;
	HelperControl *control;
	shm_mq	   *mq;

	if (helpers_cxt == NULL)
		helpers_cxt = AllocSetContextCreate(TopMemoryContext,
											"storage_engine scan helpers",
											ALLOCSET_SMALL_SIZES);
	shm_toc_initialize_estimator(&est);
	shm_toc_estimate_chunk(&est, sizeof(HelperControl));
	shm_toc_estimate_chunk(&est, TASK_QUEUE_SIZE);
	shm_toc_estimate_keys(&est, 2);
	size = shm_toc_estimate(&est);

	old = MemoryContextSwitchTo(helpers_cxt);
	h = palloc0(sizeof(ScanHelper));
	h->seg = dsm_create(size, DSM_CREATE_NULL_IF_MAXSEGMENTS);
	if (h->seg == NULL)
	{
		pfree(h);
		MemoryContextSwitchTo(old);
		return NULL;
	}
	/* the session's, not the statement's */
	dsm_pin_mapping(h->seg);
	toc = shm_toc_create(HELPER_MAGIC, dsm_segment_address(h->seg), size);
	control = shm_toc_allocate(toc, sizeof(HelperControl));
	session_worker_fill_header(&control->session);
	control->idle_timeout = storage_engine_scan_helper_idle_timeout;
	shm_toc_insert(toc, HELPER_KEY_CONTROL, control);
	mq = shm_mq_create(shm_toc_allocate(toc, TASK_QUEUE_SIZE), TASK_QUEUE_SIZE);
	shm_toc_insert(toc, HELPER_KEY_TASKS, mq);
	shm_mq_set_sender(mq, MyProc);

	if (!session_worker_register("scan_helper_main", HELPER_TYPE, h->seg, &h->handle))
	{
		dsm_detach(h->seg);
		pfree(h);
		MemoryContextSwitchTo(old);
		return NULL;
	}
	h->tasks = shm_mq_attach(mq, h->seg, h->handle);
	MemoryContextSwitchTo(old);
	return h;
}

/*
 * Up to wanted helpers of this session, started if need be, in helpers[];
 * returns how many.  A helper just started takes its first task when it is
 * ready, if the task still waits for it then.
 */
int
scan_helpers_get(int wanted, ScanHelper **out)
{
	int			i;

	/* gone ones (idle too long, terminated) go */
	for (i = nhelpers - 1; i >= 0; i--)
	{
		pid_t		pid;
		BgwHandleStatus status = GetBackgroundWorkerPid(helpers[i]->handle, &pid);

		if (status != BGWH_STARTED && status != BGWH_NOT_YET_STARTED)
			helper_forget(i);
	}
	wanted = Min(wanted, SCAN_HELPERS_MAX);
	while (nhelpers < wanted)
	{
		ScanHelper *h = helper_start();

		if (h == NULL)
			break;
		helpers[nhelpers++] = h;
	}
	wanted = Min(wanted, nhelpers);
	for (i = 0; i < wanted; i++)
		out[i] = helpers[i];
	return wanted;
}

/*
 * Hands a task's seat to a helper; false when it cannot take it (gone, or
 * tasks pile up in its queue), and then it is not the session's any more.
 */
bool
scan_helper_send(ScanHelper *helper, const HelperTaskMessage *msg)
{
	int			i;

	if (shm_mq_send(helper->tasks, sizeof(*msg), msg, true, true) == SHM_MQ_SUCCESS)
		return true;
	/* a message not sent whole leaves the queue unusable */
	for (i = 0; i < nhelpers; i++)
		if (helpers[i] == helper)
		{
			TerminateBackgroundWorker(helper->handle);
			helper_forget(i);
			break;
		}
	return false;
}

/*
 * Cancels what helper pid of this session runs (a task the leader let go
 * of); a pid that is not one of them any more is left alone.
 */
void
scan_helper_cancel(int pid)
{
	int			i;

	for (i = 0; i < nhelpers; i++)
	{
		pid_t		running;

		if (GetBackgroundWorkerPid(helpers[i]->handle, &running) == BGWH_STARTED &&
			running == pid)
			kill(pid, SIGINT);
	}
}

BackgroundWorkerHandle *
scan_helper_worker(ScanHelper *helper)
{
	return helper->handle;
}

bool
scan_helper_in_task(void)
{
	return in_task;
}

void
scan_helpers_set_in_task(bool value)
{
	in_task = value;
}

void
scan_helper_main(Datum arg)
{
	dsm_segment *seg;
	shm_toc    *toc;
	HelperControl *control;
	shm_mq	   *mq;
	shm_mq_handle *tasks;
	TimestampTz idle_since;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	toc = session_worker_attach(arg, HELPER_MAGIC, HELPER_TYPE, &seg);
	control = shm_toc_lookup(toc, HELPER_KEY_CONTROL, false);
	mq = shm_toc_lookup(toc, HELPER_KEY_TASKS, false);
	shm_mq_set_receiver(mq, MyProc);
	tasks = shm_mq_attach(mq, seg, NULL);
	pgstat_report_activity(STATE_IDLE, NULL);

	idle_since = GetCurrentTimestamp();
	for (;;)
	{
		Size		len;
		void	   *data;
		shm_mq_result res;
		long		waited;

		res = shm_mq_receive(tasks, &len, &data, true);
		if (res == SHM_MQ_DETACHED)
			break;				/* the session ended */
		if (res == SHM_MQ_SUCCESS)
		{
			HelperTaskMessage msg;

			if (len != sizeof(msg))
				elog(ERROR, "scan helper task message of %zu bytes", len);
			memcpy(&msg, data, sizeof(msg));
			helper_task_run(&msg);
			idle_since = GetCurrentTimestamp();
			continue;
		}
		waited = TimestampDifferenceMilliseconds(idle_since,
												 GetCurrentTimestamp());
		if (waited >= control->idle_timeout)
			break;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 control->idle_timeout - waited, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		/* a cancel outside a task: one that came late, for a task done */
		QueryCancelPending = false;
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
	}
	proc_exit(0);
}
