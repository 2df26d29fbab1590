/*-------------------------------------------------------------------------
 *
 * scan_helpers.h
 *	  A session's scan helpers (scan_helpers.c) and the tasks they run
 *	  (helper_task.c) for the HelperGather node (helper_gather.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_SCAN_HELPERS_H
#define STORAGE_ENGINE_SCAN_HELPERS_H

#include "access/parallel.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"

typedef struct ScanHelper ScanHelper;

/* What a helper is told: run seat `seat` of the task in segment `handle`. */
typedef struct HelperTaskMessage
{
	dsm_handle	handle;
	int			seat;
	uint64		task_id;
} HelperTaskMessage;

/* scan_helpers.c: the session's helper processes */
extern int	scan_helpers_get(int wanted, ScanHelper **helpers);
extern bool scan_helper_send(ScanHelper *helper, const HelperTaskMessage *msg);
extern BackgroundWorkerHandle *scan_helper_worker(ScanHelper *helper);
extern void scan_helper_cancel(int pid);
extern bool scan_helper_in_task(void);
extern void scan_helpers_set_in_task(bool in_task);

/* helper_task.c, in a helper: runs one seat of a task */
extern void helper_task_run(const HelperTaskMessage *msg);

/*
 * Whether this process runs a parallel scan as one of the participants
 * other than the leader: a parallel worker or a scan helper.
 */
static inline bool
scan_participant_is_helper(void)
{
	return IsParallelWorker() || scan_helper_in_task();
}

/* helper_gather.c */
extern void helper_gather_init(void);

#endif							/* STORAGE_ENGINE_SCAN_HELPERS_H */
