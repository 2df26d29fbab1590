/*-------------------------------------------------------------------------
 *
 * col_encode_parallel.c
 *	  Encodes a stripe's columns side by side: the writing backend and up
 *	  to max_parallel_maintenance_workers parallel workers.
 *
 *	  Encoding and compressing a stripe is most of a load's time, and a
 *	  column's encoding depends on nothing but its values (col_encode.c),
 *	  so the columns are shared out, costliest first, to whichever
 *	  participant has the least to do.  A worker's columns are copied into
 *	  the parallel segment (the write buffer's blocks whole, not value by
 *	  value); it writes what it encoded to a shared memory area, which the
 *	  backend copies back once every worker is done, before it writes the
 *	  stripe itself.  A stripe comes out byte for byte the same as encoded
 *	  alone, and the columns of workers that could not be started are
 *	  encoded by the backend.
 *
 *	  Workers only encode: they read no table, take no lock on it and
 *	  write nothing, which is what lets a stripe be written this way from
 *	  INSERT, COPY, the commit of a transaction's last rows and the
 *	  rewrites (VACUUM, merge) alike.
 *
 *	  When the transaction has a background encoder (col_encoder.c), it
 *	  takes the workers' place: a full stripe the writer seals is given to
 *	  it, but for the backend's share, and the backend goes on
 *	  (col_encode_columns_begin, _finish); any other stripe is shared
 *	  between the backend and it as among workers.  The encoder's share of
 *	  a sealed stripe follows how long the backend last waited for it.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include <float.h>

#include "access/parallel.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "portability/instr_time.h"
#include "storage/condition_variable.h"
#include "storage/dsm.h"
#include "storage/shm_toc.h"
#include "utils/datum.h"
#include "utils/dsa.h"
#include "utils/wait_event.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "colstore/col_encode_parallel.h"
#include "colstore/col_encode_transfer.h"
#include "colstore/col_encoder.h"
#include "guc.h"

#define ENCODE_KEY_STRIPE	UINT64CONST(0xC01E0C0DE0000001)
#define ENCODE_KEY_AREA		UINT64CONST(0xC01E0C0DE0000002)

/*
 * Workers' columns go into a segment of their own, kept for the rest of
 * the transaction: a new one for every stripe took 20 ms of a stripe's
 * 90 to create and fault in (posix_fallocate, then a page fault per 4 kB
 * copied), a reused one 2.
 */
static dsm_segment *values_seg = NULL;
static Size values_seg_size = 0;

/* Columns' sizes are estimated from every this many rows. */
#define SIZE_SAMPLE_STRIDE	16

/* PGDLLEXPORT: a parallel worker finds it by name */
PGDLLEXPORT void col_encode_worker(dsm_segment *seg, shm_toc *toc);

typedef struct SharedColumn
{
	ColumnLayout layout;		/* in the values chunk */
	int			worker;			/* ParallelWorkerNumber encoding it, or -1:
								 * the backend */
	dsa_pointer encoded;		/* what the worker encoded */
} SharedColumn;

typedef struct SharedStripe
{
	/* set once the values are copied: workers start while they are */
	pg_atomic_uint32 ready;
	ConditionVariable ready_cv;
	dsm_handle	values;			/* the segment of the workers' columns */
	uint32		nrows;
	uint32		group_limit;
	int			codec;
	int			level;
	int			ncols;
	SharedColumn cols[FLEXIBLE_ARRAY_MEMBER];
} SharedStripe;

/* Bytes of the column's values, estimated from a sample of its rows. */
static double
column_bytes(const ColumnSource *src)
{
	double		bytes = 0;
	uint32		r;
	bool		aligned;

	if (src->attr->attbyval)
		return (double) src->nrows * sizeof(Datum);
	for (r = 0; r < src->nrows; r += SIZE_SAMPLE_STRIDE)
		if (!src->isnull[r])
			bytes += transfer_value_size(src->attr, src->values[r], &aligned);
	return bytes * SIZE_SAMPLE_STRIDE;
}

/*
 * Workers that may encode a stripe of ncols columns, before its size is
 * known; 0: none.  From a client's backend only: not autovacuum's, not a
 * worker's.
 */
static int
encode_workers(int ncols)
{
	if (!storage_engine_enable_parallel_encoding || ncols < 2 ||
		max_parallel_maintenance_workers <= 0 || !IsUnderPostmaster ||
		MyBackendType != B_BACKEND || IsInParallelMode())
		return 0;
	return Min(max_parallel_maintenance_workers, ncols - 1);
}

/*
 * Workers' columns are copied into dynamic shared memory, which with the
 * default dynamic_shared_memory_type lives in /dev/shm, 64 MB in a Docker
 * container unless raised: at most this much a stripe, the rest of the
 * columns the backend's.
 */
#define PARALLEL_ENCODE_MAX_COPY	((Size) 32 * 1024 * 1024)

/* Bytes a column takes copied for a worker: its nulls, Datums and values. */
static double
copy_bytes(const ColumnSource *src, double bytes)
{
	return (double) src->nrows * (1 + sizeof(Datum)) +
		(src->attr->attbyval ? 0 : bytes);
}

/*
 * What encoding a column costs, in bytes' worth: its values' bytes and
 * VALUE_COST_BYTES a row (on the events table a column took about 20 ns a
 * row and 1.2 ns a byte).
 */
#define VALUE_COST_BYTES	16

static double
column_cost(const ColumnSource *src, double bytes)
{
	return bytes + (double) src->nrows * VALUE_COST_BYTES;
}

/*
 * Shares the columns out among the backend (-1) and nworkers workers:
 * costliest first, each to the participant with the least to do so far,
 * workers' columns within budget bytes copied.
 */
static void
share_out(const ColumnSource *src, const double *bytes, int ncols,
		  int nworkers, double budget, int *worker)
{
	double	   *load = palloc0(sizeof(double) * (nworkers + 1));
	double	   *cost = palloc(sizeof(double) * ncols);
	bool	   *done = palloc0(sizeof(bool) * ncols);
	double		copied = 0;
	int			n;

	for (n = 0; n < ncols; n++)
		cost[n] = column_cost(&src[n], bytes[n]);

	for (n = 0; n < ncols; n++)
	{
		int			largest = -1;
		int			least = 0;
		int			a;
		int			p;

		for (a = 0; a < ncols; a++)
			if (!done[a] && (largest < 0 || cost[a] > cost[largest]))
				largest = a;
		for (p = 1; p <= nworkers; p++)
			if (load[p] < load[least])
				least = p;
		/* what workers are given stays within the segment's budget */
		if (least > 0 && copied + copy_bytes(&src[largest], bytes[largest]) >
			budget)
			least = 0;
		if (least > 0)
			copied += copy_bytes(&src[largest], bytes[largest]);
		done[largest] = true;
		load[least] += cost[largest];
		worker[largest] = least - 1;
	}
	pfree(load);
	pfree(cost);
	pfree(done);
}

static uint32
stripe_groups(const SharedStripe *stripe)
{
	return col_chunk_groups(stripe->nrows, stripe->group_limit);
}

static void
forget_values_segment(dsm_segment *seg, Datum arg)
{
	values_seg = NULL;
	values_seg_size = 0;
}

/* The transaction's segment goes with it, whichever way it ends. */
static void
values_segment_xact(XactEvent event, void *arg)
{
	if (values_seg != NULL &&
		(event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		 event == XACT_EVENT_PREPARE))
		dsm_detach(values_seg);
}

/*
 * The backend's segment for size bytes of workers' columns: the
 * transaction's, or a larger one, which lives until the transaction ends
 * or a larger one is wanted.  Its mapping belongs to no resource owner
 * (those of statements end before the transaction's next stripe).
 */
static char *
values_segment(Size size)
{
	static bool registered = false;

	if (values_seg != NULL && values_seg_size >= size)
		return dsm_segment_address(values_seg);
	if (!registered)
	{
		RegisterXactCallback(values_segment_xact, NULL);
		registered = true;
	}
	if (values_seg != NULL)
		dsm_detach(values_seg);
	/* stripes' needs differ a little: room for the next ones too */
	size = TYPEALIGN(4 * 1024 * 1024, size);
	values_seg = dsm_create(size, 0);
	dsm_pin_mapping(values_seg);
	values_seg_size = size;
	on_dsm_detach(values_seg, forget_values_segment, (Datum) 0);
	return dsm_segment_address(values_seg);
}

void
col_encode_worker(dsm_segment *seg, shm_toc *toc)
{
	SharedStripe *stripe = shm_toc_lookup(toc, ENCODE_KEY_STRIPE, false);
	dsm_segment *seg_of_values;
	char	   *values;
	dsa_area   *area = dsa_attach_in_place(shm_toc_lookup(toc, ENCODE_KEY_AREA,
														  false), seg);
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "colcompress parallel encoding",
											  ALLOCSET_DEFAULT_SIZES);
	int			a;

	ConditionVariablePrepareToSleep(&stripe->ready_cv);
	while (pg_atomic_read_u32(&stripe->ready) == 0)
		ConditionVariableSleep(&stripe->ready_cv, PG_WAIT_EXTENSION);
	ConditionVariableCancelSleep();
	pg_read_barrier();
	seg_of_values = dsm_attach(stripe->values);
	if (seg_of_values == NULL)
		elog(ERROR, "could not attach the segment of a stripe's values");
	values = dsm_segment_address(seg_of_values);

	for (a = 0; a < stripe->ncols; a++)
	{
		SharedColumn *col = &stripe->cols[a];
		MemoryContext old;
		ColumnSource src;
		EncodedColumn encoded;
		Size		size;

		if (col->worker != ParallelWorkerNumber)
			continue;
		old = MemoryContextSwitchTo(cxt);
		transfer_source(&col->layout, values, stripe->nrows,
						stripe->group_limit, stripe->codec, stripe->level,
						&src);
		col_encode_column(&src, &encoded);

		size = transfer_flatten(&encoded, stripe_groups(stripe), NULL);
		col->encoded = dsa_allocate_extended(area, size, DSA_ALLOC_HUGE);
		transfer_flatten(&encoded, stripe_groups(stripe),
						 dsa_get_address(area, col->encoded));
		MemoryContextSwitchTo(old);
		MemoryContextReset(cxt);
	}
	MemoryContextDelete(cxt);
	dsa_detach(area);
	dsm_detach(seg_of_values);
}

/*
 * Encodes the stripe as col_encode_columns, column a by worker[a]
 * (share_out), nworkers of them.
 */
static void
encode_in_parallel(const ColumnSource *src, int ncols, const int *worker,
				   int nworkers, EncodedColumn *out)
{
	ParallelContext *pcxt;
	SharedStripe *stripe;
	Size		stripe_size = add_size(offsetof(SharedStripe, cols),
									   mul_size(sizeof(SharedColumn), ncols));
	Size		values_size = 0;
	Size		area_size = dsa_minimum_size();
	char	   *values;
	void	   *area_space;
	dsa_area   *area;
	bool		pushed_snapshot = false;
	int			launched;
	int			a;

	/* a parallel context passes on the active snapshot: at commit, none */
	if (!ActiveSnapshotSet())
	{
		PushActiveSnapshot(GetTransactionSnapshot());
		pushed_snapshot = true;
	}
	EnterParallelMode();
	pcxt = CreateParallelContext("storage_engine", "col_encode_worker",
								 nworkers);
	for (a = 0; a < ncols; a++)
	{
		ColumnLayout sizing;

		if (worker[a] >= 0)
			values_size = transfer_place_column(&src[a], &sizing, values_size,
												NULL);
	}
	values = values_segment(values_size);
	shm_toc_estimate_chunk(&pcxt->estimator, stripe_size);
	shm_toc_estimate_chunk(&pcxt->estimator, area_size);
	shm_toc_estimate_keys(&pcxt->estimator, 2);
	InitializeParallelDSM(pcxt);

	stripe = shm_toc_allocate(pcxt->toc, stripe_size);
	pg_atomic_init_u32(&stripe->ready, 0);
	ConditionVariableInit(&stripe->ready_cv);
	stripe->nrows = src[0].nrows;
	stripe->group_limit = src[0].group_limit;
	stripe->codec = src[0].codec->id;
	stripe->level = src[0].level;
	stripe->ncols = ncols;
	stripe->values = dsm_segment_handle(values_seg);
	for (a = 0; a < ncols; a++)
	{
		SharedColumn *col = &stripe->cols[a];

		memcpy(&col->layout.attr, src[a].attr, sizeof(FormData_pg_attribute));
		col->worker = worker[a];
		col->encoded = InvalidDsaPointer;
	}
	area_space = shm_toc_allocate(pcxt->toc, area_size);
	area = dsa_create_in_place(area_space, area_size,
							   LWTRANCHE_PARALLEL_QUERY_DSA, pcxt->seg);
	shm_toc_insert(pcxt->toc, ENCODE_KEY_STRIPE, stripe);
	shm_toc_insert(pcxt->toc, ENCODE_KEY_AREA, area_space);

	LaunchParallelWorkers(pcxt);
	launched = pcxt->nworkers_launched;

	/* while the workers start */
	values_size = 0;
	for (a = 0; a < ncols; a++)
		if (worker[a] >= 0 && worker[a] < launched)
			values_size = transfer_place_column(&src[a],
												&stripe->cols[a].layout,
												values_size, values);
	pg_write_barrier();
	pg_atomic_write_u32(&stripe->ready, 1);
	ConditionVariableBroadcast(&stripe->ready_cv);
	/* the workers launched depend on the others running: DEBUG2 */
	elog(DEBUG1, "encoding a colcompress stripe of %u rows in parallel",
		 stripe->nrows);
	elog(DEBUG2, "%d of %d parallel workers launched", launched, nworkers);

	/* ours, and those of workers that did not start */
	for (a = 0; a < ncols; a++)
		if (worker[a] < 0 || worker[a] >= launched)
			col_encode_column(&src[a], &out[a]);

	WaitForParallelWorkersToFinish(pcxt);
	for (a = 0; a < ncols; a++)
	{
		SharedColumn *col = &stripe->cols[a];

		if (worker[a] < 0 || worker[a] >= launched)
			continue;
		if (!DsaPointerIsValid(col->encoded))
			elog(ERROR, "parallel worker %d did not encode column %d",
				 worker[a], a + 1);
		transfer_unflatten(dsa_get_address(area, col->encoded), stripe_groups(stripe),
				  &out[a]);
	}

	dsa_detach(area);
	DestroyParallelContext(pcxt);
	ExitParallelMode();
	if (pushed_snapshot)
		PopActiveSnapshot();
}

/*
 * Bytes of each column (bytes[]) and of the stripe, when the stripe is
 * large enough to be encoded with help; else -1.
 */
static double
stripe_bytes(const ColumnSource *src, int ncols, double *bytes)
{
	double		total = 0;
	int			a;

	for (a = 0; a < ncols; a++)
		total += bytes[a] = column_bytes(&src[a]);
	return total < (double) storage_engine_min_parallel_encoding_size * 1024 ?
		-1 : total;
}

/*
 * The encoder's columns of the job into out[], or encoded here when it
 * died.
 */
static void
collect(uint32 job, const ColumnSource *src, int ncols, const bool *remote,
		EncodedColumn *out)
{
	uint32		ngroups = col_chunk_groups(src[0].nrows, src[0].group_limit);
	int			a;

	if (!col_encoder_collect(job, ncols, remote, ngroups, out))
		for (a = 0; a < ncols; a++)
			if (remote[a])
				col_encode_column(&src[a], &out[a]);
}

/*
 * The stripe's columns by the backend and the transaction's encoder side
 * by side, shared as among parallel workers; false when the encoder could
 * not take its share (nothing encoded then).
 */
static bool
encode_with_encoder(const ColumnSource *src, int ncols, const double *bytes,
					EncodedColumn *out)
{
	int		   *worker = palloc(sizeof(int) * ncols);
	bool	   *remote = palloc(sizeof(bool) * ncols);
	bool		any = false;
	uint32		job;
	int			a;

	share_out(src, bytes, ncols, 1, DBL_MAX, worker);
	for (a = 0; a < ncols; a++)
		any |= remote[a] = worker[a] == 0 && col_encoder_takes(&src[a]);
	job = any ? col_encoder_submit(src, ncols, remote) : 0;
	if (job == 0)
		return false;
	for (a = 0; a < ncols; a++)
		if (!remote[a])
			col_encode_column(&src[a], &out[a]);
	collect(job, src, ncols, remote, out);
	return true;
}

void
col_encode_columns(const ColumnSource *src, int ncols, EncodedColumn *out)
{
	int			nworkers = encode_workers(ncols);
	double	   *bytes;
	int		   *worker;
	int			a;

	if (nworkers > 0)
	{
		bytes = palloc(sizeof(double) * ncols);
		if (stripe_bytes(src, ncols, bytes) < 0)
			nworkers = 0;
		else if (storage_engine_enable_background_encoding &&
				 col_encoder_running() &&
				 encode_with_encoder(src, ncols, bytes, out))
			return;
		else
		{
			/* workers that get columns: none when none fit the budget */
			worker = palloc(sizeof(int) * ncols);
			share_out(src, bytes, ncols, nworkers,
					  (double) PARALLEL_ENCODE_MAX_COPY, worker);
			nworkers = 0;
			for (a = 0; a < ncols; a++)
				nworkers = Max(nworkers, worker[a] + 1);
			if (nworkers > 0)
				encode_in_parallel(src, ncols, worker, nworkers, out);
			pfree(worker);
		}
		pfree(bytes);
	}
	if (nworkers == 0)
		for (a = 0; a < ncols; a++)
			col_encode_column(&src[a], &out[a]);
}

/*
 * The part of a stripe's encoding, by cost, that the encoder is given
 * while the backend goes on buffering rows.  Adjusted after each stripe:
 * when the backend had to wait for the encoder, its share shrinks by half
 * the wait's worth; when it did not, it grows back.
 */
static double encoder_share = 1.0;

#define ENCODER_SHARE_MIN	0.2
#define ENCODER_SHARE_STEP	0.05

/*
 * The columns the encoder is given: those it takes, costliest first, up
 * to its share of the stripe's cost.
 */
static bool *
remote_columns(const ColumnSource *src, int ncols, const double *bytes,
			   bool *any)
{
	bool	   *remote = palloc0(sizeof(bool) * Max(ncols, 1));
	double	   *cost = palloc(sizeof(double) * Max(ncols, 1));
	double		total = 0;
	double		given = 0;
	int			n;
	int			a;

	for (a = 0; a < ncols; a++)
		total += cost[a] = column_cost(&src[a], bytes[a]);
	*any = false;
	for (n = 0; n < ncols; n++)
	{
		int			largest = -1;

		for (a = 0; a < ncols; a++)
			if (cost[a] >= 0 &&
				(largest < 0 || cost[a] > cost[largest]))
				largest = a;
		if (given + cost[largest] / 2 <= encoder_share * total &&
			col_encoder_takes(&src[largest]))
		{
			remote[largest] = true;
			given += cost[largest];
			*any = true;
		}
		cost[largest] = -1;
	}
	pfree(cost);
	return remote;
}

EncodeHandoff *
col_encode_columns_begin(const ColumnSource *src, int ncols,
						 EncodedColumn *out)
{
	double	   *bytes = palloc(sizeof(double) * Max(ncols, 1));
	EncodeHandoff *handoff;
	bool	   *remote;
	bool		any;
	uint32		job = 0;
	int			a;

	if (!storage_engine_enable_background_encoding ||
		encode_workers(ncols) == 0 || stripe_bytes(src, ncols, bytes) < 0)
	{
		col_encode_columns(src, ncols, out);
		return NULL;
	}
	remote = remote_columns(src, ncols, bytes, &any);
	if (any)
		job = col_encoder_submit(src, ncols, remote);
	if (job == 0)
	{
		col_encode_columns(src, ncols, out);
		return NULL;
	}
	for (a = 0; a < ncols; a++)
		if (!remote[a])
			col_encode_column(&src[a], &out[a]);
	handoff = palloc(sizeof(EncodeHandoff));
	handoff->job = job;
	handoff->remote = remote;
	INSTR_TIME_SET_CURRENT(handoff->handed);
	return handoff;
}

void
col_encode_columns_finish(EncodeHandoff *handoff, const ColumnSource *src,
						  int ncols, EncodedColumn *out)
{
	instr_time	start;
	instr_time	end;
	double		between;
	double		wait;

	if (handoff == NULL || handoff->job == 0)
		return;
	INSTR_TIME_SET_CURRENT(start);
	collect(handoff->job, src, ncols, handoff->remote, out);
	handoff->job = 0;
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	INSTR_TIME_SUBTRACT(start, handoff->handed);
	between = INSTR_TIME_GET_MILLISEC(start);
	wait = INSTR_TIME_GET_MILLISEC(end);

	/*
	 * The encoder took between + wait; had the backend taken half the wait
	 * off it, both would have been done at between + wait / 2.
	 */
	if (wait > 5.0)
		encoder_share *= (between + wait / 2) / (between + wait);
	else
		encoder_share += ENCODER_SHARE_STEP;
	encoder_share = Max(ENCODER_SHARE_MIN, Min(encoder_share, 1.0));
}

void
col_encode_prepare(int ncols, double bytes)
{
	if (storage_engine_enable_background_encoding &&
		encode_workers(ncols) > 0 &&
		bytes >= (double) storage_engine_min_parallel_encoding_size * 1024)
		col_encoder_prepare((Size) bytes);
}
