/*-------------------------------------------------------------------------
 *
 * storage_am_todo.h
 *	  Table-AM callbacks neither access method supports yet (TABLESAMPLE),
 *	  written once for both: each raises ERRCODE_FEATURE_NOT_SUPPORTED naming the table's
 *	  access method, with a hint.  They go away as the features land.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_STORAGE_AM_TODO_H
#define STORAGE_ENGINE_STORAGE_AM_TODO_H

#include "compat/compat.h"

#include "access/tableam.h"

extern bool todo_scan_sample_next_block(TableScanDesc scan,
										struct SampleScanState *scanstate);
extern bool todo_scan_sample_next_tuple(TableScanDesc scan,
										struct SampleScanState *scanstate,
										TupleTableSlot *slot);

#endif							/* STORAGE_ENGINE_STORAGE_AM_TODO_H */
