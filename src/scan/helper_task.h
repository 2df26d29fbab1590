/*-------------------------------------------------------------------------
 *
 * helper_task.h
 *	  The leader's side of a task for scan helpers (helper_task.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_HELPER_TASK_H
#define STORAGE_ENGINE_HELPER_TASK_H

#include "access/htup.h"
#include "nodes/execnodes.h"

#include "scan/scan_helpers.h"

typedef struct HelperTask HelperTask;

extern HelperTask *helper_task_start(PlanState *subtree, EState *estate,
									 ScanHelper **helpers, int nhelpers);
extern MinimalTuple helper_task_next(HelperTask *task, bool *done);
extern void helper_task_withdraw(HelperTask *task);
extern int	helper_task_joined(HelperTask *task);
extern void helper_task_end(HelperTask *task);

#endif							/* STORAGE_ENGINE_HELPER_TASK_H */
