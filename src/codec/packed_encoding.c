/*-------------------------------------------------------------------------
 *
 * packed_encoding.c
 *	  Packed integers (layout in packed_encoding.h).
 *
 *	  Differences of steadily growing values (codec/delta.h) compress to
 *	  nearly nothing, but only a codec's entropy decoder gets them back,
 *	  and a fetch by TID then decompresses a whole frame and adds up its
 *	  differences to read one value.  Here a frame is the line through its
 *	  first and last values (or a constant) and what each row lies above
 *	  it, in as many bits as the largest distance needs: ids and timestamps
 *	  of a load take no bits at all, counters and dates a few, random
 *	  numbers the bits of their range, fewer than the codec's entropy
 *	  coding leaves them.  A row is reached by arithmetic.
 *
 *	  Server code and, with FRONTEND defined, the fuzz harness (test/fuzz).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "compat/compat_varatt.h"

#include "codec/bit_packing.h"
#include "codec/packed_encoding.h"

/* A value of the column as a 64-bit integer, sign-extended. */
static inline int64
value_as_int64(Datum d, int16 typlen)
{
	switch (typlen)
	{
		case 2:
			return DatumGetInt16(d);
		case 4:
			return DatumGetInt32(d);
		default:
			return DatumGetInt64(d);
	}
}

/* A 64-bit result of the model as a Datum of the column's width. */
static inline Datum
int64_as_value(uint64 v, int16 typlen)
{
	switch (typlen)
	{
		case 2:
			return Int16GetDatum((int16) v);
		case 4:
			return Int32GetDatum((int32) v);
		default:
			return Int64GetDatum((int64) v);
	}
}

/* The fields of a packed frame, as stored (packed_encoding.h). */
typedef struct PackedFields
{
	uint64		base;
	uint64		step;
	uint32		bits;
	uint32		scale;
} PackedFields;

StaticAssertDecl(sizeof(PackedFields) == 2 * sizeof(uint64) + 2 * sizeof(uint32),
				 "packed frame fields have padding");
StaticAssertDecl(sizeof(PackedFields) <= VALUE_EXTENSION_MAX,
				 "packed frame fields outgrow what a fetch reads first");

/* A line through the rows' values and how far above it they lie. */
typedef struct PackedModel
{
	uint64		base;
	uint64		step;
	uint32		bits;
} PackedModel;

#ifdef HAVE_INT128
/*
 * The model with the given step: base is the lowest value above the line,
 * bits those of the highest; false when they lie 2^64 or more apart.
 */
static bool
fit_step(const int64 *v, const uint32 *rows, uint32 n, int128 step,
		 PackedModel *m)
{
	int128		lo = 0;
	int128		hi = 0;
	int128		range;
	uint32		i;

	for (i = 0; i < n; i++)
	{
		int128		r = (int128) v[i] - step * rows[i];

		if (i == 0 || r < lo)
			lo = r;
		if (i == 0 || r > hi)
			hi = r;
	}
	range = hi - lo;
	if (range > (int128) PG_UINT64_MAX)
		return false;
	/* the base and step wrap as the decoder's arithmetic does */
	m->base = (uint64) lo;
	m->step = (uint64) step;
	m->bits = bits_for((uint64) range);
	return true;
}
#endif

/*
 * The model of n values v (of rows rows[], increasing) needing the fewest
 * bits: a constant (the frame of reference of the smallest value), or the
 * line through the first and the last value.
 */
static PackedModel
choose_model(const int64 *v, const uint32 *rows, uint32 n)
{
	PackedModel best = {0, 0, 0};
	uint64		lo = 0;
	uint64		hi = 0;
	uint32		i;

	/* the constant model, in wrapping arithmetic */
	for (i = 0; i < n; i++)
	{
		if (i == 0 || v[i] < (int64) lo)
			lo = (uint64) v[i];
		if (i == 0 || v[i] > (int64) hi)
			hi = (uint64) v[i];
	}
	best.base = lo;
	best.bits = bits_for(hi - lo);

#ifdef HAVE_INT128
	if (n >= 2 && best.bits > 0)
	{
		int128		rise = (int128) v[n - 1] - v[0];
		int128		run = (int128) rows[n - 1] - rows[0];
		int128		step = rise / run;
		PackedModel line;

		/* the nearest whole step */
		if (2 * (rise % run) >= run)
			step++;
		else if (2 * (rise % run) <= -run)
			step--;
		if (step != 0 && step >= PG_INT64_MIN && step <= PG_INT64_MAX &&
			fit_step(v, rows, n, step, &line) && line.bits < best.bits)
			best = line;
	}
#endif
	return best;
}

/*
 * Appends count rows, the non-NULL ones' values v (of rows rows[]), packed
 * with scale in the model's last field.
 */
static void
encode_values(StringInfo buf, const bool *isnull, uint32 count,
			  const int64 *v, const uint32 *rows, uint32 n, uint32 scale)
{
	PackedModel m = choose_model(v, rows, n);
	PackedFields f = {m.base, m.step, m.bits, scale};
	uint64		codes_len;
	uint8	   *out;
	BitWriter	w;
	uint32		i;

	value_encode_extension(buf, isnull, count, &f, sizeof(f));

	codes_len = bits_bytes(n, m.bits);
	enlargeStringInfo(buf, (int) codes_len);
	out = (uint8 *) buf->data + buf->len;
	bit_writer_init(&w, out);
	for (i = 0; i < n && m.bits > 0; i++)
		bit_writer_put(&w, (uint64) v[i] - m.base - m.step * rows[i], m.bits);
	bit_writer_finish(&w);
	buf->len += (int) codes_len;
	buf->data[buf->len] = '\0';
}

void
packed_encode(StringInfo buf, const ValueTypeInfo *type, const Datum *values,
			  const bool *isnull, uint32 count)
{
	int64	   *v = palloc(sizeof(int64) * Max(count, 1));
	uint32	   *rows = palloc(sizeof(uint32) * Max(count, 1));
	uint32		n = 0;
	uint32		i;

	Assert(packed_type_ok(type));
	for (i = 0; i < count; i++)
	{
		if (isnull[i])
			continue;
		v[n] = value_as_int64(values[i], type->typlen);
		rows[n++] = i;
	}
	encode_values(buf, isnull, count, v, rows, n, 0);
	pfree(v);
	pfree(rows);
}

#ifdef HAVE_SCALED_NUMERIC
/*
 * The scaled value of a numeric that packed decimals hold, with its display
 * scale; false when it cannot be one.
 */
static bool
decimal_value(Datum d, int64 *scaled, int *dscale)
{
	char		made[PACKED_DECIMAL_SIZE];
	const char *orig = DatumGetPointer(d);
	int128		mantissa;
	Size		len;

	if (!numeric_to_scaled(d, &mantissa, dscale) ||
		*dscale > NUMERIC_WRITE_MAX_SCALE ||
		mantissa < PG_INT64_MIN || mantissa > PG_INT64_MAX)
		return false;
	*scaled = (int64) mantissa;
	/* only values numeric.c would have made so: decoding rewrites them */
	len = numeric_write_scaled(*scaled, *dscale, made);
	return len - VARHDRSZ_SHORT == VARSIZE_ANY_EXHDR(orig) &&
		memcmp(made + VARHDRSZ_SHORT, VARDATA_ANY(orig), len - VARHDRSZ_SHORT) == 0;
}

/*
 * The rows' values as scaled integers (of rows rows[], n of them) and their
 * one display scale (0 without values); false when they cannot be packed
 * decimals.  v and rows may be NULL: the answer only.
 */
static bool
gather_decimals(const Datum *values, const bool *isnull, uint32 count,
				int64 *v, uint32 *rows, uint32 *n, int *scale)
{
	uint32		i;

	*n = 0;
	*scale = -1;
	for (i = 0; i < count; i++)
	{
		int64		scaled;
		int			s;

		if (isnull[i])
			continue;
		if (!decimal_value(values[i], &scaled, &s) ||
			(*scale >= 0 && s != *scale))
			return false;
		*scale = s;
		if (v != NULL)
		{
			v[*n] = scaled;
			rows[*n] = i;
		}
		(*n)++;
	}
	*scale = Max(*scale, 0);
	return true;
}

bool
packed_decimal_ok(const Datum *values, const bool *isnull, uint32 count)
{
	uint32		n;
	int			scale;

	return gather_decimals(values, isnull, count, NULL, NULL, &n, &scale);
}

bool
packed_decimal_encode(StringInfo buf, const Datum *values, const bool *isnull,
					  uint32 count)
{
	int64	   *v = palloc(sizeof(int64) * Max(count, 1));
	uint32	   *rows = palloc(sizeof(uint32) * Max(count, 1));
	uint32		n;
	int			scale;
	bool		ok = gather_decimals(values, isnull, count, v, rows, &n, &scale);

	if (ok)
		encode_values(buf, isnull, count, v, rows, n, (uint32) scale);
	pfree(v);
	pfree(rows);
	return ok;
}
#endif

typedef struct PackedLayout
{
	uint32		null_count;
	const uint8 *bitmap;		/* NULL without NULLs */
	PackedModel model;
	uint32		scale;
	const uint8 *codes;
	uint64		codes_len;
} PackedLayout;

/*
 * Checks a frame's layout: of integers of type (scale 0), or, type NULL, of
 * packed decimals.
 */
static const char *
packed_layout(const char *raw, uint32 rawlen, const ValueTypeInfo *type,
			  uint32 expected_count, PackedLayout *l)
{
	Size		off;
	PackedFields f;
	const char *problem;

	if (type != NULL && !packed_type_ok(type))
		return "packed integers of a type that is not an integer";
	problem = value_decode_extension(raw, rawlen, expected_count,
									 &l->null_count, &l->bitmap, &f,
									 sizeof(f), &off);
	if (problem != NULL)
		return problem;
	if (f.bits > 64)
		return "packed integers wider than 64 bits";
	if (type != NULL ? f.scale != 0 : f.scale > NUMERIC_FORMAT_MAX_SCALE)
		return "packed values have an impossible scale";
	l->model.base = f.base;
	l->model.step = f.step;
	l->model.bits = f.bits;
	l->scale = f.scale;
	l->codes = (const uint8 *) raw + off;
	l->codes_len = bits_bytes(expected_count - l->null_count, l->model.bits);
	if (l->codes_len != rawlen - off)
		return "packed integers do not fill the frame";
	return NULL;
}

/* The value of row row, the k-th holding one. */
static inline uint64
model_value(const PackedLayout *l, uint32 row, uint32 k)
{
	return l->model.base + l->model.step * row +
		get_bits(l->codes, l->codes_len, (uint64) k * l->model.bits,
				 l->model.bits);
}

/*
 * Row row's value, the k-th row holding one: as an integer of type, or,
 * type NULL, as a numeric written in made, at its place place.
 */
static inline Datum
row_value(const PackedLayout *l, const ValueTypeInfo *type, uint32 row,
		  uint32 k, char *made, uint32 place)
{
	uint64		v = model_value(l, row, k);

#ifdef HAVE_SCALED_NUMERIC
	if (type == NULL)
	{
		char	   *at = made + (Size) place * PACKED_DECIMAL_SIZE;

		numeric_write_scaled((int64) v, (int) l->scale, at);
		return PointerGetDatum(at);
	}
#endif
	return int64_as_value(v, type->typlen);
}

/*
 * Every row of a frame: as values, or (values NULL, packed decimals) as
 * scaled integers.
 */
static const char *
decode_frame(const char *raw, uint32 rawlen, const ValueTypeInfo *type,
			 uint32 expected_count, char *made, Datum *values,
			 ScaledNumeric *scaled, bool *isnull)
{
	PackedLayout l;
	uint32		present = 0;
	uint32		i;
	const char *problem;

	problem = packed_layout(raw, rawlen, type, expected_count, &l);
	if (problem != NULL)
		return problem;
	problem = value_null_flags(l.bitmap, l.null_count, expected_count, values,
							   isnull);
	if (problem != NULL)
		return problem;
	for (i = 0; i < expected_count; i++)
	{
		if (isnull[i])
			continue;
#ifdef HAVE_SCALED_NUMERIC
		if (values == NULL)
		{
			scaled[i].mantissa = (int64) model_value(&l, i, present++);
			scaled[i].dscale = (int32) l.scale;
			scaled[i].ok = true;
			continue;
		}
#endif
		values[i] = row_value(&l, type, i, present++, made, i);
	}
	return NULL;
}

static const char *
decode_row(const char *raw, uint32 rawlen, const ValueTypeInfo *type,
		   uint32 expected_count, uint32 row, char *made, Datum *value,
		   bool *isnull)
{
	PackedLayout l;
	uint32		present;
	const char *problem;

	problem = packed_layout(raw, rawlen, type, expected_count, &l);
	if (problem != NULL)
		return problem;
	*value = (Datum) 0;
	problem = value_row_position(l.bitmap, l.null_count, expected_count, row,
								 isnull, &present);
	if (problem != NULL || *isnull)
		return problem;
	*value = row_value(&l, type, row, present, made, 0);
	return NULL;
}

static const char *
row_span(const char *raw, uint32 rawlen, const ValueTypeInfo *type,
		 uint32 expected_count, uint32 row, uint32 *start, uint32 *len)
{
	PackedLayout l;
	uint32		present;
	bool		isnull;
	const char *problem;

	*start = 0;
	*len = 0;
	problem = packed_layout(raw, rawlen, type, expected_count, &l);
	if (problem == NULL)
		problem = value_row_position(l.bitmap, l.null_count, expected_count,
									 row, &isnull, &present);
	if (problem != NULL || isnull)
		return problem;
	bits_span((const char *) l.codes - raw, l.codes_len,
			  (uint64) present * l.model.bits, l.model.bits, start, len);
	return NULL;
}

const char *
packed_decode(const char *raw, uint32 rawlen, const ValueTypeInfo *type,
			  uint32 expected_count, Datum *values, bool *isnull)
{
	return decode_frame(raw, rawlen, type, expected_count, NULL, values, NULL,
						isnull);
}

const char *
packed_decode_row(const char *raw, uint32 rawlen, const ValueTypeInfo *type,
				  uint32 expected_count, uint32 row, Datum *value,
				  bool *isnull)
{
	return decode_row(raw, rawlen, type, expected_count, row, NULL, value,
					  isnull);
}

const char *
packed_row_span(const char *raw, uint32 rawlen, const ValueTypeInfo *type,
				uint32 expected_count, uint32 row, uint32 *start,
				uint32 *len)
{
	return row_span(raw, rawlen, type, expected_count, row, start, len);
}

#ifdef HAVE_SCALED_NUMERIC
const char *
packed_decimal_decode(const char *raw, uint32 rawlen, uint32 expected_count,
					  char *made, Datum *values, bool *isnull)
{
	return decode_frame(raw, rawlen, NULL, expected_count, made, values, NULL,
						isnull);
}

const char *
packed_decimal_decode_row(const char *raw, uint32 rawlen,
						  uint32 expected_count, uint32 row, char *made,
						  Datum *value, bool *isnull)
{
	return decode_row(raw, rawlen, NULL, expected_count, row, made, value,
					  isnull);
}

const char *
packed_decimal_decode_scaled(const char *raw, uint32 rawlen,
							 uint32 expected_count, ScaledNumeric *scaled,
							 bool *isnull)
{
	return decode_frame(raw, rawlen, NULL, expected_count, NULL, NULL, scaled,
						isnull);
}

const char *
packed_decimal_row_span(const char *raw, uint32 rawlen,
						uint32 expected_count, uint32 row, uint32 *start,
						uint32 *len)
{
	return row_span(raw, rawlen, NULL, expected_count, row, start, len);
}
#endif
