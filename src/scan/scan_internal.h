/*-------------------------------------------------------------------------
 *
 * scan_internal.h
 *	  Shared between the custom scan's planner and executor parts.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_SCAN_INTERNAL_H
#define STORAGE_ENGINE_SCAN_INTERNAL_H

#include "nodes/extensible.h"

#define COL_SCAN_NAME "ColcompressScan"

extern const CustomScanMethods col_scan_methods;

extern void col_scan_planner_init(void);
extern void col_scan_exec_init(void);

#endif							/* STORAGE_ENGINE_SCAN_INTERNAL_H */
