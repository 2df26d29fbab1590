/*-------------------------------------------------------------------------
 *
 * col_customscan.c
 *	  Installs the ColcompressScan custom scan (planner hook and the plan
 *	  node's methods).
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "scan/col_customscan.h"
#include "scan/scan_internal.h"

void
col_customscan_init(void)
{
	col_scan_exec_init();
	col_scan_planner_init();
}
