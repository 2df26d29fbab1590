/*-------------------------------------------------------------------------
 *
 * stream_hints.h
 *	  Backend-local hints of which stream holds a row number and where its
 *	  metadata row is, for fetches by row number (catalog/stream_hints.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_STREAM_HINTS_H
#define STORAGE_ENGINE_STREAM_HINTS_H

#include "storage/itemptr.h"

#include "format/row_runs.h"

/*
 * The stream a hint gives for rownum of storage_id, in *stream_num, and the
 * TID its metadata row had, in *tid; false when there is no hint.  A hint
 * may be stale: the caller checks what it finds there.
 */
extern bool stream_hint_find(uint64 storage_id, uint64 rownum,
							 uint64 *stream_num, ItemPointer tid);

/*
 * Records that stream stream_num of storage_id, whose metadata row is at
 * tid, holds the row numbers of runs[nruns]; replaces the hints those row
 * numbers had.
 */
extern void stream_hint_add(uint64 storage_id, uint64 stream_num,
							ItemPointer tid, const RowRun *runs, int nruns);

#endif							/* STORAGE_ENGINE_STREAM_HINTS_H */
