/*-------------------------------------------------------------------------
 *
 * col_writer.c
 *	  Buffers inserted rows column by column and writes them as a stripe.
 *
 *	  A writer belongs to one relation and one (sub)transaction
 *	  (format/pending_writes.c keeps track of them).  Each row gets its final row
 *	  number, hence its TID, when it is buffered: the executor inserts
 *	  index entries right after tuple_insert returns.  Row numbers are
 *	  reserved from the metapage in growing runs (format/row_runs.c), so a
 *	  one-row transaction costs few numbers and a bulk load one reservation
 *	  per few thousand rows.
 *
 *	  With the orderby option, the rows of a stripe are sorted before it is
 *	  written, so even a load in arbitrary order gives tight zone maps.
 *	  Sorting moves rows to other row numbers (the stripe's reserved
 *	  numbers are handed out again in sorted order), which is only right
 *	  while nothing holds the TIDs given at insert: the stripe is sorted
 *	  only when the table has no index.  Rows of different commands of the
 *	  transaction are sorted separately, so each command still sees a
 *	  prefix of the stripe (see stripe_visible_rows).
 *
 *	  Memory: a buffer holds at most one stripe of values; the stripe is
 *	  written when it reaches stripe_row_limit rows or the byte budget,
 *	  whichever comes first, so wide values cannot exhaust memory.  Each
 *	  column is encoded on its own (col_encode.c), with help when the
 *	  stripe is large (col_encode_parallel.c), and the stripe's data
 *	  assembled from them.  A full stripe of a large load is sealed
 *	  instead: handed to the transaction's background encoder
 *	  (col_encoder.c) while a second buffer takes the next rows, and
 *	  written at the next full buffer or any earlier write.  Until then its
 *	  rows are buffered rows like the others (pending_rows, holds_row,
 *	  write, clear), so nothing else needs to know.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/detoast.h"
#include "access/tupdesc.h"
#include "miscadmin.h"
#include "utils/datum.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/sortsupport.h"

#include "catalog/options.h"
#include "catalog/stripe_meta.h"
#include "catalog/zone_map.h"
#include "codec/codec.h"
#include "codec/frames.h"
#include "colstore/col_encode_parallel.h"
#include "colstore/col_encoder.h"
#include "colstore/col_writer.h"
#include "format/pending_writes.h"
#include "format/row_number.h"
#include "format/row_runs.h"
#include "format/storage.h"
#include "format/storage_am.h"
#include "guc.h"

/* Byte budget of one writer's buffered values. */
#define WRITER_BYTE_LIMIT	((Size) 256 * 1024 * 1024)

/*
 * A writer keeps its column arrays and value blocks from one stripe to the
 * next up to this many bytes: memory freed after a flush went back to the
 * operating system, and faulting it in again for every stripe took a
 * twelfth of a load.  A stripe of the events table's rows takes 66 MB.
 */
#define WRITER_KEEP_BYTES	((Size) 128 * 1024 * 1024)

/* A block of an arena: its size, then its bytes (at ARENA_DATA). */
typedef struct ArenaBlock
{
	struct ArenaBlock *next;
	Size		size;
} ArenaBlock;

#define ARENA_DATA(b)	((char *) (b) + MAXALIGN(sizeof(ArenaBlock)))

typedef struct ValueArena
{
	char	   *next;			/* free space of the current block */
	Size		left;
	Size		block;			/* size of the last block made */
	ArenaBlock *blocks;			/* every block, in the order filled */
	ArenaBlock *current;		/* the block being filled, or NULL */
	uint32		outside;		/* values of the stripe outside the blocks */
} ValueArena;

/* Buffered rows: their values, column by column. */
typedef struct ColBuffer
{
	MemoryContext cxt;			/* values alone, row runs; reset after each flush */
	MemoryContext keep_cxt;		/* arrays and value blocks, kept for the next
								 * stripe up to WRITER_KEEP_BYTES */
	uint32		nrows;
	uint32		capacity;		/* allocated entries per column */
	Datum	  **values;			/* [natts][capacity] */
	bool	  **isnull;
	Size		bytes;
	ValueArena *arenas;			/* [natts], in keep_cxt */
} ColBuffer;

/*
 * A full stripe handed to the transaction's encoder (col_encoder.c): its
 * rows stay buffered, and count as such, until it is written.
 */
typedef struct SealedStripe
{
	ColBuffer	buf;
	RowRun	   *runs;			/* in buf.cxt */
	int			nruns;
	CidRun	   *cids;
	int			ncids;
	const char *sorted_by;
	MemoryContext encode_cxt;	/* srcs and cols */
	ColumnSource *srcs;
	EncodedColumn *cols;		/* complete once handoff is collected */
	EncodeHandoff *handoff;
} SealedStripe;

struct ColWriter
{
	MemoryContext parent;
	TupleDesc	tupdesc;		/* as of the writer's creation */
	ColcompressOptions opts;
	ColBuffer	buf;			/* the rows being buffered */
	RowRunBuilder rows;			/* their row numbers and command ids, in
								 * buf.cxt */
	SealedStripe *sealed;		/* the stripe before them, or NULL */
	ColBuffer	spare;			/* a written sealed stripe's buffer, for the
								 * next (cxt NULL: none) */
	Size		other_memory;	/* what sealed and spare hold */
};

/*
 * By-reference values are copied into blocks, one series of blocks per
 * column: a palloc per value cost more than the copy, and the flush goes
 * over a stripe column by column (framing, encoding, zone maps), which
 * missed the cache at nearly every value while a column's values were
 * spread among the other columns'.  Blocks grow from the first size to
 * the last, so a narrow load and a thousand-column table both stay
 * small; values above a quarter of the last size are allocated alone.
 */
#define ARENA_FIRST_BLOCK	((Size) 8 * 1024)
#define ARENA_LAST_BLOCK	((Size) 1024 * 1024)

void
col_writer_keep_order(ColWriter *w)
{
	w->opts.orderby = NULL;
}

static void *
ops_create(Relation rel, MemoryContext cxt)
{
	return col_writer_create(rel, cxt);
}

static void
ops_write(void *writer, Relation rel)
{
	col_writer_write(writer, rel);
}

static void
ops_clear(void *writer)
{
	col_writer_clear(writer);
}

static uint64
ops_pending_rows(const void *writer)
{
	return col_writer_pending_rows(writer);
}

static int
ops_natts(const void *writer)
{
	return col_writer_natts(writer);
}

static RowRunBuilder *
ops_rows(void *writer)
{
	return &((ColWriter *) writer)->rows;
}

static bool
ops_holds_row(void *writer, uint64 rownum)
{
	ColWriter  *w = writer;
	uint64		pos;

	return row_runs_find(w->rows.runs, w->rows.nruns, rownum, &pos) ||
		(w->sealed != NULL &&
		 row_runs_find(w->sealed->runs, w->sealed->nruns, rownum, &pos));
}

static Size
buffer_memory(const ColBuffer *b)
{
	return b->cxt == NULL ? 0 :
		MemoryContextMemAllocated(b->cxt, true) +
		MemoryContextMemAllocated(b->keep_cxt, true);
}

/*
 * Measured when they change: pending_writes.c asks after every row, and
 * walking their contexts each time was 1.5% of a load.
 */
static void
measure_other_memory(ColWriter *w)
{
	w->other_memory = buffer_memory(&w->spare);
	if (w->sealed != NULL)
		w->other_memory += buffer_memory(&w->sealed->buf) +
			MemoryContextMemAllocated(w->sealed->encode_cxt, true);
}

static Size
ops_memory(const void *writer)
{
	const ColWriter *w = writer;

	return buffer_memory(&w->buf) + w->other_memory;
}

static void
ops_free(void *writer)
{
	col_writer_free(writer);
}

const PendingWriterOps col_writer_ops = {
	.am_name = "colcompress",
	.create = ops_create,
	.write = ops_write,
	.clear = ops_clear,
	.pending_rows = ops_pending_rows,
	.natts = ops_natts,
	.rows = ops_rows,
	.holds_row = ops_holds_row,
	.memory = ops_memory,
	.free = ops_free,
};

ColWriter *
col_writer_for(Relation rel)
{
	return pending_writer(rel, &col_writer_ops);
}

static void
buffer_init(ColBuffer *b, MemoryContext parent)
{
	memset(b, 0, sizeof(*b));
	b->cxt = AllocSetContextCreate(parent, "colcompress write buffer",
								   ALLOCSET_DEFAULT_SIZES);
	b->keep_cxt = AllocSetContextCreate(parent, "colcompress write arrays",
										ALLOCSET_DEFAULT_SIZES);
}

static void
buffer_free(ColBuffer *b)
{
	if (b->cxt == NULL)
		return;
	MemoryContextDelete(b->cxt);
	MemoryContextDelete(b->keep_cxt);
	b->cxt = b->keep_cxt = NULL;
}

ColWriter *
col_writer_create(Relation rel, MemoryContext parent)
{
	ColWriter  *w = MemoryContextAllocZero(parent, sizeof(ColWriter));

	w->parent = parent;
	buffer_init(&w->buf, parent);
	{
		/*
		 * outside the buffers: these outlive every flush; in parent, not
		 * the caller's context, which may be a statement's (a writer
		 * replaced after ALTER TABLE ADD COLUMN is made in the inserting
		 * statement)
		 */
		MemoryContext old = MemoryContextSwitchTo(parent);

		w->tupdesc = CreateTupleDescCopy(RelationGetDescr(rel));
		colcompress_options_get(RelationGetRelid(rel), &w->opts);
		MemoryContextSwitchTo(old);
	}
	row_runs_init(&w->rows, w->buf.cxt, (uint64) w->opts.stripe_row_limit);
	w->rows.on_reserve = storage_rows_reserved;
	return w;
}

int
col_writer_natts(const ColWriter *w)
{
	return w->tupdesc->natts;
}

uint64
col_writer_pending_rows(const ColWriter *w)
{
	return w->buf.nrows + (w->sealed != NULL ? w->sealed->buf.nrows : 0);
}

static void
reset_buffer(ColBuffer *b, int natts)
{
	MemoryContextReset(b->cxt);
	if (MemoryContextMemAllocated(b->keep_cxt, false) > WRITER_KEEP_BYTES)
	{
		MemoryContextReset(b->keep_cxt);
		b->capacity = 0;
		b->values = NULL;
		b->isnull = NULL;
		b->arenas = NULL;
	}
	else if (b->arenas != NULL)
	{
		int			i;

		/* the blocks are filled again from the first */
		for (i = 0; i < natts; i++)
		{
			b->arenas[i].current = NULL;
			b->arenas[i].next = NULL;
			b->arenas[i].left = 0;
			b->arenas[i].outside = 0;
		}
	}
	b->nrows = 0;
	b->bytes = 0;
}

/* Forgets the sealed stripe's rows, its buffer kept as the spare. */
static void
release_sealed(ColWriter *w)
{
	SealedStripe *sealed = w->sealed;

	if (sealed == NULL)
		return;
	w->sealed = NULL;
	if (sealed->handoff != NULL)
		col_encoder_abandon(sealed->handoff->job);
	MemoryContextDelete(sealed->encode_cxt);
	buffer_free(&w->spare);
	w->spare = sealed->buf;
	reset_buffer(&w->spare, w->tupdesc->natts);
	pfree(sealed);
	measure_other_memory(w);
}

void
col_writer_free(ColWriter *w)
{
	release_sealed(w);
	buffer_free(&w->buf);
	buffer_free(&w->spare);
	pfree(w);
}

/* Forgets the rows being buffered, keeping their arrays. */
static void
reset_current(ColWriter *w)
{
	reset_buffer(&w->buf, w->tupdesc->natts);
	row_runs_reset(&w->rows);
}

/*
 * The arena's next block with room for len bytes: the one after the
 * current block if it is large enough, else a new one put there.
 */
static void
arena_next_block(ColBuffer *buf, ValueArena *arena, Size len)
{
	ArenaBlock *after = arena->current != NULL ? arena->current->next :
		arena->blocks;
	ArenaBlock *b = after;

	if (b == NULL || b->size < len)
	{
		arena->block = arena->block == 0 ? ARENA_FIRST_BLOCK :
			Min(2 * arena->block, ARENA_LAST_BLOCK);
		arena->block = Max(arena->block, len);
		b = MemoryContextAlloc(buf->keep_cxt,
							   MAXALIGN(sizeof(ArenaBlock)) + arena->block);
		b->size = arena->block;
		b->next = after;
		if (arena->current != NULL)
			arena->current->next = b;
		else
			arena->blocks = b;
	}
	arena->current = b;
	arena->next = ARENA_DATA(b);
	arena->left = b->size;
}

/*
 * Room for len bytes of a value in the buffer.  Values with a 4-byte
 * header (and fixed-length ones) stay MAXALIGNed, as palloc would give
 * them; 1-byte-header varlenas need no alignment, as in a heap tuple.
 */
static char *
arena_alloc(ColBuffer *buf, int attno, Size len, bool aligned)
{
	ValueArena *arena = &buf->arenas[attno];
	char	   *p;

	if (aligned)
	{
		Size		pad = (Size) (TYPEALIGN(MAXIMUM_ALIGNOF, (uintptr_t) arena->next) -
								  (uintptr_t) arena->next);

		if (pad > arena->left)
			arena->left = 0;
		else
		{
			arena->next += pad;
			arena->left -= pad;
		}
	}
	if (len > arena->left)
	{
		if (len > ARENA_LAST_BLOCK / 4)
		{
			arena->outside++;
			return MemoryContextAlloc(buf->cxt, len);
		}
		arena_next_block(buf, arena, len);
	}
	p = arena->next;
	arena->next += len;
	arena->left -= len;
	return p;
}

static void
grow_columns(ColWriter *w)
{
	ColBuffer  *b = &w->buf;
	int			natts = w->tupdesc->natts;
	uint32		newcap = b->capacity == 0 ? 64 :
		Min(b->capacity * 2, (uint32) w->opts.stripe_row_limit);
	int			i;

	if (b->values == NULL)
	{
		b->arenas = MemoryContextAllocZero(b->keep_cxt, sizeof(ValueArena) * Max(natts, 1));
		b->values = MemoryContextAllocZero(b->keep_cxt, sizeof(Datum *) * Max(natts, 1));
		b->isnull = MemoryContextAllocZero(b->keep_cxt, sizeof(bool *) * Max(natts, 1));
		for (i = 0; i < natts; i++)
		{
			b->values[i] = MemoryContextAlloc(b->keep_cxt, sizeof(Datum) * newcap);
			b->isnull[i] = MemoryContextAlloc(b->keep_cxt, sizeof(bool) * newcap);
		}
	}
	else
	{
		for (i = 0; i < natts; i++)
		{
			b->values[i] = repalloc(b->values[i], sizeof(Datum) * newcap);
			b->isnull[i] = repalloc(b->isnull[i], sizeof(bool) * newcap);
		}
	}
	b->capacity = newcap;
}

static void stripe_full(ColWriter *w, Relation rel);

void
col_writer_insert(ColWriter *w, Relation rel, TupleTableSlot *slot,
				  CommandId cid)
{
	ColBuffer  *b = &w->buf;
	int			natts = w->tupdesc->natts;
	MemoryContext old;
	uint64		rownum;
	int			i;

	if (b->nrows >= (uint32) w->opts.stripe_row_limit ||
		b->bytes >= WRITER_BYTE_LIMIT)
		stripe_full(w, rel);
	if (b->nrows == b->capacity)
		grow_columns(w);

	/*
	 * Half a stripe in: the encoder's start (some milliseconds) overlaps
	 * the second half's rows.  By then the by-reference values give the
	 * stripe's size; by-value ones count a Datum each.
	 */
	if (b->nrows == (uint32) w->opts.stripe_row_limit / 2 && b->nrows > 0)
		col_encode_prepare(natts, 2.0 * ((double) b->bytes +
										 (double) b->nrows * sizeof(Datum) * natts));

	slot_getallattrs(slot);
	old = MemoryContextSwitchTo(b->cxt);	/* detoasted copies */
	for (i = 0; i < natts; i++)
	{
		Form_pg_attribute attr = TupleDescAttr(w->tupdesc, i);
		Datum		value = slot->tts_values[i];
		bool		null = slot->tts_isnull[i] || attr->attisdropped;

		b->isnull[i][b->nrows] = null;
		if (null)
		{
			b->values[i][b->nrows] = (Datum) 0;
			continue;
		}
		if (attr->attbyval)
			b->values[i][b->nrows] = value;
		else if (attr->attlen == -1)
		{
			struct varlena *v = (struct varlena *) DatumGetPointer(value);

			/* stored values are never external or compressed */
			if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
			{
				v = detoast_attr(v);
				b->arenas[i].outside++;
				b->values[i][b->nrows] = PointerGetDatum(v);
			}
			else
			{
				/* short headers stay short */
				Size		len = VARSIZE_ANY(v);
				char	   *copy = arena_alloc(b, i, len, !VARATT_IS_SHORT(v));

				memcpy(copy, v, len);
				b->values[i][b->nrows] = PointerGetDatum(copy);
			}
			b->bytes += VARSIZE_ANY(v);
		}
		else
		{
			Size		len = datumGetSize(value, false, attr->attlen);
			char	   *copy = arena_alloc(b, i, len, true);

			memcpy(copy, DatumGetPointer(value), len);
			b->values[i][b->nrows] = PointerGetDatum(copy);
			b->bytes += len;
		}
	}
	MemoryContextSwitchTo(old);

	rownum = row_runs_add(&w->rows, rel, cid);
	b->nrows++;
	row_number_to_tid(rownum, &slot->tts_tid);
	slot->tts_tableOid = RelationGetRelid(rel);
}


typedef struct StripeSortState
{
	ColBuffer  *b;
	int			nkeys;
	AttrNumber *attnos;
	SortSupportData *ssup;
} StripeSortState;

static int
compare_rows(const void *a, const void *b, void *arg)
{
	StripeSortState *st = arg;
	uint32		ra = *(const uint32 *) a;
	uint32		rb = *(const uint32 *) b;
	int			k;

	for (k = 0; k < st->nkeys; k++)
	{
		int			col = st->attnos[k] - 1;
		int			c = ApplySortComparator(st->b->values[col][ra], st->b->isnull[col][ra],
											st->b->values[col][rb], st->b->isnull[col][rb],
											&st->ssup[k]);

		if (c != 0)
			return c;
	}
	return (ra > rb) - (ra < rb);	/* stable */
}

/*
 * Sorts the buffered rows of b by the orderby option, each command's rows
 * (cids) separately, permuting the column arrays in place.
 */
static void
sort_buffer(ColWriter *w, Relation rel, ColBuffer *b, const CidRun *cids,
			int ncids)
{
	ColcompressOrderbyKey *keys;
	StripeSortState st;
	uint32	   *order;
	uint32		start = 0;
	int			natts = w->tupdesc->natts;
	Datum	   *values;
	bool	   *isnull;
	int			i;
	int			a;

	keys = colcompress_orderby_resolve(rel, w->opts.orderby, &st.nkeys);
	st.b = b;
	st.attnos = palloc(sizeof(AttrNumber) * st.nkeys);
	st.ssup = palloc0(sizeof(SortSupportData) * st.nkeys);
	for (i = 0; i < st.nkeys; i++)
	{
		st.attnos[i] = keys[i].attnum;
		st.ssup[i].ssup_cxt = CurrentMemoryContext;
		st.ssup[i].ssup_collation = keys[i].collation;
		st.ssup[i].ssup_nulls_first = keys[i].nulls_first;
		PrepareSortSupportFromOrderingOp(keys[i].sortop, &st.ssup[i]);
	}

	order = palloc(sizeof(uint32) * b->nrows);
	for (i = 0; i < (int) b->nrows; i++)
		order[i] = i;
	for (i = 0; i < ncids; i++)
	{
		uint32		end = (uint32) cids[i].rows_end;

		qsort_arg(order + start, end - start, sizeof(uint32), compare_rows, &st);
		start = end;
	}

	/*
	 * Through one scratch pair, not new arrays per column: a second set of
	 * every column's arrays was 23 MB more at the flush's peak on the
	 * events table (a stripe of 150,000 rows of 17 columns).
	 */
	values = palloc(sizeof(Datum) * Max(b->nrows, 1));
	isnull = palloc(sizeof(bool) * Max(b->nrows, 1));
	for (a = 0; a < natts; a++)
	{
		uint32		r;

		for (r = 0; r < b->nrows; r++)
		{
			values[r] = b->values[a][order[r]];
			isnull[r] = b->isnull[a][order[r]];
		}
		memcpy(b->values[a], values, sizeof(Datum) * b->nrows);
		memcpy(b->isnull[a], isnull, sizeof(bool) * b->nrows);
	}
	pfree(values);
	pfree(isnull);
}

/*
 * Sorts b's rows when the orderby option asks and the table has no index;
 * returns the order the stripe is then in (only one command's rows: the
 * whole stripe), or NULL.
 */
static const char *
sort_stripe(ColWriter *w, Relation rel, ColBuffer *b, const CidRun *cids,
			int ncids)
{
	if (w->opts.orderby == NULL || RelationGetIndexList(rel) != NIL)
		return NULL;
	sort_buffer(w, rel, b, cids, ncids);
	return ncids == 1 ? w->opts.orderby : NULL;
}

/*
 * Column a of b's rows, for col_encode_columns: with the spans of its
 * blocks when every by-reference value lies in them, which another
 * process is then given whole rather than value by value.
 */
static ColumnSource
column_source(ColWriter *w, ColBuffer *b, int a, const Codec *codec)
{
	ColumnSource src;
	ValueArena *arena = &b->arenas[a];

	src.attr = TupleDescAttr(w->tupdesc, a);
	src.values = b->values[a];
	src.isnull = b->isnull[a];
	src.nrows = b->nrows;
	src.group_limit = (uint32) w->opts.chunk_group_row_limit;
	src.codec = codec;
	src.level = w->opts.compression_level;
	src.spans = NULL;
	src.nspans = 0;
	if (!src.attr->attbyval && arena->outside == 0)
	{
		ArenaBlock *blk;
		int			n = 0;
		ValueSpan  *spans;

		for (blk = arena->blocks; arena->current != NULL; blk = blk->next)
		{
			n++;
			if (blk == arena->current)
				break;
		}
		spans = palloc(sizeof(ValueSpan) * Max(n, 1));
		for (blk = arena->blocks; src.nspans < n; blk = blk->next)
		{
			spans[src.nspans].start = ARENA_DATA(blk);
			spans[src.nspans++].length = blk == arena->current ?
				(Size) (arena->next - ARENA_DATA(blk)) : blk->size;
		}
		src.spans = spans;
	}
	return src;
}

/* Every column of b's rows as sources, in the current memory context. */
static ColumnSource *
column_sources(ColWriter *w, ColBuffer *b)
{
	int			natts = w->tupdesc->natts;
	const Codec *codec = codec_by_id(w->opts.codec);
	ColumnSource *srcs = palloc(sizeof(ColumnSource) * Max(natts, 1));
	int			a;

	if (codec == NULL || !codec->available)
		codec = codec_by_id(CODEC_NONE);
	for (a = 0; a < natts; a++)
		srcs[a] = column_source(w, b, a, codec);
	return srcs;
}

/*
 * Writes a stripe of nrows rows, encoded as cols: its data stream, then
 * its metadata rows.
 */
static void
write_stripe(ColWriter *w, Relation rel, uint32 nrows, EncodedColumn *cols,
			 RowRun *runs, int nruns, CidRun *cids, int ncids,
			 const char *sorted_by)
{
	int			natts = w->tupdesc->natts;
	uint32		group_limit = (uint32) w->opts.chunk_group_row_limit;
	uint32		ngroups;
	StripeMeta	stripe;
	ChunkMeta  *chunks;
	uint32	   *group_rows;
	StringInfoData stream;
	uint32		g;
	int			a;

	memset(&stripe, 0, sizeof(stripe));
	stripe.columns_loaded = true;	/* its arrays are filled in below */
	stripe.sorted_by = unconstify(char *, sorted_by);

	/* dictionaries first, at the start of the stripe's data */
	initStringInfo(&stream);
	stripe.attr_dict_offset = palloc(sizeof(uint64) * Max(natts, 1));
	for (a = 0; a < natts; a++)
	{
		stripe.attr_dict_offset[a] = STRIPE_NO_DICT;
		if (cols[a].dict == NULL)
			continue;
		stripe.attr_dict_offset[a] = stream.len;
		frames_dict_write(&stream, cols[a].dict, (uint32) cols[a].dict_length);
	}

	ngroups = col_chunk_groups(nrows, group_limit);
	chunks = palloc(sizeof(ChunkMeta) * ngroups * Max(natts, 1));
	group_rows = palloc(sizeof(uint32) * ngroups);
	for (g = 0; g < ngroups; g++)
	{
		group_rows[g] = Min(group_limit, nrows - g * group_limit);
		for (a = 0; a < natts; a++)
		{
			ChunkMeta  *c = &chunks[g * natts + a];

			*c = cols[a].chunks[g];
			c->stored_offset = stream.len;
			appendBinaryStringInfo(&stream, cols[a].stored[g], c->stored_length);
		}
	}

	stripe.zone.min = palloc0(sizeof(bytea *) * Max(natts, 1));
	stripe.zone.max = palloc0(sizeof(bytea *) * Max(natts, 1));
	stripe.zone.null_count = palloc0(sizeof(uint64) * Max(natts, 1));
	stripe.zone.type = palloc(sizeof(Oid) * Max(natts, 1));
	stripe.zone.collation = palloc(sizeof(Oid) * Max(natts, 1));
	for (a = 0; a < natts; a++)
	{
		zone_bounds_signature(TupleDescAttr(w->tupdesc, a), &stripe.zone.type[a],
							  &stripe.zone.collation[a]);
		stripe.zone.null_count[a] = cols[a].null_count;
		stripe.zone.min[a] = cols[a].min;
		stripe.zone.max[a] = cols[a].max;
	}
	{
		StorageMeta meta;

		stripe.storage_id = storage_ensure_meta(rel, &meta);
	}
	stripe.first_block = storage_am_write_stream(rel, stripe.storage_id,
												 stream.data, stream.len,
												 &stripe.stripe_num);
	stripe.data_length = stream.len;
	stripe.row_count = nrows;
	stripe.nruns = nruns;
	stripe.runs = runs;
	stripe.ncids = ncids;
	stripe.cids = cids;
	row_runs_bounds(runs, nruns, &stripe.first_row_number,
					&stripe.last_row_number);
	stripe.chunk_group_count = ngroups;
	stripe.chunk_group_row_limit = group_limit;
	stripe.column_count = natts;
	stripe_meta_insert(&stripe, group_rows, chunks);
}

/*
 * Writes the sealed stripe, its encoding collected first, keeping its
 * rows (a later write writes them again from the same encoding).
 */
static void
write_sealed(ColWriter *w, Relation rel)
{
	SealedStripe *sealed = w->sealed;
	MemoryContext old = MemoryContextSwitchTo(sealed->encode_cxt);

	col_encode_columns_finish(sealed->handoff, sealed->srcs,
							  w->tupdesc->natts, sealed->cols);
	MemoryContextSwitchTo(old);
	measure_other_memory(w);
	write_stripe(w, rel, sealed->buf.nrows, sealed->cols, sealed->runs,
				 sealed->nruns, sealed->cids, sealed->ncids, sealed->sorted_by);
}

/*
 * Hands the full stripe being buffered to the transaction's encoder and
 * starts a new one, or writes it when the encoder cannot take it.
 */
static void
seal_stripe(ColWriter *w, Relation rel)
{
	MemoryContext encode_cxt;
	MemoryContext old;
	SealedStripe *sealed;
	const char *sorted_by;
	ColumnSource *srcs;
	EncodedColumn *cols;
	EncodeHandoff *handoff;

	Assert(w->sealed == NULL);
	encode_cxt = AllocSetContextCreate(w->parent, "colcompress sealed stripe",
									   ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(encode_cxt);
	sorted_by = sort_stripe(w, rel, &w->buf, w->rows.cids, w->rows.ncids);
	srcs = column_sources(w, &w->buf);
	cols = palloc0(sizeof(EncodedColumn) * Max(w->tupdesc->natts, 1));
	handoff = col_encode_columns_begin(srcs, w->tupdesc->natts, cols);
	MemoryContextSwitchTo(old);
	if (handoff == NULL)
	{
		/* encoded here already: written as it is */
		write_stripe(w, rel, w->buf.nrows, cols, w->rows.runs, w->rows.nruns,
					 w->rows.cids, w->rows.ncids, sorted_by);
		MemoryContextDelete(encode_cxt);
		reset_current(w);
		return;
	}

	sealed = MemoryContextAllocZero(w->parent, sizeof(SealedStripe));
	sealed->buf = w->buf;
	sealed->runs = w->rows.runs;
	sealed->nruns = w->rows.nruns;
	sealed->cids = w->rows.cids;
	sealed->ncids = w->rows.ncids;
	sealed->sorted_by = sorted_by;
	sealed->encode_cxt = encode_cxt;
	sealed->srcs = srcs;
	sealed->cols = cols;
	sealed->handoff = handoff;
	w->sealed = sealed;

	/* the next rows go into the spare buffer, or a new one */
	if (w->spare.cxt != NULL)
	{
		w->buf = w->spare;
		w->spare.cxt = w->spare.keep_cxt = NULL;
	}
	else
		buffer_init(&w->buf, w->parent);
	row_runs_reset(&w->rows);
	w->rows.cxt = w->buf.cxt;
	measure_other_memory(w);
}

/*
 * The buffer is full: the stripe before it, if sealed, is written, and
 * this one sealed, unless two stripes of its size would not fit in
 * storage_engine.write_buffer_memory (values of a few hundred bytes and
 * more fill a stripe by bytes): then it is written now.
 */
static void
stripe_full(ColWriter *w, Relation rel)
{
	if (w->sealed != NULL)
	{
		write_sealed(w, rel);
		release_sealed(w);
	}
	if (2 * buffer_memory(&w->buf) >
		(Size) storage_engine_write_buffer_memory * 1024)
		col_writer_flush(w, rel);
	else
		seal_stripe(w, rel);
}

/* Writes the rows being buffered as one stripe, encoded here. */
static void
write_current(ColWriter *w, Relation rel)
{
	MemoryContext flush_cxt;
	MemoryContext old;
	const char *sorted_by;
	ColumnSource *srcs;
	EncodedColumn *cols;

	if (w->buf.nrows == 0)
		return;
	flush_cxt = AllocSetContextCreate(CurrentMemoryContext,
									  "colcompress stripe flush",
									  ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(flush_cxt);
	sorted_by = sort_stripe(w, rel, &w->buf, w->rows.cids, w->rows.ncids);
	srcs = column_sources(w, &w->buf);
	cols = palloc0(sizeof(EncodedColumn) * Max(w->tupdesc->natts, 1));
	col_encode_columns(srcs, w->tupdesc->natts, cols);
	write_stripe(w, rel, w->buf.nrows, cols, w->rows.runs, w->rows.nruns,
				 w->rows.cids, w->rows.ncids, sorted_by);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(flush_cxt);
}

void
col_writer_write(ColWriter *w, Relation rel)
{
	if (w->sealed != NULL)
		write_sealed(w, rel);
	write_current(w, rel);
}

void
col_writer_clear(ColWriter *w)
{
	release_sealed(w);
	reset_current(w);
}

void
col_writer_flush(ColWriter *w, Relation rel)
{
	col_writer_write(w, rel);
	col_writer_clear(w);
}
