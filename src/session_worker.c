/*-------------------------------------------------------------------------
 *
 * session_worker.c
 *	  Background workers a session starts for itself: the stripe encoder
 *	  (colstore/col_encoder.c) and scan helpers (scan/scan_helpers.c).
 *
 *	  The session creates a dynamic shared memory segment that starts with
 *	  a SessionWorkerHeader and passes its handle as the worker's argument;
 *	  the worker attaches to it, connects to the session's database as the
 *	  session's authenticated user, and names itself after the session in
 *	  pg_stat_activity ("<type> for PID n").  The postmaster tells the
 *	  session when the worker starts and stops (bgw_notify_pid).
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"

#include "session_worker.h"

void
session_worker_fill_header(SessionWorkerHeader *header)
{
	header->database = MyDatabaseId;
	header->user = GetAuthenticatedUserId();
	header->session_pid = MyProcPid;
}

/*
 * Starts function of our library as a worker of this session over seg;
 * false when no worker slot is free.
 */
bool
session_worker_register(const char *function, const char *type,
						dsm_segment *seg, BackgroundWorkerHandle **handle)
{
	BackgroundWorker bgw;

	memset(&bgw, 0, sizeof(bgw));
	bgw.bgw_flags = BGWORKER_SHMEM_ACCESS |
		BGWORKER_BACKEND_DATABASE_CONNECTION;
	bgw.bgw_start_time = BgWorkerStart_ConsistentState;
	bgw.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(bgw.bgw_library_name, BGW_MAXLEN, "storage_engine");
	snprintf(bgw.bgw_function_name, BGW_MAXLEN, "%s", function);
	snprintf(bgw.bgw_name, BGW_MAXLEN, "%s for PID %d", type, MyProcPid);
	snprintf(bgw.bgw_type, BGW_MAXLEN, "%s", type);
	bgw.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(seg));
	bgw.bgw_notify_pid = MyProcPid;
	if (RegisterDynamicBackgroundWorker(&bgw, handle))
		return true;
	elog(DEBUG1, "no background worker slot for a %s", type);
	return false;
}

/*
 * In the worker: attaches the session's segment and connects as the
 * session says; exits at once when the session is gone already.  The
 * mapping is the process's (no resource owner).
 */
shm_toc *
session_worker_attach(Datum arg, uint64 magic, const char *type,
					  dsm_segment **seg)
{
	shm_toc    *toc;
	SessionWorkerHeader *header;
	char		name[NAMEDATALEN];

	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	*seg = dsm_attach(DatumGetUInt32(arg));
	if (*seg == NULL)
		proc_exit(0);
	toc = shm_toc_attach(magic, dsm_segment_address(*seg));
	if (toc == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("bad magic number in the segment of a %s", type)));
	header = shm_toc_lookup(toc, SESSION_WORKER_KEY_HEADER, false);
	BackgroundWorkerInitializeConnectionByOid(header->database, header->user,
											  BGWORKER_BYPASS_ALLOWCONN);
	/* whose it is, in pg_stat_activity */
	snprintf(name, sizeof(name), "%s for PID %d", type, header->session_pid);
	SetConfigOption("application_name", name, PGC_USERSET, PGC_S_SESSION);
	return toc;
}
