/*-------------------------------------------------------------------------
 *
 * col_encoder.c
 *	  The transaction's stripe encoder: a background worker that encodes
 *	  a full stripe's columns while the writing backend buffers the next
 *	  stripe's rows.
 *
 *	  Parallel workers (col_encode_parallel.c) share a stripe's encoding
 *	  with the backend, but cannot outlive the call that writes it:
 *	  parallel mode cannot span the executor's calls.  Every stripe of a
 *	  load thus paid a process start and a cold process (catalog caches,
 *	  compression contexts, first-touch page faults: a worker took 65-70 ms
 *	  for a share the backend encoded in 40-50), and the backend buffered
 *	  no rows while it waited.  The encoder is started once a transaction,
 *	  at its first large stripe, connected to the backend's database as
 *	  its session user, and lives until the transaction ends.  The writer
 *	  hands it a full stripe and goes on buffering rows; it collects the
 *	  encoded columns when it writes that stripe, at the next full stripe
 *	  or at any earlier moment its rows must be written (col_writer.c).
 *
 *	  The encoder reads no table and writes nothing.  It sees committed
 *	  catalog rows only, not this transaction's: it takes columns of
 *	  built-in types and collations, and the backend encodes the others.
 *	  Values go through a queue in pieces, so no shared memory the size of
 *	  a stripe is needed (/dev/shm holds 64 MB in a Docker container).  If
 *	  the encoder cannot be started, or dies, the backend encodes the
 *	  columns itself: a stripe comes out byte for byte the same either way.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/shm_mq.h"
#include "storage/shm_toc.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "colstore/col_encode_transfer.h"
#include "colstore/col_encoder.h"
#include "guc.h"
#include "session_worker.h"

#define ENCODER_MAGIC		0x5E0C0DE5
#define ENCODER_TYPE		"storage_engine stripe encoder"
#define ENCODER_KEY_HEADER	SESSION_WORKER_KEY_HEADER
#define ENCODER_KEY_JOBS	2
#define ENCODER_KEY_RESULTS 3

/*
 * Queues' sizes.  Values go in pieces the encoder mostly reads in place:
 * only a message that wraps around the queue's end is copied once more.
 */
#define JOB_QUEUE_SIZE		((Size) 8 * 1024 * 1024)
#define RESULT_QUEUE_SIZE	((Size) 2 * 1024 * 1024)
#define PIECE_SIZE			((Size) 256 * 1024)

/* PGDLLEXPORT: the postmaster finds it by name */
PGDLLEXPORT void col_encoder_main(Datum arg);


/*
 * A job: this, then ncols JobColumns, in one message; then each column's
 * bytes (laid out as its JobColumn says) in pieces.
 */
typedef struct JobHeader
{
	uint32		job;			/* 0: no job, room for expect_bytes */
	Size		expect_bytes;
	uint32		nrows;
	uint32		group_limit;
	int32		codec;
	int32		level;
	bool		dictionary_encoding;	/* the backend's settings */
	bool		packed_encoding;
	int32		ncols;
} JobHeader;

typedef struct JobColumn
{
	int32		index;			/* the column's place in the stripe */
	Size		length;			/* of its bytes */
	ColumnLayout layout;
} JobColumn;

/* A result: this, then the column flattened; index -1 ends the job. */
typedef struct ResultHeader
{
	uint32		job;
	int32		index;
} ResultHeader;

/* The backend's side. */
typedef struct Encoder
{
	MemoryContext cxt;
	dsm_segment *seg;
	BackgroundWorkerHandle *handle;
	shm_mq_handle *jobs;
	shm_mq_handle *results;
	uint32		open_job;		/* handed over, results not read; 0: none */
	SubTransactionId open_subxid;	/* the subtransaction that handed it */
	bool		in_transfer;	/* an error inside a queue operation leaves
								 * the queue inside a message */
} Encoder;

static Encoder *encoder = NULL;

/* No encoder again in this transaction: one could not start, or died. */
static bool encoder_refused = false;

/* Jobs are numbered across encoders: a stale job id never matches. */
static uint32 last_job = 0;

static void
encoder_stop(void)
{
	Encoder    *e = encoder;

	if (e == NULL)
		return;
	encoder = NULL;

	/*
	 * Detached, it ends at its next read or write of a queue (terminated,
	 * it would log every transaction's end as an error).
	 */
	dsm_detach(e->seg);
	MemoryContextDelete(e->cxt);
}

static void
encoder_xact(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PREPARE)
	{
		encoder_stop();
		encoder_refused = false;
	}
}

/*
 * A subtransaction that aborts takes the writer of any job it handed over
 * with it; when an error came between the handing over and the writer's
 * taking note, nobody would ever read the job's results, and no other job
 * could be handed over: the encoder goes (the next stripe starts another).
 */
static void
encoder_subxact(SubXactEvent event, SubTransactionId mySubid,
				SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB && encoder != NULL &&
		encoder->open_job != 0 && encoder->open_subxid == mySubid)
		encoder_stop();
}

/* The encoder is gone, or unusable: its columns are the backend's. */
static void
encoder_lost(void)
{
	encoder_stop();
	encoder_refused = true;
	elog(DEBUG1, "the colcompress encoder is gone: the backend encodes");
}

/* Starts the transaction's encoder; false when none can be had. */
static bool
encoder_start(void)
{
	static bool registered = false;
	shm_toc_estimator est;
	MemoryContext cxt;
	MemoryContext old;
	Encoder    *e;
	Size		size;
	shm_toc    *toc;
	SessionWorkerHeader *header;
	shm_mq	   *jobs;
	shm_mq	   *results;

	if (!registered)
	{
		RegisterXactCallback(encoder_xact, NULL);
		RegisterSubXactCallback(encoder_subxact, NULL);
		registered = true;
	}

	shm_toc_initialize_estimator(&est);
	shm_toc_estimate_chunk(&est, sizeof(SessionWorkerHeader));
	shm_toc_estimate_chunk(&est, JOB_QUEUE_SIZE);
	shm_toc_estimate_chunk(&est, RESULT_QUEUE_SIZE);
	shm_toc_estimate_keys(&est, 3);
	size = shm_toc_estimate(&est);

	cxt = AllocSetContextCreate(TopMemoryContext, "colcompress encoder",
								ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	e = palloc0(sizeof(Encoder));
	e->cxt = cxt;
	e->seg = dsm_create(size, DSM_CREATE_NULL_IF_MAXSEGMENTS);
	if (e->seg == NULL)
	{
		MemoryContextSwitchTo(old);
		MemoryContextDelete(cxt);
		encoder_refused = true;
		return false;
	}
	/* the transaction's, not the statement's: encoder_xact detaches it */
	dsm_pin_mapping(e->seg);
	toc = shm_toc_create(ENCODER_MAGIC, dsm_segment_address(e->seg), size);
	header = shm_toc_allocate(toc, sizeof(SessionWorkerHeader));
	session_worker_fill_header(header);
	shm_toc_insert(toc, ENCODER_KEY_HEADER, header);
	jobs = shm_mq_create(shm_toc_allocate(toc, JOB_QUEUE_SIZE), JOB_QUEUE_SIZE);
	shm_toc_insert(toc, ENCODER_KEY_JOBS, jobs);
	shm_mq_set_sender(jobs, MyProc);
	results = shm_mq_create(shm_toc_allocate(toc, RESULT_QUEUE_SIZE),
							RESULT_QUEUE_SIZE);
	shm_toc_insert(toc, ENCODER_KEY_RESULTS, results);
	shm_mq_set_receiver(results, MyProc);

	if (!session_worker_register("col_encoder_main", ENCODER_TYPE, e->seg,
								 &e->handle))
	{
		/* every worker slot taken: not again in this transaction */
		MemoryContextSwitchTo(old);
		dsm_detach(e->seg);
		MemoryContextDelete(cxt);
		encoder_refused = true;
		return false;
	}
	/* with the handle, a worker that exits detaches its queues */
	e->jobs = shm_mq_attach(jobs, e->seg, e->handle);
	e->results = shm_mq_attach(results, e->seg, e->handle);
	MemoryContextSwitchTo(old);
	encoder = e;
	return true;
}

/* The transaction's encoder, started if need be; NULL when none. */
static Encoder *
encoder_get(bool start)
{
	if (encoder != NULL && encoder->in_transfer)
		encoder_lost();
	if (encoder == NULL && start && !encoder_refused)
		encoder_start();
	return encoder;
}

bool
col_encoder_running(void)
{
	return encoder_get(false) != NULL;
}

void
col_encoder_prepare(Size bytes)
{
	Encoder    *e = encoder_get(true);
	JobHeader	header;

	if (e == NULL || e->open_job != 0)
		return;
	memset(&header, 0, sizeof(header));
	header.expect_bytes = bytes;
	e->in_transfer = true;
	if (shm_mq_send(e->jobs, sizeof(header), &header, false, true) !=
		SHM_MQ_SUCCESS)
	{
		e->in_transfer = false;
		encoder_lost();
		return;
	}
	e->in_transfer = false;
}

bool
col_encoder_takes(const ColumnSource *src)
{
	Form_pg_attribute attr = src->attr;

	return !attr->attisdropped &&
		(attr->attbyval || src->spans != NULL) &&
		attr->atttypid < FirstNormalObjectId &&
		attr->attcollation < FirstNormalObjectId;
}

/* Sends len bytes as pieces; false when the encoder is gone. */
static bool
send_bytes(Encoder *e, const void *bytes, Size len)
{
	const char *p = bytes;

	while (len > 0)
	{
		Size		n = Min(len, PIECE_SIZE);

		if (shm_mq_send(e->jobs, n, p, false, false) != SHM_MQ_SUCCESS)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

/* Sends zeros up to offset to from *sent. */
static bool
send_padding(Encoder *e, Size *sent, Size to)
{
	static const char zeros[MAXIMUM_ALIGNOF * 2] = {0};

	Assert(to >= *sent && to - *sent <= sizeof(zeros));
	if (to == *sent)
		return true;
	if (!send_bytes(e, zeros, to - *sent))
		return false;
	*sent = to;
	return true;
}

/*
 * Sends a column in the layout transfer_place_column gives it: NULL flags,
 * Datums, then (by reference) its span table and spans.
 */
static bool
send_column(Encoder *e, const ColumnSource *src, const JobColumn *col)
{
	const ColumnLayout *layout = &col->layout;
	Size		sent = 0;
	int			i;

	if (!send_bytes(e, src->isnull, src->nrows))
		return false;
	sent = src->nrows;
	if (!send_padding(e, &sent, layout->values_at) ||
		!send_bytes(e, src->values, sizeof(Datum) * src->nrows))
		return false;
	sent += sizeof(Datum) * src->nrows;
	if (layout->nspans >= 0)
	{
		SharedSpan *table = palloc(sizeof(SharedSpan) * Max(layout->nspans, 1));
		bool		ok;

		transfer_span_table(src, layout, table);
		ok = send_padding(e, &sent, layout->spans_at) &&
			send_bytes(e, table, sizeof(SharedSpan) * layout->nspans);
		sent += sizeof(SharedSpan) * layout->nspans;
		for (i = 0; ok && i < layout->nspans; i++)
		{
			ok = send_padding(e, &sent, table[i].at) &&
				send_bytes(e, src->spans[i].start, src->spans[i].length);
			sent += src->spans[i].length;
		}
		pfree(table);
		if (!ok)
			return false;
	}
	return send_padding(e, &sent, col->length);
}

uint32
col_encoder_submit(const ColumnSource *src, int ncols, const bool *remote)
{
	Encoder    *e = encoder_get(true);
	JobHeader  *header;
	JobColumn  *cols;
	Size		msg_size;
	int			n = 0;
	int			a;
	bool		ok;

	/* one job at a time: another table's stripe is encoded by the backend */
	if (e == NULL || e->open_job != 0)
		return 0;
	msg_size = sizeof(JobHeader) + sizeof(JobColumn) * ncols;
	header = palloc0(msg_size);
	cols = (JobColumn *) (header + 1);
	for (a = 0; a < ncols; a++)
	{
		if (!remote[a])
			continue;
		cols[n].index = a;
		cols[n].length = transfer_place_column(&src[a], &cols[n].layout, 0,
											   NULL);
		n++;
	}
	header->job = ++last_job;
	header->nrows = src[0].nrows;
	header->group_limit = src[0].group_limit;
	header->codec = src[0].codec->id;
	header->level = src[0].level;
	header->dictionary_encoding = storage_engine_enable_dictionary_encoding;
	header->packed_encoding = storage_engine_enable_packed_encoding;
	header->ncols = n;

	e->in_transfer = true;
	ok = shm_mq_send(e->jobs, sizeof(JobHeader) + sizeof(JobColumn) * n,
					 header, false, true) == SHM_MQ_SUCCESS;
	for (a = 0; ok && a < n; a++)
		ok = send_column(e, &src[cols[a].index], &cols[a]);
	e->in_transfer = false;
	if (ok)
		ok = shm_mq_send(e->jobs, 0, "", false, true) == SHM_MQ_SUCCESS;
	if (!ok)
	{
		encoder_lost();
		return 0;
	}
	e->open_job = header->job;
	e->open_subxid = GetCurrentSubTransactionId();
	pfree(header);
	elog(DEBUG1, "encoding a colcompress stripe of %u rows in the background",
		 src[0].nrows);
	return e->open_job;
}

bool
col_encoder_collect(uint32 job, int ncols, const bool *remote, uint32 ngroups,
					EncodedColumn *out)
{
	Encoder    *e = encoder_get(false);
	bool	   *got;
	int			a;

	if (e == NULL || job == 0 || e->open_job != job)
		return false;
	got = palloc0(sizeof(bool) * Max(ncols, 1));
	e->in_transfer = true;
	for (;;)
	{
		Size		len;
		void	   *data;
		ResultHeader header;

		if (shm_mq_receive(e->results, &len, &data, false) != SHM_MQ_SUCCESS)
		{
			e->in_transfer = false;
			encoder_lost();
			return false;
		}
		if (len < sizeof(ResultHeader))
			elog(ERROR, "colcompress encoder sent a message of %zu bytes", len);
		memcpy(&header, data, sizeof(header));
		if (header.job != job)
			elog(ERROR, "colcompress encoder sent job %u, not %u",
				 header.job, job);
		if (header.index < 0)
			break;
		if (header.index >= ncols || !remote[header.index] || got[header.index])
			elog(ERROR, "colcompress encoder sent column %d unasked",
				 header.index);
		transfer_unflatten((char *) data + sizeof(ResultHeader), ngroups,
						   &out[header.index]);
		got[header.index] = true;
	}
	e->in_transfer = false;
	e->open_job = 0;
	for (a = 0; a < ncols; a++)
		if (remote[a] && !got[a])
			elog(ERROR, "colcompress encoder did not encode column %d", a + 1);
	pfree(got);
	return true;
}

void
col_encoder_abandon(uint32 job)
{
	/* its results would be in the way of the next job's: start over */
	if (encoder != NULL && job != 0 && encoder->open_job == job)
		encoder_stop();
}

/* The encoder's side. */

/* Receives len bytes of pieces into dest; false when the backend is gone. */
static bool
receive_bytes(shm_mq_handle *jobs, char *dest, Size len)
{
	Size		got = 0;

	while (got < len)
	{
		Size		n;
		void	   *data;

		if (shm_mq_receive(jobs, &n, &data, false) != SHM_MQ_SUCCESS)
			return false;
		if (n > len - got)
			elog(ERROR, "colcompress encoder received %zu bytes too many",
				 n - (len - got));
		memcpy(dest + got, data, n);
		got += n;
	}
	return true;
}

/*
 * Memory for a job's values, kept from job to job: new memory for every
 * stripe's values took a page fault every 4 kB.  Touched when made, so
 * that room made ahead of a job (col_encoder_prepare) is ready.
 */
static char *
values_room(Size size)
{
	static char *values = NULL;
	static Size values_size = 0;

	if (size > values_size)
	{
		/* stripes' sizes differ a little: room for the next ones too */
		if (values != NULL)
			pfree(values);
		values_size = Min(size + size / 4, MaxAllocHugeSize);
		values = MemoryContextAllocExtended(TopMemoryContext, values_size,
											MCXT_ALLOC_HUGE);
		memset(values, 0, values_size);
	}
	return values;
}

/* Encodes one job; false when the backend is gone. */
static bool
encode_job(shm_mq_handle *jobs, shm_mq_handle *results, MemoryContext cxt)
{
	Size		len;
	void	   *data;
	JobHeader	header;
	JobColumn  *cols;
	char	   *values;
	Size		total;
	char	  **bases;
	char	  **flats;
	Size	   *sizes;
	uint32		ngroups;
	ResultHeader result;
	shm_mq_iovec iov[2];
	int			a;

	if (shm_mq_receive(jobs, &len, &data, false) != SHM_MQ_SUCCESS)
		return false;
	MemoryContextSwitchTo(cxt);
	if (len < sizeof(JobHeader))
		elog(ERROR, "colcompress encoder received a job of %zu bytes", len);
	memcpy(&header, data, sizeof(header));
	if (header.job == 0)
	{
		values_room(header.expect_bytes);
		return true;
	}
	if (header.ncols < 0 ||
		len != sizeof(JobHeader) + sizeof(JobColumn) * header.ncols ||
		header.group_limit == 0)
		elog(ERROR, "colcompress encoder received a malformed job");
	cols = palloc(sizeof(JobColumn) * Max(header.ncols, 1));
	memcpy(cols, (char *) data + sizeof(JobHeader),
		   sizeof(JobColumn) * header.ncols);

	/* every column first: the backend goes back to its rows sooner */
	bases = palloc(sizeof(char *) * Max(header.ncols, 1));
	total = 0;
	for (a = 0; a < header.ncols; a++)
		total += MAXALIGN(cols[a].length);
	values = values_room(total);
	total = 0;
	for (a = 0; a < header.ncols; a++)
	{
		bases[a] = values + total;
		total += MAXALIGN(cols[a].length);
		if (!receive_bytes(jobs, bases[a], cols[a].length))
			return false;
	}
	if (shm_mq_receive(jobs, &len, &data, false) != SHM_MQ_SUCCESS)
		return false;
	if (len != 0)
		elog(ERROR, "colcompress encoder received a job longer than announced");

	pgstat_report_activity(STATE_RUNNING, "encoding a colcompress stripe");
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	MemoryContextSwitchTo(cxt);
	storage_engine_enable_dictionary_encoding = header.dictionary_encoding;
	storage_engine_enable_packed_encoding = header.packed_encoding;
	ngroups = col_chunk_groups(header.nrows, header.group_limit);
	flats = palloc(sizeof(char *) * Max(header.ncols, 1));
	sizes = palloc(sizeof(Size) * Max(header.ncols, 1));
	for (a = 0; a < header.ncols; a++)
	{
		MemoryContext column_cxt = AllocSetContextCreate(cxt,
														 "colcompress encoder column",
														 ALLOCSET_DEFAULT_SIZES);
		ColumnSource src;
		EncodedColumn encoded;

		MemoryContextSwitchTo(column_cxt);
		transfer_source(&cols[a].layout, bases[a], header.nrows,
						header.group_limit, header.codec, header.level, &src);
		col_encode_column(&src, &encoded);
		MemoryContextSwitchTo(cxt);
		sizes[a] = transfer_flatten(&encoded, ngroups, NULL);
		flats[a] = palloc_extended(Max(sizes[a], 1), MCXT_ALLOC_HUGE);
		transfer_flatten(&encoded, ngroups, flats[a]);
		MemoryContextDelete(column_cxt);
	}
	MemoryContextSwitchTo(TopMemoryContext);
	CommitTransactionCommand();
	pgstat_report_activity(STATE_IDLE, NULL);

	/*
	 * Sent once all are encoded: the queue holds less than a stripe's
	 * columns, and the backend reads them only when it writes the stripe.
	 */
	result.job = header.job;
	for (a = 0; a < header.ncols; a++)
	{
		result.index = cols[a].index;
		iov[0].data = (const char *) &result;
		iov[0].len = sizeof(result);
		iov[1].data = flats[a];
		iov[1].len = sizes[a];
		if (shm_mq_sendv(results, iov, 2, false, false) != SHM_MQ_SUCCESS)
			return false;
	}
	result.index = -1;
	return shm_mq_send(results, sizeof(result), &result, false, true) ==
		SHM_MQ_SUCCESS;
}

void
col_encoder_main(Datum arg)
{
	dsm_segment *seg;
	shm_toc    *toc = session_worker_attach(arg, ENCODER_MAGIC, ENCODER_TYPE, &seg);
	shm_mq	   *mq;
	shm_mq_handle *jobs;
	shm_mq_handle *results;
	MemoryContext cxt;

	mq = shm_toc_lookup(toc, ENCODER_KEY_JOBS, false);
	shm_mq_set_receiver(mq, MyProc);
	jobs = shm_mq_attach(mq, seg, NULL);
	mq = shm_toc_lookup(toc, ENCODER_KEY_RESULTS, false);
	shm_mq_set_sender(mq, MyProc);
	results = shm_mq_attach(mq, seg, NULL);
	cxt = AllocSetContextCreate(TopMemoryContext, "colcompress encoder job",
								ALLOCSET_DEFAULT_SIZES);
	while (encode_job(jobs, results, cxt))
	{
		MemoryContextSwitchTo(TopMemoryContext);
		MemoryContextReset(cxt);
	}
	proc_exit(0);
}
