/*-------------------------------------------------------------------------
 *
 * repack_api.c
 *	  engine.colcompress_repack(regclass, min_fill_ratio) and
 *	  engine.rowcompress_repack(regclass): rewrite stripes or batches
 *	  online (format/storage_repack.c), in transactions of their own.
 *
 *	  Called with CALL outside a transaction block, each stream (or a few
 *	  small ones together) is rewritten and committed on its own, and
 *	  before each step the streams earlier steps retired are freed once no
 *	  snapshot reads them, so the table needs about one stream of extra
 *	  space, not its whole size, and readers and inserters never wait.
 *	  Then the streams at the end of the relation move into freed blocks
 *	  before them, and the free end is truncated.  Inside a transaction
 *	  block the rewriting happens in that transaction, and VACUUM does the
 *	  rest later.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include <math.h>

#include "access/relation.h"
#include "access/xact.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "utils/acl.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "format/storage.h"
#include "format/storage_am.h"
#include "relation_hooks.h"

PG_FUNCTION_INFO_V1(colcompress_repack);
PG_FUNCTION_INFO_V1(rowcompress_repack);

static Relation
open_table(Oid relid, const char *am_name)
{
	Relation	rel = relation_open(relid, ShareUpdateExclusiveLock);
	const StorageAm *am = storage_am_for(rel);

	if (am == NULL || strcmp(am->name, am_name) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a %s table", RelationGetRelationName(rel),
						am_name),
				 errhint("engine.colcompress_repack() rewrites colcompress tables, engine.rowcompress_repack() rowcompress tables.")));
	if (!object_ownercheck(RelationRelationId, relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, RelationGetRelationName(rel));
	return rel;
}

/*
 * A step of a repack in transactions of its own rewrites streams of up to
 * this many stored bytes together (at least one stream): the table needs
 * that much more space until the step commits, and a table of many small
 * streams (single-row UPDATEs each write one) takes few steps.
 */
#define REPACK_STEP_BYTES	((uint64) 8 * 1024 * 1024)

/*
 * One step, in the current transaction: frees what earlier steps retired
 * (so that this one can reuse it), then rewrites the streams from
 * *from_stream below below_stream whose deleted rows reach
 * deleted_fraction, up to max_bytes of them (0: all) and moves *from_stream
 * past them or, with compact, moves the streams at the end of the relation
 * into free blocks before them.  False when there was nothing to do.  It
 * allocates in cxt, reset before it returns: the steps of a CALL run in its
 * procedure's context, which lives until the last one.
 */
static bool
step(Oid relid, const char *am_name, double deleted_fraction,
	 uint64 *from_stream, uint64 below_stream, uint64 max_bytes,
	 bool compact, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	Relation	rel;
	const StorageAm *am;
	int			n;

	PushActiveSnapshot(GetTransactionSnapshot());
	rel = open_table(relid, am_name);
	am = storage_am_for(rel);
	/*
	 * No DELETE, UPDATE or row lock may be pending on old row numbers (the
	 * rewrite lock), and statements that write come after the step's
	 * commit, with snapshots that see the moved rows: they lock the table
	 * before they take their snapshot, and ExclusiveLock holds them off
	 * (as VACUUM's rewrite does, storage_vacuum.c).  Otherwise a READ
	 * COMMITTED UPDATE meeting a moved row fails with a serialization
	 * failure.
	 */
	LockRelation(rel, ExclusiveLock);
	storage_lock_for_rewrite(rel);
	storage_vacuum_reclaim(am, rel, rel->rd_rel->reltuples, NULL);
	if (compact)
		n = storage_compact_streams(am, rel);
	else
		n = storage_rewrite_streams(am, rel, deleted_fraction, from_stream,
									below_stream, max_bytes);
	relation_close(rel, NoLock);
	PopActiveSnapshot();
	MemoryContextSwitchTo(old);
	MemoryContextReset(cxt);
	return n > 0;
}

static void
repack(FunctionCallInfo fcinfo, const char *am_name, double deleted_fraction)
{
	Oid			relid = PG_GETARG_OID(0);
	bool		own_transactions = fcinfo->context != NULL &&
		IsA(fcinfo->context, CallContext) &&
		!((CallContext *) fcinfo->context)->atomic;
	Relation	rel;
	StorageMeta meta;
	uint64		below = 0;
	uint64		from = 0;
	MemoryContext cxt;

	/* streams written from here on are the repack's own */
	rel = open_table(relid, am_name);
	if (storage_read_meta(rel, &meta))
		below = meta.next_stream_num;
	relation_close(rel, NoLock);
	if (below == 0)
		return;

	if (own_transactions)
		SPI_connect_ext(SPI_OPT_NONATOMIC);
	cxt = AllocSetContextCreate(CurrentMemoryContext, "storage_engine repack step",
								ALLOCSET_DEFAULT_SIZES);

	/* the streams asked for, then moving the end into freed blocks */
	while (step(relid, am_name, deleted_fraction, &from, below,
				own_transactions ? REPACK_STEP_BYTES : 0, false, cxt) &&
		   own_transactions)
		SPI_commit();
	while (own_transactions && step(relid, am_name, 0, NULL, 0, 0, true, cxt))
		SPI_commit();

	if (own_transactions)
	{
		/* free the last ones too, and truncate what ends the relation */
		SPI_commit();
		PushActiveSnapshot(GetTransactionSnapshot());
		rel = open_table(relid, am_name);
		storage_vacuum_reclaim(storage_am_for(rel), rel, rel->rd_rel->reltuples, NULL);
		relation_close(rel, NoLock);
		PopActiveSnapshot();
	}
	MemoryContextDelete(cxt);
	if (own_transactions)
		SPI_finish();
}

Datum
colcompress_repack(PG_FUNCTION_ARGS)
{
	double		min_fill = PG_GETARG_FLOAT8(1);

	if (min_fill < 0 || min_fill > 1 || isnan(min_fill))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("min_fill_ratio must be between 0 and 1, not %g", min_fill),
				 errhint("Stripes whose live rows are at most this fraction of their rows are rewritten.")));
	repack(fcinfo, "colcompress", 1.0 - min_fill);
	PG_RETURN_VOID();
}

Datum
rowcompress_repack(PG_FUNCTION_ARGS)
{
	/* every batch, with the table's current options */
	repack(fcinfo, "rowcompress", -1);
	PG_RETURN_VOID();
}
