/*-------------------------------------------------------------------------
 *
 * mod.c
 *	  Module entry point.  _PG_init runs once per backend, either at
 *	  postmaster start (shared_preload_libraries) or the first time one of
 *	  our SQL functions is called; everything it installs must work in both
 *	  cases and must chain to whatever was installed before it.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "fmgr.h"

#include "catalog/options.h"
#include "format/pending_writes.h"
#include "format/shared_frames.h"
#include "format/storage_am.h"
#include "guc.h"
#include "relation_hooks.h"
#include "scan/col_customscan.h"
#include "scan/scan_helpers.h"
#include "vector/vector_agg.h"

PG_MODULE_MAGIC;

void
_PG_init(void)
{
	guc_define();
	shared_frames_init();
	options_install_hooks();
	pending_writes_init();
	storage_rows_init();
	relation_hooks_init();
	col_customscan_init();
	vector_agg_init();
	/* after the vectorized aggregation's planner hook, which it wraps */
	helper_gather_init();
}
