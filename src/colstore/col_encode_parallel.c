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
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/condition_variable.h"
#include "storage/dsm.h"
#include "storage/shm_toc.h"
#include "utils/datum.h"
#include "utils/dsa.h"
#include "utils/wait_event.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "colstore/col_encode_parallel.h"
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

/* A span of the backend's values (ColumnSource.spans), copied whole. */
typedef struct SharedSpan
{
	uintptr_t	start;			/* where it was in the backend */
	Size		length;
	Size		at;				/* where it is in the values chunk */
} SharedSpan;

typedef struct SharedColumn
{
	FormData_pg_attribute attr;
	int			worker;			/* ParallelWorkerNumber encoding it, or -1:
								 * the backend */
	/* the rest in the values chunk */
	Size		isnull_at;
	Size		values_at;		/* Datums by value, the backend's pointers
								 * into spans, or offsets of values */
	Size		spans_at;
	int			nspans;			/* -1: values copied one by one */
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

/*
 * The bytes one non-NULL by-reference value of attr takes, and whether it
 * is aligned (all but 1-byte-header varlenas, as in the write buffer).
 */
static Size
value_size(Form_pg_attribute attr, Datum v, bool *aligned)
{
	*aligned = attr->attlen != -1 || !VARATT_IS_SHORT(DatumGetPointer(v));
	return datumGetSize(v, false, attr->attlen);
}

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
			bytes += value_size(src->attr, src->values[r], &aligned);
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

/*
 * Shares the columns out among the backend (-1) and nworkers workers:
 * costliest first, each to the participant with the least to do so far.
 */
static void
share_out(const ColumnSource *src, const double *bytes, int ncols,
		  int nworkers, int *worker)
{
	double	   *load = palloc0(sizeof(double) * (nworkers + 1));
	double	   *cost = palloc(sizeof(double) * ncols);
	bool	   *done = palloc0(sizeof(bool) * ncols);
	double		copied = 0;
	int			n;

	for (n = 0; n < ncols; n++)
		cost[n] = bytes[n] + (double) src[n].nrows * VALUE_COST_BYTES;

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
			(double) PARALLEL_ENCODE_MAX_COPY)
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

/*
 * Bytes the column takes in the values chunk from offset at: isnull, its
 * Datums, then its spans (their table, then each whole) or, without, each
 * by-reference value.  With dest, copies them there.
 */
static Size
place_column(const ColumnSource *src, SharedColumn *col, Size at, char *dest)
{
	Size		pos;
	uint32		r;
	int			i;

	col->isnull_at = at;
	col->values_at = MAXALIGN(at + src->nrows);
	col->spans_at = 0;
	col->nspans = -1;
	pos = col->values_at + sizeof(Datum) * src->nrows;
	if (dest != NULL)
	{
		memcpy(dest + col->isnull_at, src->isnull, src->nrows);
		if (src->attr->attbyval || src->spans != NULL)
			memcpy(dest + col->values_at, src->values,
				   sizeof(Datum) * src->nrows);
	}
	if (src->attr->attbyval)
		return MAXALIGN(pos);
	if (src->spans != NULL)
	{
		SharedSpan *spans = NULL;

		col->nspans = src->nspans;
		col->spans_at = MAXALIGN(pos);
		pos = col->spans_at + sizeof(SharedSpan) * src->nspans;
		if (dest != NULL)
			spans = (SharedSpan *) (dest + col->spans_at);
		for (i = 0; i < src->nspans; i++)
		{
			pos = MAXALIGN(pos);
			if (spans != NULL)
			{
				spans[i].start = (uintptr_t) src->spans[i].start;
				spans[i].length = src->spans[i].length;
				spans[i].at = pos;
				memcpy(dest + pos, src->spans[i].start, src->spans[i].length);
			}
			pos += src->spans[i].length;
		}
		return MAXALIGN(pos);
	}
	for (r = 0; r < src->nrows; r++)
	{
		bool		aligned;
		Size		len;

		if (src->isnull[r])
			continue;
		len = value_size(src->attr, src->values[r], &aligned);
		if (aligned)
			pos = MAXALIGN(pos);
		if (dest != NULL)
		{
			Datum		offset = (Datum) pos;

			memcpy(dest + col->values_at + sizeof(Datum) * r, &offset,
				   sizeof(Datum));
			memcpy(dest + pos, DatumGetPointer(src->values[r]), len);
		}
		pos += len;
	}
	return MAXALIGN(pos);
}

/*
 * An encoded column, flattened: its dictionary, null count and bounds,
 * then each chunk's metadata, bounds and stored bytes.  put_* with a NULL
 * buffer only count.
 */
static void
put_bytes(char **p, Size *size, const void *bytes, Size len)
{
	if (*p != NULL)
	{
		memcpy(*p, bytes, len);
		*p += len;
	}
	*size += len;
}

static void
put_varlena(char **p, Size *size, const void *value, int32 len)
{
	put_bytes(p, size, &len, sizeof(len));
	if (len > 0)
		put_bytes(p, size, value, len);
}

static void
put_bound(char **p, Size *size, const bytea *bound)
{
	if (bound == NULL)
		put_varlena(p, size, NULL, -1);
	else
		put_varlena(p, size, bound, (int32) VARSIZE(bound));
}

static Size
flatten(const EncodedColumn *e, uint32 ngroups, char *p)
{
	Size		size = 0;
	uint32		g;

	put_varlena(&p, &size, e->dict, e->dict != NULL ? e->dict_length : -1);
	put_bytes(&p, &size, &e->null_count, sizeof(e->null_count));
	put_bound(&p, &size, e->min);
	put_bound(&p, &size, e->max);
	for (g = 0; g < ngroups; g++)
	{
		ChunkMeta	meta = e->chunks[g];

		meta.min_value = meta.max_value = NULL;
		put_bytes(&p, &size, &meta, sizeof(meta));
		put_bound(&p, &size, e->chunks[g].min_value);
		put_bound(&p, &size, e->chunks[g].max_value);
		put_bytes(&p, &size, e->stored[g], meta.stored_length);
	}
	return size;
}

static void
get_bytes(const char **p, void *dest, Size len)
{
	memcpy(dest, *p, len);
	*p += len;
}

/* A palloc'd copy of the next varlena (NULL when absent); *len its length */
static char *
get_varlena(const char **p, int32 *len)
{
	char	   *copy;

	get_bytes(p, len, sizeof(*len));
	if (*len < 0)
		return NULL;
	copy = palloc(Max(*len, 1));
	get_bytes(p, copy, *len);
	return copy;
}

static void
unflatten(const char *p, uint32 ngroups, EncodedColumn *e)
{
	int32		len;
	uint32		g;

	memset(e, 0, sizeof(*e));
	e->dict = get_varlena(&p, &e->dict_length);
	if (e->dict == NULL)
		e->dict_length = 0;
	get_bytes(&p, &e->null_count, sizeof(e->null_count));
	e->min = (bytea *) get_varlena(&p, &len);
	e->max = (bytea *) get_varlena(&p, &len);
	e->chunks = palloc(sizeof(ChunkMeta) * Max(ngroups, 1));
	e->stored = palloc(sizeof(char *) * Max(ngroups, 1));
	for (g = 0; g < ngroups; g++)
	{
		ChunkMeta  *c = &e->chunks[g];

		get_bytes(&p, c, sizeof(*c));
		c->min_value = (bytea *) get_varlena(&p, &len);
		c->max_value = (bytea *) get_varlena(&p, &len);
		e->stored[g] = palloc(Max(c->stored_length, 1));
		get_bytes(&p, e->stored[g], c->stored_length);
	}
}

static uint32
stripe_groups(const SharedStripe *stripe)
{
	return (stripe->nrows + stripe->group_limit - 1) / stripe->group_limit;
}

/*
 * The column's by-reference values as pointers into the values chunk: from
 * the backend's pointers into its spans (consecutive values mostly in the
 * same span), or from their offsets.
 */
static Datum *
worker_pointers(const SharedColumn *col, char *values, uint32 nrows)
{
	const bool *isnull = (const bool *) (values + col->isnull_at);
	const Datum *datums = (const Datum *) (values + col->values_at);
	const SharedSpan *spans = (const SharedSpan *) (values + col->spans_at);
	Datum	   *pointers = palloc(sizeof(Datum) * Max(nrows, 1));
	int			last = 0;
	uint32		r;

	for (r = 0; r < nrows; r++)
	{
		uintptr_t	p = (uintptr_t) datums[r];

		if (isnull[r])
		{
			pointers[r] = (Datum) 0;
			continue;
		}
		if (col->nspans < 0)
		{
			pointers[r] = PointerGetDatum(values + p);
			continue;
		}
		if (last >= col->nspans || p - spans[last].start >= spans[last].length)
		{
			for (last = 0; last < col->nspans; last++)
				if (p - spans[last].start < spans[last].length)
					break;
			if (last == col->nspans)
				elog(ERROR, "value of column \"%s\" outside its spans",
					 NameStr(col->attr.attname));
		}
		pointers[r] = PointerGetDatum(values + spans[last].at +
									  (p - spans[last].start));
	}
	return pointers;
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
		Datum	   *datums;
		Size		size;

		if (col->worker != ParallelWorkerNumber)
			continue;
		old = MemoryContextSwitchTo(cxt);
		src.attr = &col->attr;
		src.isnull = (bool *) (values + col->isnull_at);
		datums = (Datum *) (values + col->values_at);
		if (!col->attr.attbyval)
			datums = worker_pointers(col, values, stripe->nrows);
		src.values = datums;
		src.nrows = stripe->nrows;
		src.group_limit = stripe->group_limit;
		src.codec = codec_by_id(stripe->codec);
		src.level = stripe->level;
		src.spans = NULL;
		src.nspans = 0;
		col_encode_column(&src, &encoded);

		size = flatten(&encoded, stripe_groups(stripe), NULL);
		col->encoded = dsa_allocate_extended(area, size, DSA_ALLOC_HUGE);
		flatten(&encoded, stripe_groups(stripe),
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
		SharedColumn sizing;

		if (worker[a] >= 0)
			values_size = place_column(&src[a], &sizing, values_size, NULL);
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

		memcpy(&col->attr, src[a].attr, sizeof(FormData_pg_attribute));
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
			values_size = place_column(&src[a], &stripe->cols[a], values_size,
									   values);
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
		unflatten(dsa_get_address(area, col->encoded), stripe_groups(stripe),
				  &out[a]);
	}

	dsa_detach(area);
	DestroyParallelContext(pcxt);
	ExitParallelMode();
	if (pushed_snapshot)
		PopActiveSnapshot();
}

void
col_encode_columns(const ColumnSource *src, int ncols, EncodedColumn *out)
{
	int			nworkers = encode_workers(ncols);
	double		total = 0;
	double	   *bytes;
	int		   *worker;
	int			a;

	if (nworkers > 0)
	{
		bytes = palloc(sizeof(double) * ncols);
		for (a = 0; a < ncols; a++)
			total += bytes[a] = column_bytes(&src[a]);
		if (total < (double) storage_engine_min_parallel_encoding_size * 1024)
			nworkers = 0;
		else
		{
			/* workers that get columns: none when none fit the budget */
			worker = palloc(sizeof(int) * ncols);
			share_out(src, bytes, ncols, nworkers, worker);
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
