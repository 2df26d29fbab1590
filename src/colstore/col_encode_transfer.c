/*-------------------------------------------------------------------------
 *
 * col_encode_transfer.c
 *	  The layout in which a stripe's columns go to another process to be
 *	  encoded (parallel workers, col_encode_parallel.c; the transaction's
 *	  encoder, col_encoder.c) and in which the encoded columns come back.
 *
 *	  A column travels as its NULL flags, its Datums and its values'
 *	  bytes.  The write buffer keeps a column's by-reference values back to
 *	  back in a few blocks (spans), which are copied whole: the receiver
 *	  maps the backend's pointers into them to pointers into its copy, so
 *	  no value is visited on the way.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "utils/datum.h"

#include "colstore/col_encode_transfer.h"

Size
transfer_value_size(Form_pg_attribute attr, Datum v, bool *aligned)
{
	*aligned = attr->attlen != -1 || !VARATT_IS_SHORT(DatumGetPointer(v));
	return datumGetSize(v, false, attr->attlen);
}

void
transfer_span_table(const ColumnSource *src, const ColumnLayout *layout,
					SharedSpan *table)
{
	Size		pos = layout->spans_at + sizeof(SharedSpan) * layout->nspans;
	int			i;

	for (i = 0; i < layout->nspans; i++)
	{
		pos = MAXALIGN(pos);
		table[i].start = (uintptr_t) src->spans[i].start;
		table[i].length = src->spans[i].length;
		table[i].at = pos;
		pos += src->spans[i].length;
	}
}

Size
transfer_place_column(const ColumnSource *src, ColumnLayout *layout, Size at,
					  char *dest)
{
	Size		pos;
	uint32		r;
	int			i;

	memcpy(&layout->attr, src->attr, sizeof(FormData_pg_attribute));
	layout->isnull_at = at;
	layout->values_at = MAXALIGN(at + src->nrows);
	layout->spans_at = 0;
	layout->nspans = -1;
	pos = layout->values_at + sizeof(Datum) * src->nrows;
	if (dest != NULL)
	{
		memcpy(dest + layout->isnull_at, src->isnull, src->nrows);
		if (src->attr->attbyval || src->spans != NULL)
			memcpy(dest + layout->values_at, src->values,
				   sizeof(Datum) * src->nrows);
	}
	if (src->attr->attbyval)
		return MAXALIGN(pos);
	if (src->spans != NULL)
	{
		SharedSpan *table = NULL;

		layout->nspans = src->nspans;
		layout->spans_at = MAXALIGN(pos);
		if (dest != NULL)
		{
			table = (SharedSpan *) (dest + layout->spans_at);
			transfer_span_table(src, layout, table);
		}
		pos = layout->spans_at + sizeof(SharedSpan) * src->nspans;
		for (i = 0; i < src->nspans; i++)
		{
			pos = MAXALIGN(pos);
			if (table != NULL)
				memcpy(dest + pos, src->spans[i].start, src->spans[i].length);
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
		len = transfer_value_size(src->attr, src->values[r], &aligned);
		if (aligned)
			pos = MAXALIGN(pos);
		if (dest != NULL)
		{
			Datum		offset = (Datum) pos;

			memcpy(dest + layout->values_at + sizeof(Datum) * r, &offset,
				   sizeof(Datum));
			memcpy(dest + pos, DatumGetPointer(src->values[r]), len);
		}
		pos += len;
	}
	return MAXALIGN(pos);
}

/*
 * From the backend's pointers into its spans (consecutive values mostly in
 * the same span), or from the values' offsets.
 */
Datum *
transfer_pointers(const ColumnLayout *layout, char *base, uint32 nrows)
{
	const bool *isnull = (const bool *) (base + layout->isnull_at);
	const Datum *datums = (const Datum *) (base + layout->values_at);
	const SharedSpan *spans = (const SharedSpan *) (base + layout->spans_at);
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
		if (layout->nspans < 0)
		{
			pointers[r] = PointerGetDatum(base + p);
			continue;
		}
		if (last >= layout->nspans ||
			p - spans[last].start >= spans[last].length)
		{
			for (last = 0; last < layout->nspans; last++)
				if (p - spans[last].start < spans[last].length)
					break;
			if (last == layout->nspans)
				elog(ERROR, "value of column \"%s\" outside its spans",
					 NameStr(layout->attr.attname));
		}
		pointers[r] = PointerGetDatum(base + spans[last].at +
									  (p - spans[last].start));
	}
	return pointers;
}

void
transfer_source(const ColumnLayout *layout, char *base, uint32 nrows,
				uint32 group_limit, int codec, int level, ColumnSource *src)
{
	src->attr = (Form_pg_attribute) &layout->attr;
	src->isnull = (const bool *) (base + layout->isnull_at);
	src->values = layout->attr.attbyval ?
		(const Datum *) (base + layout->values_at) :
		transfer_pointers(layout, base, nrows);
	src->nrows = nrows;
	src->group_limit = group_limit;
	src->codec = codec_by_id(codec);
	src->level = level;
	src->spans = NULL;
	src->nspans = 0;
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

Size
transfer_flatten(const EncodedColumn *e, uint32 ngroups, char *p)
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

void
transfer_unflatten(const char *p, uint32 ngroups, EncodedColumn *e)
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
