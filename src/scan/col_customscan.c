/*-------------------------------------------------------------------------
 *
 * col_customscan.c
 *	  Installs the custom scans (planner hook and the plan nodes' methods):
 *	  ColcompressScan, ColcompressBitmapColumns and RowcompressScan.
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
	fetch_columns_init();
	row_scan_exec_init();
	col_scan_planner_init();
}
