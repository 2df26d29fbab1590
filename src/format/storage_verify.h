/*-------------------------------------------------------------------------
 *
 * storage_verify.h
 *	  The frame of engine.colcompress_verify() and
 *	  engine.rowcompress_verify(): open the table, report problems as rows,
 *	  check each stream's metadata against the metapage (blocks and row
 *	  numbers reserved, inside the relation, not shared between streams)
 *	  and read each stream through the access method's own reader in a
 *	  subtransaction, so that a damaged stream becomes a row, not an error.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_STORAGE_VERIFY_H
#define STORAGE_ENGINE_STORAGE_VERIFY_H

#include "fmgr.h"
#include "funcapi.h"
#include "utils/relcache.h"

#include "format/row_runs.h"
#include "format/storage.h"

typedef struct VerifyRange
{
	uint64		first;
	uint64		end;			/* exclusive */
	uint64		stream;
} VerifyRange;

typedef struct StorageVerify
{
	ReturnSetInfo *rsinfo;
	bool		with_attno;		/* result rows are (stream, attno, problem) */
	const char *unit;			/* "stripe", "batch" */
	Relation	rel;
	bool		has_meta;
	StorageMeta meta;
	BlockNumber nblocks;
	VerifyRange *blocks;
	int			nblock_ranges;
	int			max_block_ranges;
	VerifyRange *rows;
	int			nrow_ranges;
	int			max_row_ranges;
} StorageVerify;

/*
 * Opens relid for SRF fcinfo, checks that is_am accepts it (am_name for
 * the error) and that the user may read it, and reads the metapage.
 * v->has_meta is false for a table without storage yet; a relation with
 * blocks but no metapage is reported.
 */
extern void storage_verify_begin(StorageVerify *v, FunctionCallInfo fcinfo,
								 Oid relid, const char *am_name,
								 bool (*is_am) (Relation),
								 const char *unit, bool with_attno);

/* One result row; stream < 0 and attno <= 0 are reported as NULL. */
extern void storage_verify_report(StorageVerify *v, int64 stream, int attno,
								  const char *fmt,...) pg_attribute_printf(4, 5);

/* Checks one stream's placement and row runs, and remembers them. */
extern void storage_verify_stream(StorageVerify *v, uint64 stream,
								  uint64 first_block, uint64 data_length,
								  const RowRun *runs, int nruns,
								  uint64 row_count);

/*
 * After every stream: reports blocks or row numbers used twice, and runs
 * engine.row_run lacks or has that no stream holds.
 */
extern void storage_verify_overlaps(StorageVerify *v);

/*
 * Runs read(arg) in a subtransaction; an error it raises is reported as a
 * row of the stream and false returned.
 */
extern bool storage_verify_try(StorageVerify *v, int64 stream,
							   void (*read) (void *arg), void *arg);

extern void storage_verify_end(StorageVerify *v);

#endif							/* STORAGE_ENGINE_STORAGE_VERIFY_H */
