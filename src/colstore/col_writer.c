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
 *	  Memory: the writer's context holds at most one stripe of values; the
 *	  stripe is written when it reaches stripe_row_limit rows or the byte
 *	  budget, whichever comes first, so wide values cannot exhaust memory.
 *	  Each column is encoded on its own (col_encode.c), side by side in
 *	  parallel workers when the stripe is large (col_encode_parallel.c),
 *	  and the stripe's data assembled from them.
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

struct ColWriter
{
	MemoryContext cxt;			/* values alone, row runs; reset after each flush */
	MemoryContext keep_cxt;		/* arrays and value blocks, kept for the next
								 * stripe up to WRITER_KEEP_BYTES */
	TupleDesc	tupdesc;		/* as of the writer's creation */
	ColcompressOptions opts;
	uint32		nrows;
	uint32		capacity;		/* allocated entries per column */
	Datum	  **values;			/* [natts][capacity] */
	bool	  **isnull;
	Size		bytes;
	ValueArena *arenas;			/* [natts], in keep_cxt */
	RowRunBuilder rows;			/* row numbers and command ids, in cxt */
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

static Size
ops_memory(const void *writer)
{
	const ColWriter *w = writer;

	return MemoryContextMemAllocated(w->cxt, true) +
		MemoryContextMemAllocated(w->keep_cxt, true);
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
	.memory = ops_memory,
	.free = ops_free,
};

ColWriter *
col_writer_for(Relation rel)
{
	return pending_writer(rel, &col_writer_ops);
}

ColWriter *
col_writer_create(Relation rel, MemoryContext parent)
{
	ColWriter  *w = MemoryContextAllocZero(parent, sizeof(ColWriter));

	w->cxt = AllocSetContextCreate(parent, "colcompress write buffer",
								   ALLOCSET_DEFAULT_SIZES);
	w->keep_cxt = AllocSetContextCreate(parent, "colcompress write arrays",
										ALLOCSET_DEFAULT_SIZES);
	{
		/*
		 * outside w->cxt: these outlive every flush; in parent, not the
		 * caller's context, which may be a statement's (a writer replaced
		 * after ALTER TABLE ADD COLUMN is made in the inserting statement)
		 */
		MemoryContext old = MemoryContextSwitchTo(parent);

		w->tupdesc = CreateTupleDescCopy(RelationGetDescr(rel));
		colcompress_options_get(RelationGetRelid(rel), &w->opts);
		MemoryContextSwitchTo(old);
	}
	row_runs_init(&w->rows, w->cxt, (uint64) w->opts.stripe_row_limit);
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
	return w->nrows;
}

void
col_writer_free(ColWriter *w)
{
	MemoryContextDelete(w->cxt);
	MemoryContextDelete(w->keep_cxt);
	pfree(w);
}

static void
reset_buffer(ColWriter *w)
{
	MemoryContextReset(w->cxt);
	if (MemoryContextMemAllocated(w->keep_cxt, false) > WRITER_KEEP_BYTES)
	{
		MemoryContextReset(w->keep_cxt);
		w->capacity = 0;
		w->values = NULL;
		w->isnull = NULL;
		w->arenas = NULL;
	}
	else if (w->arenas != NULL)
	{
		int			i;

		/* the blocks are filled again from the first */
		for (i = 0; i < w->tupdesc->natts; i++)
		{
			w->arenas[i].current = NULL;
			w->arenas[i].next = NULL;
			w->arenas[i].left = 0;
			w->arenas[i].outside = 0;
		}
	}
	w->nrows = 0;
	w->bytes = 0;
	row_runs_reset(&w->rows);
}

/*
 * The arena's next block with room for len bytes: the one after the
 * current block if it is large enough, else a new one put there.
 */
static void
arena_next_block(ColWriter *w, ValueArena *arena, Size len)
{
	ArenaBlock *after = arena->current != NULL ? arena->current->next :
		arena->blocks;
	ArenaBlock *b = after;

	if (b == NULL || b->size < len)
	{
		arena->block = arena->block == 0 ? ARENA_FIRST_BLOCK :
			Min(2 * arena->block, ARENA_LAST_BLOCK);
		arena->block = Max(arena->block, len);
		b = MemoryContextAlloc(w->keep_cxt,
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
 * Room for len bytes of a value in the writer's context.  Values with a
 * 4-byte header (and fixed-length ones) stay MAXALIGNed, as palloc would
 * give them; 1-byte-header varlenas need no alignment, as in a heap tuple.
 */
static char *
arena_alloc(ColWriter *w, int attno, Size len, bool aligned)
{
	ValueArena *arena = &w->arenas[attno];
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
			return MemoryContextAlloc(w->cxt, len);
		}
		arena_next_block(w, arena, len);
	}
	p = arena->next;
	arena->next += len;
	arena->left -= len;
	return p;
}

static void
grow_columns(ColWriter *w)
{
	int			natts = w->tupdesc->natts;
	uint32		newcap = w->capacity == 0 ? 64 :
		Min(w->capacity * 2, (uint32) w->opts.stripe_row_limit);
	int			i;

	if (w->values == NULL)
	{
		w->arenas = MemoryContextAllocZero(w->keep_cxt, sizeof(ValueArena) * Max(natts, 1));
		w->values = MemoryContextAllocZero(w->keep_cxt, sizeof(Datum *) * Max(natts, 1));
		w->isnull = MemoryContextAllocZero(w->keep_cxt, sizeof(bool *) * Max(natts, 1));
		for (i = 0; i < natts; i++)
		{
			w->values[i] = MemoryContextAlloc(w->keep_cxt, sizeof(Datum) * newcap);
			w->isnull[i] = MemoryContextAlloc(w->keep_cxt, sizeof(bool) * newcap);
		}
	}
	else
	{
		for (i = 0; i < natts; i++)
		{
			w->values[i] = repalloc(w->values[i], sizeof(Datum) * newcap);
			w->isnull[i] = repalloc(w->isnull[i], sizeof(bool) * newcap);
		}
	}
	w->capacity = newcap;
}

void
col_writer_insert(ColWriter *w, Relation rel, TupleTableSlot *slot,
				  CommandId cid)
{
	int			natts = w->tupdesc->natts;
	MemoryContext old;
	uint64		rownum;
	int			i;

	if (w->nrows >= (uint32) w->opts.stripe_row_limit ||
		w->bytes >= WRITER_BYTE_LIMIT)
		col_writer_flush(w, rel);
	if (w->nrows == w->capacity)
		grow_columns(w);

	slot_getallattrs(slot);
	old = MemoryContextSwitchTo(w->cxt);	/* detoasted copies */
	for (i = 0; i < natts; i++)
	{
		Form_pg_attribute attr = TupleDescAttr(w->tupdesc, i);
		Datum		value = slot->tts_values[i];
		bool		null = slot->tts_isnull[i] || attr->attisdropped;

		w->isnull[i][w->nrows] = null;
		if (null)
		{
			w->values[i][w->nrows] = (Datum) 0;
			continue;
		}
		if (attr->attbyval)
			w->values[i][w->nrows] = value;
		else if (attr->attlen == -1)
		{
			struct varlena *v = (struct varlena *) DatumGetPointer(value);

			/* stored values are never external or compressed */
			if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
			{
				v = detoast_attr(v);
				w->arenas[i].outside++;
				w->values[i][w->nrows] = PointerGetDatum(v);
			}
			else
			{
				/* short headers stay short */
				Size		len = VARSIZE_ANY(v);
				char	   *copy = arena_alloc(w, i, len, !VARATT_IS_SHORT(v));

				memcpy(copy, v, len);
				w->values[i][w->nrows] = PointerGetDatum(copy);
			}
			w->bytes += VARSIZE_ANY(v);
		}
		else
		{
			Size		len = datumGetSize(value, false, attr->attlen);
			char	   *copy = arena_alloc(w, i, len, true);

			memcpy(copy, DatumGetPointer(value), len);
			w->values[i][w->nrows] = PointerGetDatum(copy);
			w->bytes += len;
		}
	}
	MemoryContextSwitchTo(old);

	rownum = row_runs_add(&w->rows, rel, cid);
	w->nrows++;
	row_number_to_tid(rownum, &slot->tts_tid);
	slot->tts_tableOid = RelationGetRelid(rel);
}


typedef struct StripeSortState
{
	ColWriter  *w;
	int			nkeys;
	AttrNumber *attnos;
	SortSupportData *ssup;
} StripeSortState;

static int
compare_rows(const void *a, const void *b, void *arg)
{
	StripeSortState  *st = arg;
	uint32		ra = *(const uint32 *) a;
	uint32		rb = *(const uint32 *) b;
	int			k;

	for (k = 0; k < st->nkeys; k++)
	{
		int			col = st->attnos[k] - 1;
		int			c = ApplySortComparator(st->w->values[col][ra], st->w->isnull[col][ra],
											st->w->values[col][rb], st->w->isnull[col][rb],
											&st->ssup[k]);

		if (c != 0)
			return c;
	}
	return (ra > rb) - (ra < rb);	/* stable */
}

/*
 * Sorts the buffered rows by the orderby option, each command's rows
 * separately, permuting the column arrays in place.
 */
static void
sort_buffer(ColWriter *w, Relation rel)
{
	ColcompressOrderbyKey *keys;
	StripeSortState	st;
	uint32	   *order;
	uint32		start = 0;
	int			natts = w->tupdesc->natts;
	Datum	   *values;
	bool	   *isnull;
	int			i;
	int			a;

	keys = colcompress_orderby_resolve(rel, w->opts.orderby, &st.nkeys);
	st.w = w;
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

	order = palloc(sizeof(uint32) * w->nrows);
	for (i = 0; i < (int) w->nrows; i++)
		order[i] = i;
	for (i = 0; i < w->rows.ncids; i++)
	{
		uint32		end = (uint32) w->rows.cids[i].rows_end;

		qsort_arg(order + start, end - start, sizeof(uint32), compare_rows, &st);
		start = end;
	}

	/*
	 * Through one scratch pair, not new arrays per column: a second set of
	 * every column's arrays was 23 MB more at the flush's peak on the
	 * events table (a stripe of 150,000 rows of 17 columns).
	 */
	values = palloc(sizeof(Datum) * Max(w->nrows, 1));
	isnull = palloc(sizeof(bool) * Max(w->nrows, 1));
	for (a = 0; a < natts; a++)
	{
		uint32		r;

		for (r = 0; r < w->nrows; r++)
		{
			values[r] = w->values[a][order[r]];
			isnull[r] = w->isnull[a][order[r]];
		}
		memcpy(w->values[a], values, sizeof(Datum) * w->nrows);
		memcpy(w->isnull[a], isnull, sizeof(bool) * w->nrows);
	}
	pfree(values);
	pfree(isnull);
}

/*
 * Column a of the buffered rows, for col_encode_columns: with the spans of
 * its blocks when every by-reference value lies in them, which a parallel
 * worker is then given whole rather than value by value.
 */
static ColumnSource
column_source(ColWriter *w, int a, const Codec *codec)
{
	ColumnSource src;
	ValueArena *arena = &w->arenas[a];

	src.attr = TupleDescAttr(w->tupdesc, a);
	src.values = w->values[a];
	src.isnull = w->isnull[a];
	src.nrows = w->nrows;
	src.group_limit = (uint32) w->opts.chunk_group_row_limit;
	src.codec = codec;
	src.level = w->opts.compression_level;
	src.spans = NULL;
	src.nspans = 0;
	if (!src.attr->attbyval && arena->outside == 0)
	{
		ArenaBlock *b;
		int			n = 0;
		ValueSpan  *spans;

		for (b = arena->blocks; arena->current != NULL; b = b->next)
		{
			n++;
			if (b == arena->current)
				break;
		}
		spans = palloc(sizeof(ValueSpan) * Max(n, 1));
		for (b = arena->blocks; src.nspans < n; b = b->next)
		{
			spans[src.nspans].start = ARENA_DATA(b);
			spans[src.nspans++].length = b == arena->current ?
				(Size) (arena->next - ARENA_DATA(b)) : b->size;
		}
		src.spans = spans;
	}
	return src;
}

void
col_writer_write(ColWriter *w, Relation rel)
{
	int			natts = w->tupdesc->natts;
	uint32		group_limit = (uint32) w->opts.chunk_group_row_limit;
	uint32		ngroups;
	StripeMeta	stripe;
	ChunkMeta  *chunks;
	uint32	   *group_rows;
	StringInfoData stream;
	const Codec *codec = codec_by_id(w->opts.codec);
	MemoryContext flush_cxt;
	MemoryContext old;
	ColumnSource *srcs;
	EncodedColumn *cols;
	uint32		g;
	int			a;

	if (w->nrows == 0)
		return;
	if (codec == NULL || !codec->available)
		codec = codec_by_id(CODEC_NONE);

	flush_cxt = AllocSetContextCreate(CurrentMemoryContext,
									  "colcompress stripe flush",
									  ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(flush_cxt);

	memset(&stripe, 0, sizeof(stripe));
	stripe.columns_loaded = true;	/* its arrays are filled in below */
	if (w->opts.orderby != NULL && RelationGetIndexList(rel) == NIL)
	{
		sort_buffer(w, rel);
		/* only one command's rows: the whole stripe is in order */
		if (w->rows.ncids == 1)
			stripe.sorted_by = w->opts.orderby;
	}

	srcs = palloc(sizeof(ColumnSource) * Max(natts, 1));
	for (a = 0; a < natts; a++)
		srcs[a] = column_source(w, a, codec);
	cols = palloc0(sizeof(EncodedColumn) * Max(natts, 1));
	col_encode_columns(srcs, natts, cols);

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

	ngroups = (w->nrows + group_limit - 1) / group_limit;
	chunks = palloc(sizeof(ChunkMeta) * ngroups * Max(natts, 1));
	group_rows = palloc(sizeof(uint32) * ngroups);
	for (g = 0; g < ngroups; g++)
	{
		group_rows[g] = Min(group_limit, w->nrows - g * group_limit);
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
	stripe.row_count = w->nrows;
	stripe.nruns = w->rows.nruns;
	stripe.runs = w->rows.runs;
	stripe.ncids = w->rows.ncids;
	stripe.cids = w->rows.cids;
	row_runs_bounds(w->rows.runs, w->rows.nruns, &stripe.first_row_number,
					&stripe.last_row_number);
	stripe.chunk_group_count = ngroups;
	stripe.chunk_group_row_limit = group_limit;
	stripe.column_count = natts;
	stripe_meta_insert(&stripe, group_rows, chunks);

	MemoryContextSwitchTo(old);
	MemoryContextDelete(flush_cxt);
}

void
col_writer_clear(ColWriter *w)
{
	reset_buffer(w);
}

void
col_writer_flush(ColWriter *w, Relation rel)
{
	col_writer_write(w, rel);
	reset_buffer(w);
}
