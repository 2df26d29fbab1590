/*-------------------------------------------------------------------------
 *
 * agg_kernels.c
 *	  The aggregate kernels: count, sum, avg, min and max over the integer,
 *	  floating-point, numeric, date and timestamp types.
 *
 *	  Each kernel reproduces its PostgreSQL aggregate bit for bit:
 *	  - integer sums accumulate in int64 (sum of int2/int4) or int128 (of
 *	    int8), averages become numeric_div(sum, count) as int8_avg and
 *	    numeric_poly_avg do;
 *	  - float sums and averages add in row order in the aggregate's own
 *	    precision (float4 sums in float4, float4 averages in float8), so
 *	    rounding is the same; values that could make PostgreSQL raise an
 *	    overflow error (or NaN, infinities) send the query back to it;
 *	  - numeric sums add scaled integers (numeric_scaled.c) at the largest
 *	    display scale seen, which is the scale numeric_sum gives;
 *	  - min and max keep the last of equal values, as float8larger does.
 *
 *	  A kernel that meets a value it cannot treat exactly returns false and
 *	  the caller runs PostgreSQL's Agg instead; it never guesses.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "catalog/pg_aggregate.h"
#include "nodes/nodeFuncs.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/sortsupport.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"

#include "vector/agg_bounds.h"
#include "vector/agg_distinct.h"
#include "vector/agg_grouping.h"
#include "vector/agg_kernels.h"
#include "vector/agg_partial.h"
#include "vector/numeric_scaled.h"

/* row k of the selection, and the state of a row */
#define SEL_ROW(k) (sel != NULL ? sel[k] : (k))
#define STATE_OF(type, row) (&((type *) states)[groups != NULL ? groups[row] : 0])

/* the parameters of every add function (AggKernelAdd) */
#define ADD_PARAMS void *states, const uint32 *groups, const ColumnBatch *col, \
	const uint32 *sel, uint32 nsel

/*
 * The loop of the add functions: each selected row whose value is not
 * NULL, as row, with st pointing to its group's state (of type type).
 */
#define FOR_EACH_VALUE(k, row, type, st) \
	for ((k) = 0; (k) < nsel; (k)++) \
		if (((row) = SEL_ROW(k)), col->isnull[row]) \
			continue; \
		else if (((st) = STATE_OF(type, row)), true)

/*
 * An add function's whole loop, body run with st pointing to the row's
 * state.  Without groups (one state) st points to a local copy, written
 * back at the end: a sum kept in memory waited every row on its own store,
 * which tripled the cost of a float sum; in a local it stays in a
 * register.  Values are added in the same order either way, so results
 * are the same bit for bit.  A body returning false gives up the batch
 * (the state is then dropped).
 */
#define ADD_EACH_VALUE(type, body) \
	do { \
		uint32		k; \
		uint32		row; \
		type	   *st; \
\
		if (groups == NULL) \
		{ \
			type		one = *(type *) states; \
\
			st = &one; \
			for (k = 0; k < nsel; k++) \
			{ \
				row = SEL_ROW(k); \
				if (!col->isnull[row]) \
					body \
			} \
			*(type *) states = one; \
			return true; \
		} \
		FOR_EACH_VALUE(k, row, type, st) \
			body \
		return true; \
	} while (0)

/*
 * |x| below this keeps float8_accum's sum of squares finite, so that the
 * average raises no overflow error PostgreSQL would raise.
 */
#define FLOAT_AVG_SAFE 1e100

/* count(*) and count(any) */

static bool
count_star_add(ADD_PARAMS)
{
	uint32		k;

	if (groups == NULL)
	{
		*(int64 *) states += nsel;
		return true;
	}
	for (k = 0; k < nsel; k++)
		(*STATE_OF(int64, SEL_ROW(k)))++;
	return true;
}

static bool
count_any_add(ADD_PARAMS)
{
	ADD_EACH_VALUE(int64, {
		(*st)++;
	});
}

static Datum
count_final(void *state, void *info, bool *isnull)
{
	*isnull = false;
	return Int64GetDatum(*(const int64 *) state);
}

/* sum and avg of int2 and int4: int8 sum, as int2_sum/int4_sum */

typedef struct IntSum
{
	int64		sum;
	int64		count;
} IntSum;

#define DEFINE_INT_SUM_ADD(name, GET) \
static bool \
name(ADD_PARAMS) \
{ \
	ADD_EACH_VALUE(IntSum, { \
		st->sum += GET(col->values[row]); \
		st->count++; \
	}); \
}

DEFINE_INT_SUM_ADD(int2_sum_add, DatumGetInt16)
DEFINE_INT_SUM_ADD(int4_sum_add, DatumGetInt32)

/* the parameters of every merge function (AggKernelMerge) */
#define MERGE_PARAMS const AggKernel *k, void *state, const char *data, Size len

/* a state exported as its bytes, into an aligned copy */
#define RAW_STATE(type, into) \
	do { \
		if (len != sizeof(type)) \
			return false; \
		memcpy(&(into), data, sizeof(type)); \
	} while (0)

static bool
count_merge(MERGE_PARAMS)
{
	int64		src;

	RAW_STATE(int64, src);
	*(int64 *) state += src;
	return true;
}

static bool
int_sum_merge(MERGE_PARAMS)
{
	IntSum	   *st = state;
	IntSum		src;

	RAW_STATE(IntSum, src);
	st->count += src.count;
	return !__builtin_add_overflow(st->sum, src.sum, &st->sum);
}

static Datum
int_sum_final(void *state, void *info, bool *isnull)
{
	const IntSum *st = state;

	*isnull = st->count == 0;
	return *isnull ? (Datum) 0 : Int64GetDatum(st->sum);
}

/* numeric_div(sum, count): how every integer and numeric avg ends */
static Datum
numeric_average(Datum sum, int64 count)
{
	return DirectFunctionCall2(numeric_div, sum,
							   NumericGetDatum(int64_to_numeric(count)));
}

static Datum
int_avg_final(void *state, void *info, bool *isnull)
{
	const IntSum *st = state;

	*isnull = st->count == 0;
	if (*isnull)
		return (Datum) 0;
	return numeric_average(NumericGetDatum(int64_to_numeric(st->sum)), st->count);
}

/* an int8[] or float8[] transition state, as the aggregate's initcond has */
static Datum
state_array(Oid elemtype, const Datum *elems, int n)
{
	int16		typlen;
	bool		typbyval;
	char		typalign;

	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	return PointerGetDatum(construct_array((Datum *) elems, n, elemtype,
										   typlen, typbyval, typalign));
}

/* int2_avg_accum's and int4_avg_accum's state: {count, sum} */
static Datum
int_avg_partial(void *state, void *info, bool *isnull)
{
	const IntSum *st = state;
	Datum		elems[2];

	elems[0] = Int64GetDatum(st->count);
	elems[1] = Int64GetDatum(st->sum);
	*isnull = false;
	return state_array(INT8OID, elems, 2);
}

#ifdef VEC_HAVE_SCALED_NUMERIC

/* sum and avg of int8 (int128, as numeric_poly_sum) and of numeric */

typedef struct WideSum
{
	int128		sum;
	int64		count;
	int32		scale;			/* numeric: display scale of sum */
} WideSum;

/* row's numeric as a scaled integer: from the batch's, or converted here */
static inline bool
scaled_value(const ColumnBatch *col, uint32 row, int128 *value, int *scale)
{
	if (col->scaled == NULL)
		return numeric_to_scaled(col->values[row], value, scale);
	*value = col->scaled[row].mantissa;
	*scale = col->scaled[row].dscale;
	return col->scaled[row].ok;
}

static bool
int8_sum_add(ADD_PARAMS)
{
	ADD_EACH_VALUE(WideSum, {
		st->sum += DatumGetInt64(col->values[row]);
		st->count++;
	});
}

/*
 * Adds value x 10^-scale to the sum, at the larger of the two display
 * scales, as numeric_add gives; false if 128 bits do not hold it.
 */
static inline bool
wide_add(WideSum *st, int128 value, int scale)
{
	if (scale > st->scale)
	{
		if (!int128_scale_up(st->sum, scale - st->scale, &st->sum))
			return false;
		st->scale = scale;
	}
	else if (scale < st->scale &&
			 !int128_scale_up(value, st->scale - scale, &value))
		return false;
	return !__builtin_add_overflow(st->sum, value, &st->sum);
}

static bool
numeric_sum_add(ADD_PARAMS)
{
	ADD_EACH_VALUE(WideSum, {
		int			scale;
		int128		value;

		if (!scaled_value(col, row, &value, &scale) ||
			!wide_add(st, value, scale))
			return false;
		st->count++;
	});
}

static bool
wide_sum_merge(MERGE_PARAMS)
{
	WideSum    *st = state;
	WideSum		src;

	RAW_STATE(WideSum, src);
	st->count += src.count;
	return wide_add(st, src.sum, src.scale);
}

static Datum
wide_sum_final(void *state, void *info, bool *isnull)
{
	const WideSum *st = state;

	*isnull = st->count == 0;
	return *isnull ? (Datum) 0 : numeric_from_scaled(st->sum, st->scale);
}

static Datum
wide_avg_final(void *state, void *info, bool *isnull)
{
	const WideSum *st = state;

	*isnull = st->count == 0;
	if (*isnull)
		return (Datum) 0;
	return numeric_average(numeric_from_scaled(st->sum, st->scale), st->count);
}

/* the partial states are internal: serialized by PostgreSQL's functions */
static Datum
int8_sum_partial(void *state, void *info, bool *isnull)
{
	const WideSum *st = state;

	*isnull = st->count == 0;
	if (*isnull)
		return (Datum) 0;
	/* agg_kernel_safe has made sure that the sum fits */
	if (st->sum < PG_INT64_MIN || st->sum > PG_INT64_MAX)
		elog(ERROR, "int8 sum outside the bounds its zone maps gave");
	return agg_state_builder_build(info, Int64GetDatum((int64) st->sum),
								   st->count);
}

static Datum
numeric_sum_partial(void *state, void *info, bool *isnull)
{
	const WideSum *st = state;

	*isnull = st->count == 0;
	if (*isnull)
		return (Datum) 0;
	return agg_state_builder_build(info,
								   numeric_from_scaled(st->sum, st->scale),
								   st->count);
}

/* partial states of int8 and numeric sums: serialized by PostgreSQL */
static bool
wide_setup(Aggref *aggref, bool partial, void **info)
{
	*info = partial ? agg_state_builder_create(aggref->aggfnoid) : NULL;
	return !partial || *info != NULL;
}

#endif							/* VEC_HAVE_SCALED_NUMERIC */

/*
 * sum of float4 (in float4, as float4pl) and of float8.  PostgreSQL's sum
 * starts from the first value (no initial value), not from 0: the sum of
 * -0s is -0, where 0 + -0 is 0.  So the first value, of a state or of a
 * participant's partial sum, is taken as it is.
 */

typedef struct Float4Sum
{
	float4		sum;
	int64		count;
} Float4Sum;

typedef struct Float8Sum
{
	float8		sum;
	int64		count;
} Float8Sum;

#define DEFINE_FLOAT_SUM_ADD(name, type, ctype, GET) \
static bool \
name(ADD_PARAMS) \
{ \
	ADD_EACH_VALUE(type, { \
		ctype		v = GET(col->values[row]); \
\
		st->sum = st->count == 0 ? v : st->sum + v; \
		st->count++; \
		/* NaN, infinities, overflow: PostgreSQL's rules apply */ \
		if (unlikely(!isfinite(st->sum))) \
			return false; \
	}); \
}

DEFINE_FLOAT_SUM_ADD(float4_sum_add, Float4Sum, float4, DatumGetFloat4)
DEFINE_FLOAT_SUM_ADD(float8_sum_add, Float8Sum, float8, DatumGetFloat8)

/* partial sums added as float4pl and float8pl combine them */
#define DEFINE_FLOAT_SUM_MERGE(name, type) \
static bool \
name(MERGE_PARAMS) \
{ \
	type	   *st = state; \
	type		src; \
\
	RAW_STATE(type, src); \
	if (src.count > 0) \
		st->sum = st->count == 0 ? src.sum : st->sum + src.sum; \
	st->count += src.count; \
	return isfinite(st->sum); \
}

DEFINE_FLOAT_SUM_MERGE(float4_sum_merge, Float4Sum)
DEFINE_FLOAT_SUM_MERGE(float8_sum_merge, Float8Sum)

static Datum
float4_sum_final(void *state, void *info, bool *isnull)
{
	const Float4Sum *st = state;

	*isnull = st->count == 0;
	return *isnull ? (Datum) 0 : Float4GetDatum(st->sum);
}

static Datum
float8_sum_final(void *state, void *info, bool *isnull)
{
	const Float8Sum *st = state;

	*isnull = st->count == 0;
	return *isnull ? (Datum) 0 : Float8GetDatum(st->sum);
}

/* avg of float4 and float8: float8 N and sum, as float8_accum */

typedef struct FloatAvg
{
	float8		n;
	float8		sum;
} FloatAvg;

#define DEFINE_FLOAT_AVG_ADD(name, GET) \
static bool \
name(ADD_PARAMS) \
{ \
	ADD_EACH_VALUE(FloatAvg, { \
		float8		v = GET(col->values[row]); \
\
		if (unlikely(!(fabs(v) < FLOAT_AVG_SAFE))) \
			return false; \
		st->n += 1.0; \
		st->sum += v; \
	}); \
}

DEFINE_FLOAT_AVG_ADD(float4_avg_add, DatumGetFloat4)
DEFINE_FLOAT_AVG_ADD(float8_avg_add, DatumGetFloat8)

/* N and sum added, as float8_combine does */
static bool
float_avg_merge(MERGE_PARAMS)
{
	FloatAvg   *st = state;
	FloatAvg	src;

	RAW_STATE(FloatAvg, src);
	st->n += src.n;
	st->sum += src.sum;
	return isfinite(st->sum);
}

static Datum
float_avg_final(void *state, void *info, bool *isnull)
{
	const FloatAvg *st = state;

	*isnull = st->n == 0.0;
	return *isnull ? (Datum) 0 : Float8GetDatum(st->sum / st->n);
}

/*
 * float8_accum's state: {N, sum, sum of squares}.  The kernel keeps no sum
 * of squares: avg's final function (float8_avg) does not read it, and
 * float8_combine, which adds it, cannot overflow on values that passed
 * agg_kernel_safe.
 */
static Datum
float_avg_partial(void *state, void *info, bool *isnull)
{
	const FloatAvg *st = state;
	Datum		elems[3];

	elems[0] = Float8GetDatum(st->n);
	elems[1] = Float8GetDatum(st->sum);
	elems[2] = Float8GetDatum(0.0);
	*isnull = false;
	return state_array(FLOAT8OID, elems, 3);
}

/*
 * min and max.  A new value replaces the state unless the state is
 * strictly better, so equal values (0 and -0) end as PostgreSQL's do.
 */

typedef struct MinMax
{
	Datum		value;
	bool		has;
} MinMax;

#define DEFINE_MINMAX_ADD(name, ctype, GET, KEEP, CHECK) \
static bool \
name(ADD_PARAMS) \
{ \
	ADD_EACH_VALUE(MinMax, { \
		ctype		v = GET(col->values[row]); \
\
		if (!CHECK(v)) \
			return false; \
		if (!st->has || !(GET(st->value) KEEP v)) \
		{ \
			st->value = col->values[row]; \
			st->has = true; \
		} \
	}); \
}

/* NaN sorts above every number: left to PostgreSQL */
#define ANY_VALUE(v) true
#define NOT_NAN(v) (!isnan(v))

DEFINE_MINMAX_ADD(int2_min_add, int16, DatumGetInt16, <, ANY_VALUE)
DEFINE_MINMAX_ADD(int2_max_add, int16, DatumGetInt16, >, ANY_VALUE)
DEFINE_MINMAX_ADD(int4_min_add, int32, DatumGetInt32, <, ANY_VALUE)
DEFINE_MINMAX_ADD(int4_max_add, int32, DatumGetInt32, >, ANY_VALUE)
DEFINE_MINMAX_ADD(int8_min_add, int64, DatumGetInt64, <, ANY_VALUE)
DEFINE_MINMAX_ADD(int8_max_add, int64, DatumGetInt64, >, ANY_VALUE)
DEFINE_MINMAX_ADD(float4_min_add, float4, DatumGetFloat4, <, NOT_NAN)
DEFINE_MINMAX_ADD(float4_max_add, float4, DatumGetFloat4, >, NOT_NAN)
DEFINE_MINMAX_ADD(float8_min_add, float8, DatumGetFloat8, <, NOT_NAN)
DEFINE_MINMAX_ADD(float8_max_add, float8, DatumGetFloat8, >, NOT_NAN)

/*
 * Merges of the kernels that keep values (min, max, DISTINCT): another
 * participant's values are added as a batch, so that the kernel's own rule
 * decides between equal values.
 */
static bool
add_values(const AggKernel *k, void *state, Datum *values, uint32 n)
{
	ColumnBatch batch;
	bool		result;

	batch.values = values;
	batch.isnull = palloc0(sizeof(bool) * Max(n, 1));
	batch.loaded = true;
	batch.scaled = NULL;
	result = k->add(state, NULL, &batch, NULL, n);
	pfree(batch.isnull);
	return result;
}

static bool
minmax_merge(MERGE_PARAMS)
{
	MinMax		src;

	RAW_STATE(MinMax, src);
	return !src.has || add_values(k, state, &src.value, 1);
}

/*
 * The state keeps the column's Datum; 8-byte values are copied out again
 * so that the result never points into a column buffer.
 */
static Datum
minmax_final(void *state, void *info, bool *isnull)
{
	const MinMax *st = state;

	*isnull = !st->has;
	return st->value;
}

static Datum
int8_minmax_final(void *state, void *info, bool *isnull)
{
	const MinMax *st = state;

	*isnull = !st->has;
	return st->has ? Int64GetDatum(DatumGetInt64(st->value)) : (Datum) 0;
}

static Datum
float8_minmax_final(void *state, void *info, bool *isnull)
{
	const MinMax *st = state;

	*isnull = !st->has;
	return st->has ? Float8GetDatum(DatumGetFloat8(st->value)) : (Datum) 0;
}

#ifdef VEC_HAVE_SCALED_NUMERIC

/*
 * min and max of numeric: compared as scaled integers (no allocation per
 * value, unlike numeric_cmp on a short-header value); the state keeps a
 * copy of the best value and its scaled form.  A value that does not
 * convert (NaN, too many digits) hands the query back.
 */
typedef struct NumericMinMax
{
	Datum		value;			/* copy, in the aggregation's memory */
	int128		mantissa;
	int32		scale;
	bool		has;
} NumericMinMax;

/* sign of a x 10^-as - b x 10^-bs; false if rescaling overflows */
static bool
compare_scaled(int128 a, int as, int128 b, int bs, int *result)
{
	if (as < bs && !int128_scale_up(a, bs - as, &a))
		return false;
	if (bs < as && !int128_scale_up(b, as - bs, &b))
		return false;
	*result = a < b ? -1 : a > b ? 1 : 0;
	return true;
}

/*
 * A copy of row's numeric (m x 10^-scale), written from its scaled form
 * when the scan left the column so (ColumnBatch.made): the same bytes.
 */
static Datum
numeric_copy(const ColumnBatch *col, uint32 row, int128 m, int scale)
{
	char		buf[NUMERIC_WRITE_MAX_SIZE];

	if (col->made == NULL)
		return datumCopy(col->values[row], false, -1);
	numeric_write_scaled((int64) m, scale, buf);
	return datumCopy(PointerGetDatum(buf), false, -1);
}

#define DEFINE_NUMERIC_MINMAX_ADD(name, KEEP_SIGN) \
static bool \
name(ADD_PARAMS) \
{ \
	ADD_EACH_VALUE(NumericMinMax, { \
		int128		m; \
		int			scale; \
		int			cmp; \
\
		if (!scaled_value(col, row, &m, &scale)) \
			return false; \
		if (st->has) \
		{ \
			if (!compare_scaled(st->mantissa, st->scale, m, scale, &cmp)) \
				return false; \
			if (cmp == KEEP_SIGN) \
				continue; \
			pfree(DatumGetPointer(st->value)); \
		} \
		st->value = numeric_copy(col, row, m, scale); \
		st->mantissa = m; \
		st->scale = scale; \
		st->has = true; \
	}); \
}

DEFINE_NUMERIC_MINMAX_ADD(numeric_min_add, -1)
DEFINE_NUMERIC_MINMAX_ADD(numeric_max_add, 1)

/* exported: the value's bytes, none without a value */
static bytea *
numeric_minmax_export(const AggKernel *k, void *state)
{
	NumericMinMax *st = state;
	Size		len = st->has ? VARSIZE_ANY(DatumGetPointer(st->value)) : 0;
	bytea	   *result = palloc(VARHDRSZ + len);

	SET_VARSIZE(result, VARHDRSZ + len);
	if (len > 0)
		memcpy(VARDATA(result), DatumGetPointer(st->value), len);
	return result;
}

static bool
numeric_minmax_merge(MERGE_PARAMS)
{
	Datum		value;
	bool		result;

	if (len == 0)
		return true;
	if (len < VARHDRSZ_SHORT || VARSIZE_ANY(data) != len)
		return false;
	value = PointerGetDatum(palloc(len));
	memcpy(DatumGetPointer(value), data, len);
	result = add_values(k, state, &value, 1);
	pfree(DatumGetPointer(value));
	return result;
}

static Datum
numeric_minmax_final(void *state, void *info, bool *isnull)
{
	NumericMinMax *st = state;

	*isnull = !st->has;
	return st->has ? datumCopy(st->value, false, -1) : (Datum) 0;
}

#endif							/* VEC_HAVE_SCALED_NUMERIC */

/*
 * The integer, date and timestamp types: by value, and equal values (under
 * their default ordering) are identical Datums, so a set of them needs no
 * comparison function and the order of ties cannot show in a result.
 */
static bool
identical_when_equal(Oid type)
{
	return type == INT2OID || type == INT4OID || type == INT8OID ||
		type == DATEOID || type == TIMESTAMPOID || type == TIMESTAMPTZOID;
}

/*
 * count(DISTINCT x) of an integer, date, timestamp or boolean: a set of
 * the group's values (vector/agg_distinct.c).
 */
static bool
count_distinct_add(ADD_PARAMS)
{
	uint32		k;
	uint32		row;
	DistinctSet *st;

	FOR_EACH_VALUE(k, row, DistinctSet, st)
		distinct_set_add(st, col->values[row]);
	return true;
}

static Datum
count_distinct_final(void *state, void *info, bool *isnull)
{
	*isnull = false;
	return Int64GetDatum(distinct_set_count((DistinctSet *) state));
}

static bytea *
distinct_export(const AggKernel *k, void *state)
{
	return distinct_set_export((DistinctSet *) state);
}

static bool
distinct_merge(MERGE_PARAMS)
{
	return distinct_set_merge((DistinctSet *) state, data, len);
}

static const AggKernel count_distinct_kernel = {
	F_COUNT_ANY, sizeof(DistinctSet), count_distinct_add, count_distinct_final,
	NULL, NULL, AGG_SAFE_ALWAYS, NULL, false, distinct_merge, distinct_export
};

/* count(DISTINCT x) over a type count_distinct_kernel takes? */
static bool
count_distinct_plannable(Aggref *aggref)
{
	TargetEntry *arg;
	SortGroupClause *distinct;
	Oid			type;

	if (aggref->aggfnoid != F_COUNT_ANY || list_length(aggref->args) != 1 ||
		list_length(aggref->aggdistinct) != 1 || aggref->aggorder != NIL ||
		aggref->aggdirectargs != NIL || aggref->aggkind != AGGKIND_NORMAL)
		return false;
	arg = linitial(aggref->args);
	distinct = linitial(aggref->aggdistinct);
	type = exprType((Node *) arg->expr);
	if (!identical_when_equal(type) && type != BOOLOID)
		return false;
	return distinct->eqop == lookup_type_cache(type, TYPECACHE_EQ_OPR)->eq_opr;
}

/*
 * percentile_disc(fraction) WITHIN GROUP (ORDER BY x): the group's values,
 * sorted at the end with the ORDER BY's operator, and the one at
 * ceil(fraction x count), as percentile_disc_result picks it.  Only for
 * the integer, date and timestamp types, where equal values are the same
 * value, so the order of ties cannot show in the result.
 */
typedef struct ValueList
{
	Datum	   *values;
	uint32		n;
	uint32		allocated;
} ValueList;

typedef struct PercentileInfo
{
	float8		fraction;
	SortSupportData ssup;
} PercentileInfo;

static bool
value_list_add(ADD_PARAMS)
{
	uint32		k;
	uint32		row;
	ValueList  *st;

	FOR_EACH_VALUE(k, row, ValueList, st)
	{
		if (st->n == st->allocated)
		{
			st->allocated = Max(st->allocated * 2, 64);
			st->values = st->values == NULL ?
				palloc_extended(sizeof(Datum) * st->allocated, MCXT_ALLOC_HUGE) :
				repalloc_huge(st->values, sizeof(Datum) * st->allocated);
		}
		st->values[st->n++] = col->values[row];
	}
	return true;
}

static int
compare_values(const void *a, const void *b, void *arg)
{
	return ApplySortComparator(*(const Datum *) a, false,
							   *(const Datum *) b, false, arg);
}

static Datum
percentile_disc_result(void *state, void *info, bool *isnull)
{
	ValueList  *st = state;
	PercentileInfo *p = info;
	int64		rownum;

	*isnull = st->n == 0;
	if (*isnull)
		return (Datum) 0;
	qsort_arg(st->values, st->n, sizeof(Datum), compare_values, &p->ssup);
	rownum = (int64) ceil(p->fraction * st->n);
	return st->values[Max(rownum, 1) - 1];
}

/* The fraction, when it is a constant in [0, 1]; else -1. */
static float8
percentile_fraction(Aggref *aggref)
{
	Const	   *c;
	float8		f;

	if (list_length(aggref->aggdirectargs) != 1 ||
		!IsA(linitial(aggref->aggdirectargs), Const))
		return -1;
	c = linitial(aggref->aggdirectargs);
	if (c->consttype != FLOAT8OID || c->constisnull)
		return -1;
	f = DatumGetFloat8(c->constvalue);
	return (f >= 0 && f <= 1) ? f : -1;
}

static bool
percentile_plannable(Aggref *aggref)
{
	SortGroupClause *order;
	TargetEntry *arg;
	TypeCacheEntry *tc;
	Oid			type;

	if (aggref->aggkind != AGGKIND_ORDERED_SET ||
		percentile_fraction(aggref) < 0 ||
		list_length(aggref->args) != 1 || list_length(aggref->aggorder) != 1)
		return false;
	arg = linitial(aggref->args);
	order = linitial(aggref->aggorder);
	type = exprType((Node *) arg->expr);
	if (!identical_when_equal(type))
		return false;
	tc = lookup_type_cache(type, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	return order->sortop == tc->lt_opr || order->sortop == tc->gt_opr;
}

static bool
percentile_setup(Aggref *aggref, bool partial, void **info)
{
	PercentileInfo *p = palloc0(sizeof(PercentileInfo));
	SortGroupClause *order = linitial(aggref->aggorder);

	p->fraction = percentile_fraction(aggref);
	p->ssup.ssup_cxt = CurrentMemoryContext;
	p->ssup.ssup_collation = aggref->inputcollid;
	PrepareSortSupportFromOrderingOp(order->sortop, &p->ssup);
	*info = p;
	return !partial;
}

#define ALWAYS AGG_SAFE_ALWAYS
#define FLOAT AGG_SAFE_FLOAT

static const AggKernel kernels[] = {
	{F_COUNT_, sizeof(int64), count_star_add, count_final, count_final, NULL, ALWAYS, NULL, false, count_merge, NULL},
	{F_COUNT_ANY, sizeof(int64), count_any_add, count_final, count_final, NULL, ALWAYS, NULL, false, count_merge, NULL},
	{F_SUM_INT2, sizeof(IntSum), int2_sum_add, int_sum_final, int_sum_final, NULL, ALWAYS, NULL, false, int_sum_merge, NULL},
	{F_SUM_INT4, sizeof(IntSum), int4_sum_add, int_sum_final, int_sum_final, NULL, ALWAYS, NULL, false, int_sum_merge, NULL},
	{F_AVG_INT2, sizeof(IntSum), int2_sum_add, int_avg_final, int_avg_partial, NULL, ALWAYS, NULL, false, int_sum_merge, NULL},
	{F_AVG_INT4, sizeof(IntSum), int4_sum_add, int_avg_final, int_avg_partial, NULL, ALWAYS, NULL, false, int_sum_merge, NULL},
#ifdef VEC_HAVE_SCALED_NUMERIC
	{F_SUM_INT8, sizeof(WideSum), int8_sum_add, wide_sum_final, int8_sum_partial, wide_setup, AGG_SAFE_INT8_SUM, NULL, false, wide_sum_merge, NULL},
	{F_AVG_INT8, sizeof(WideSum), int8_sum_add, wide_avg_final, int8_sum_partial, wide_setup, AGG_SAFE_INT8_SUM, NULL, false, wide_sum_merge, NULL},
	{F_SUM_NUMERIC, sizeof(WideSum), numeric_sum_add, wide_sum_final, numeric_sum_partial, wide_setup, AGG_SAFE_NUMERIC, NULL, false, wide_sum_merge, NULL},
	{F_MIN_NUMERIC, sizeof(NumericMinMax), numeric_min_add, numeric_minmax_final, numeric_minmax_final, NULL, AGG_SAFE_NUMERIC, NULL, true, numeric_minmax_merge, numeric_minmax_export},
	{F_MAX_NUMERIC, sizeof(NumericMinMax), numeric_max_add, numeric_minmax_final, numeric_minmax_final, NULL, AGG_SAFE_NUMERIC, NULL, true, numeric_minmax_merge, numeric_minmax_export},
	{F_AVG_NUMERIC, sizeof(WideSum), numeric_sum_add, wide_avg_final, numeric_sum_partial, wide_setup, AGG_SAFE_NUMERIC, NULL, false, wide_sum_merge, NULL},
#endif
	{F_SUM_FLOAT4, sizeof(Float4Sum), float4_sum_add, float4_sum_final, float4_sum_final, NULL, FLOAT, NULL, false, float4_sum_merge, NULL},
	{F_SUM_FLOAT8, sizeof(Float8Sum), float8_sum_add, float8_sum_final, float8_sum_final, NULL, FLOAT, NULL, false, float8_sum_merge, NULL},
	{F_AVG_FLOAT4, sizeof(FloatAvg), float4_avg_add, float_avg_final, float_avg_partial, NULL, FLOAT, NULL, false, float_avg_merge, NULL},
	{F_AVG_FLOAT8, sizeof(FloatAvg), float8_avg_add, float_avg_final, float_avg_partial, NULL, FLOAT, NULL, false, float_avg_merge, NULL},
	{F_MIN_INT2, sizeof(MinMax), int2_min_add, minmax_final, minmax_final, NULL, ALWAYS, NULL, false, minmax_merge, NULL},
	{F_MAX_INT2, sizeof(MinMax), int2_max_add, minmax_final, minmax_final, NULL, ALWAYS, NULL, false, minmax_merge, NULL},
	{F_MIN_INT4, sizeof(MinMax), int4_min_add, minmax_final, minmax_final, NULL, ALWAYS, NULL, false, minmax_merge, NULL},
	{F_MAX_INT4, sizeof(MinMax), int4_max_add, minmax_final, minmax_final, NULL, ALWAYS, NULL, false, minmax_merge, NULL},
	{F_MIN_DATE, sizeof(MinMax), int4_min_add, minmax_final, minmax_final, NULL, ALWAYS, NULL, false, minmax_merge, NULL},
	{F_MAX_DATE, sizeof(MinMax), int4_max_add, minmax_final, minmax_final, NULL, ALWAYS, NULL, false, minmax_merge, NULL},
	{F_MIN_INT8, sizeof(MinMax), int8_min_add, int8_minmax_final, int8_minmax_final, NULL, ALWAYS, NULL, false, minmax_merge, NULL},
	{F_MAX_INT8, sizeof(MinMax), int8_max_add, int8_minmax_final, int8_minmax_final, NULL, ALWAYS, NULL, false, minmax_merge, NULL},
	{F_MIN_TIMESTAMP, sizeof(MinMax), int8_min_add, int8_minmax_final, int8_minmax_final, NULL, ALWAYS, NULL, false, minmax_merge, NULL},
	{F_MAX_TIMESTAMP, sizeof(MinMax), int8_max_add, int8_minmax_final, int8_minmax_final, NULL, ALWAYS, NULL, false, minmax_merge, NULL},
	{F_MIN_TIMESTAMPTZ, sizeof(MinMax), int8_min_add, int8_minmax_final, int8_minmax_final, NULL, ALWAYS, NULL, false, minmax_merge, NULL},
	{F_MAX_TIMESTAMPTZ, sizeof(MinMax), int8_max_add, int8_minmax_final, int8_minmax_final, NULL, ALWAYS, NULL, false, minmax_merge, NULL},
	{F_MIN_FLOAT4, sizeof(MinMax), float4_min_add, minmax_final, minmax_final, NULL, FLOAT, NULL, true, minmax_merge, NULL},
	{F_MAX_FLOAT4, sizeof(MinMax), float4_max_add, minmax_final, minmax_final, NULL, FLOAT, NULL, true, minmax_merge, NULL},
	{F_MIN_FLOAT8, sizeof(MinMax), float8_min_add, float8_minmax_final, float8_minmax_final, NULL, FLOAT, NULL, true, minmax_merge, NULL},
	{F_MAX_FLOAT8, sizeof(MinMax), float8_max_add, float8_minmax_final, float8_minmax_final, NULL, FLOAT, NULL, true, minmax_merge, NULL},
	{F_PERCENTILE_DISC_FLOAT8_ANYELEMENT, sizeof(ValueList), value_list_add, percentile_disc_result, NULL, percentile_setup, ALWAYS, percentile_plannable, false, NULL, NULL},
};

/* The kernel of aggregate function aggfnoid, or NULL if there is none. */
static const AggKernel *
agg_kernel_find(Oid aggfnoid)
{
	int			i;

	for (i = 0; i < lengthof(kernels); i++)
		if (kernels[i].aggfnoid == aggfnoid)
			return &kernels[i];
	return NULL;
}

/* numeric(p, s) with p, s <= 18 and 0 <= s: 18 digits, a 128-bit sum */
static bool
numeric_typmod_fits(int32 typmod)
{
	int			precision;
	int			scale;

	return agg_numeric_typmod(typmod, &precision, &scale) && precision <= 18;
}

const AggKernel *
agg_kernel_for(Aggref *aggref, AggSplit split)
{
	const AggKernel *k = agg_kernel_find(aggref->aggfnoid);

	if (aggref->aggdistinct != NIL && split == AGGSPLIT_SIMPLE &&
		aggref->aggsplit == split && aggref->aggfilter == NULL &&
		aggref->agglevelsup == 0 && !aggref->aggvariadic &&
		count_distinct_plannable(aggref))
		return &count_distinct_kernel;
	if (k == NULL || (split != AGGSPLIT_SIMPLE && k->partial == NULL) ||
		aggref->aggsplit != split || aggref->aggdistinct != NIL ||
		aggref->aggfilter != NULL || aggref->agglevelsup != 0 ||
		aggref->aggvariadic)
		return NULL;
	if (k->plannable != NULL)
		return k->plannable(aggref) ? k : NULL;
	if (aggref->aggorder != NIL || aggref->aggdirectargs != NIL ||
		aggref->aggkind != AGGKIND_NORMAL)
		return NULL;
	return k;
}

bool
agg_kernel_keeps_one_of_ties(const AggKernel *k, Aggref *aggref)
{
	Expr	   *arg;

	if (!k->keeps_one_of_ties)
		return false;

	/*
	 * min and max of numeric keep the last of equal values, which differ
	 * only in display scale; a column of numeric(p, s) has one scale.
	 */
	if (aggref->aggfnoid != F_MIN_NUMERIC && aggref->aggfnoid != F_MAX_NUMERIC)
		return true;
	arg = ((TargetEntry *) linitial(aggref->args))->expr;
	return !IsA(arg, Var) || ((Var *) arg)->vartypmod < 0;
}

bool
agg_kernel_safe(const AggKernel *k, Form_pg_attribute attr, Datum min,
				Datum max, uint64 rows)
{
	switch (k->safety)
	{
		case AGG_SAFE_ALWAYS:
			return true;
		case AGG_SAFE_FLOAT:
			{
				float8		lo = attr->atttypid == FLOAT4OID ?
					DatumGetFloat4(min) : DatumGetFloat8(min);
				float8		hi = attr->atttypid == FLOAT4OID ?
					DatumGetFloat4(max) : DatumGetFloat8(max);

				/* NaN, the greatest float, fails the second test */
				return lo > -FLOAT_AVG_SAFE && hi < FLOAT_AVG_SAFE;
			}
		case AGG_SAFE_NUMERIC:
			/* NaN, the greatest numeric; no infinity fits a typmod */
			return numeric_typmod_fits(attr->atttypmod) &&
				!numeric_is_nan(DatumGetNumeric(max));
		case AGG_SAFE_INT8_SUM:
			{
				int64		lo = DatumGetInt64(min);
				int64		hi = DatumGetInt64(max);
				uint64		largest = Max(lo == PG_INT64_MIN ? PG_UINT64_MAX : (uint64) (lo < 0 ? -lo : lo),
										  (uint64) (hi < 0 ? -hi : hi));

				return rows == 0 || largest <= (uint64) PG_INT64_MAX / rows;
			}
	}
	return false;
}

bool
agg_kernel_safe_bounds(const AggKernel *k, const AggExprBounds *b, uint64 rows)
{
	if (b->empty)
		return true;
	switch (k->safety)
	{
		case AGG_SAFE_ALWAYS:
			return true;
		case AGG_SAFE_FLOAT:
			return b->have_range && b->lo > -FLOAT_AVG_SAFE && b->hi < FLOAT_AVG_SAFE;
		case AGG_SAFE_NUMERIC:
			return b->have_shape && b->scale >= 0 && b->scale <= 18 &&
				b->digits <= 18;
		case AGG_SAFE_INT8_SUM:
			/* 2^62: a margin for the bounds' rounding to doubles */
			return b->have_range &&
				Max(fabs(b->lo), fabs(b->hi)) * (double) rows <= 4611686018427387904.0;
	}
	return false;
}

bool
agg_kernel_same_state(const AggKernel *a, const AggKernel *b)
{
	/* a percentile's result sorts its values in place, by its own order */
	return a->add == b->add && a->state_size == b->state_size &&
		a->add != value_list_add;
}

bool
agg_kernel_reads_scaled(const AggKernel *k)
{
#ifdef VEC_HAVE_SCALED_NUMERIC
	return k->add == numeric_sum_add || k->add == numeric_min_add ||
		k->add == numeric_max_add;
#else
	return false;
#endif
}

bytea *
agg_kernel_export(const AggKernel *k, void *state)
{
	bytea	   *result;

	if (k->export_state != NULL)
		return k->export_state(k, state);
	result = palloc(VARHDRSZ + k->state_size);
	SET_VARSIZE(result, VARHDRSZ + k->state_size);
	memcpy(VARDATA(result), state, k->state_size);
	return result;
}

void
agg_kernel_merge(const AggKernel *k, void *state, bytea *exported)
{
	if (!k->merge(k, state, VARDATA(exported), VARSIZE(exported) - VARHDRSZ))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("vectorized parallel aggregation met a value its zone maps excluded"),
				 errhint("Set storage_engine.enable_vectorized_aggregation to off for this query and report the problem.")));
}
