/*-------------------------------------------------------------------------
 *
 * agg_bounds.c
 *	  What an aggregate's input expression can be within a zone, from the
 *	  zone maps of the columns it reads (agg_bounds.h).
 *
 *	  A partial aggregation decides before it reads anything whether its
 *	  kernels can take every value (agg_kernel_safe): a participant of a
 *	  parallel scan cannot give back its share to start over.  Zone maps
 *	  bound columns; an aggregate over an expression, sum(price * quantity)
 *	  or sum(CASE WHEN ... THEN amount END), was left to PostgreSQL's row by
 *	  row aggregation in every participant, slower in parallel than the
 *	  node alone.  The bounds of such expressions follow from their
 *	  columns':
 *	  - as an interval of finite doubles, for the float and int8 kernels:
 *		columns and constants of integer, float and numeric types, +, -
 *		and *, unary minus, built-in casts among those types;
 *	  - as a numeric(digits, scale) without NaN, for the numeric kernels:
 *		numeric columns with a typmod (NaN excluded by the zone map),
 *		integer columns and constants, numeric constants, + and - (the
 *		larger scale, one digit more), * (digits and scales added:
 *		numeric_mul is exact), casts from integers and typmod coercions;
 *	  - either way CASE and COALESCE take the union of their results, and
 *		a NULL constant adds nothing.
 *	  Anything else is unknown, and the aggregation stays PostgreSQL's.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include <math.h>

#include "access/transam.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"

#include "vector/agg_bounds.h"

typedef struct BoundsContext
{
	TupleDesc	desc;
	ZoneStatsFn stats_fn;
	void	   *zone;
} BoundsContext;

static bool bounds_of(Expr *expr, BoundsContext *cxt, AggExprBounds *b);

static bool
integer_type(Oid type)
{
	return type == INT2OID || type == INT4OID || type == INT8OID;
}

static bool
number_type(Oid type)
{
	return integer_type(type) || type == FLOAT4OID || type == FLOAT8OID ||
		type == NUMERICOID;
}

/* Digits of the integer part of |v| (at least 1), v finite. */
static int
integer_digits(double v)
{
	v = fabs(v);
	/* one more than log10 says: doubles near a power of ten round */
	return v < 1.0 ? 1 : (int) floor(log10(v)) + 2;
}

static void
set_range(AggExprBounds *b, double lo, double hi)
{
	b->have_range = isfinite(lo) && isfinite(hi);
	b->lo = lo;
	b->hi = hi;
}

/* A value of a number type as a double; false for NaN or infinity. */
static bool
number_value(Oid type, Datum d, double *v)
{
	switch (type)
	{
		case INT2OID:
			*v = DatumGetInt16(d);
			return true;
		case INT4OID:
			*v = DatumGetInt32(d);
			return true;
		case INT8OID:
			*v = (double) DatumGetInt64(d);
			return true;
		case FLOAT4OID:
			*v = DatumGetFloat4(d);
			return isfinite(*v);
		case FLOAT8OID:
			*v = DatumGetFloat8(d);
			return isfinite(*v);
		case NUMERICOID:
			if (numeric_is_nan(DatumGetNumeric(d)) ||
				numeric_is_inf(DatumGetNumeric(d)))
				return false;
			*v = DatumGetFloat8(DirectFunctionCall1(numeric_float8, d));
			return isfinite(*v);
	}
	return false;
}

bool
agg_numeric_typmod(int32 typmod, int *precision, int *scale)
{
	if (typmod < (int32) VARHDRSZ)
		return false;
	*precision = ((typmod - VARHDRSZ) >> 16) & 0xffff;
	/* the scale is 11 bits, two's complement from PostgreSQL 15 on */
	*scale = (((typmod - VARHDRSZ) & 0x7ff) ^ 1024) - 1024;
	/* numeric(2, 5) holds 0.00012: five digits at its scale */
	*precision = Max(*precision, *scale);
	return *scale >= 0;
}

static bool
var_bounds(Var *var, BoundsContext *cxt, AggExprBounds *b)
{
	Form_pg_attribute attr;
	ZoneStats	s;
	double		lo;
	double		hi;

	if (var->varattno < 1 || var->varattno > cxt->desc->natts)
		return false;
	attr = TupleDescAttr(cxt->desc, var->varattno - 1);
	if (attr->attisdropped || attr->atttypid != var->vartype ||
		!number_type(attr->atttypid) ||
		!cxt->stats_fn(cxt->zone, attr->attnum, &s))
		return false;
	if (s.null_count >= s.row_count)
	{
		b->empty = true;
		return true;
	}
	if (s.min == NULL || s.max == NULL)
		return false;
	/* NaN is the greatest numeric and float: a max that is one fails */
	if (!number_value(attr->atttypid, zone_bound_deserialize(s.min, attr), &lo) ||
		!number_value(attr->atttypid, zone_bound_deserialize(s.max, attr), &hi))
		return false;
	set_range(b, lo, hi);
	if (attr->atttypid == NUMERICOID)
		b->have_shape = agg_numeric_typmod(attr->atttypmod, &b->digits, &b->scale);
	else if (integer_type(attr->atttypid))
	{
		b->have_shape = true;
		b->digits = Max(integer_digits(lo), integer_digits(hi));
		b->scale = 0;
	}
	return true;
}

static bool
const_bounds(Const *c, AggExprBounds *b)
{
	double		v;

	if (c->constisnull)
	{
		b->empty = true;
		return true;
	}
	if (!number_type(c->consttype) ||
		!number_value(c->consttype, c->constvalue, &v))
		return false;
	set_range(b, v, v);
	if (c->consttype == NUMERICOID)
	{
		b->scale = DatumGetInt32(DirectFunctionCall1(numeric_scale, c->constvalue));
		b->digits = integer_digits(v) + b->scale;
		b->have_shape = true;
	}
	else if (integer_type(c->consttype))
	{
		b->digits = integer_digits(v);
		b->scale = 0;
		b->have_shape = true;
	}
	return true;
}

/* The union of two bounds (CASE, COALESCE). */
static void
unite(AggExprBounds *into, const AggExprBounds *b)
{
	if (b->empty)
		return;
	if (into->empty)
	{
		*into = *b;
		return;
	}
	into->have_range = into->have_range && b->have_range;
	into->lo = Min(into->lo, b->lo);
	into->hi = Max(into->hi, b->hi);
	into->have_shape = into->have_shape && b->have_shape;
	if (into->have_shape)
	{
		int			int_digits = Max(into->digits - into->scale, b->digits - b->scale);

		into->scale = Max(into->scale, b->scale);
		into->digits = int_digits + into->scale;
	}
}

/* l op r for op +, - or *, both not empty. */
static void
arithmetic(char op, const AggExprBounds *l, const AggExprBounds *r,
		   AggExprBounds *b)
{
	if (l->have_range && r->have_range)
	{
		if (op == '+')
			set_range(b, l->lo + r->lo, l->hi + r->hi);
		else if (op == '-')
			set_range(b, l->lo - r->hi, l->hi - r->lo);
		else
		{
			double		p[4] = {l->lo * r->lo, l->lo * r->hi,
			l->hi * r->lo, l->hi * r->hi};

			set_range(b, Min(Min(p[0], p[1]), Min(p[2], p[3])),
					  Max(Max(p[0], p[1]), Max(p[2], p[3])));
		}
	}
	if (l->have_shape && r->have_shape)
	{
		int			li = l->digits - l->scale;
		int			ri = r->digits - r->scale;

		b->have_shape = true;
		if (op == '*')
		{
			b->scale = l->scale + r->scale;
			b->digits = li + ri + b->scale;
		}
		else
		{
			b->scale = Max(l->scale, r->scale);
			b->digits = Max(li, ri) + 1 + b->scale;
		}
	}
}

static bool
op_bounds(OpExpr *op, BoundsContext *cxt, AggExprBounds *b)
{
	char	   *name;
	AggExprBounds l = {0};
	AggExprBounds r = {0};
	char		kind;
	ListCell   *lc;

	if (op->opfuncid >= FirstNormalObjectId || !number_type(op->opresulttype))
		return false;
	foreach(lc, op->args)
		if (!number_type(exprType(lfirst(lc))))
			return false;
	name = get_opname(op->opno);
	if (name == NULL || strlen(name) != 1 || strchr("+-*", name[0]) == NULL)
		return false;
	kind = name[0];
	if (list_length(op->args) == 1 && kind == '-')
	{
		if (!bounds_of(linitial(op->args), cxt, &l))
			return false;
		*b = l;
		if (!l.empty)
			set_range(b, -l.hi, -l.lo);
		b->have_range = b->have_range && l.have_range;
		return true;
	}
	if (list_length(op->args) != 2 ||
		!bounds_of(linitial(op->args), cxt, &l) ||
		!bounds_of(lsecond(op->args), cxt, &r))
		return false;
	/* the operators are strict: NULL on either side is NULL */
	if (l.empty || r.empty)
	{
		b->empty = true;
		return true;
	}
	arithmetic(kind, &l, &r, b);
	return true;
}

/* A built-in cast between number types (or a typmod coercion). */
static bool
cast_bounds(FuncExpr *f, BoundsContext *cxt, AggExprBounds *b)
{
	Oid			from;
	AggExprBounds a = {0};

	if (f->funcid >= FirstNormalObjectId ||
		(f->funcformat != COERCE_IMPLICIT_CAST &&
		 f->funcformat != COERCE_EXPLICIT_CAST) ||
		f->args == NIL || !number_type(f->funcresulttype))
		return false;
	from = exprType(linitial(f->args));
	if (!number_type(from) || !bounds_of(linitial(f->args), cxt, &a))
		return false;
	*b = a;
	if (a.empty)
		return true;
	/* a float cast to an integer rounds */
	if (b->have_range)
		set_range(b, a.lo - 1.0, a.hi + 1.0);
	b->have_shape = false;
	if (f->funcresulttype == NUMERICOID)
	{
		int32		typmod = exprTypmod((Node *) f);

		if (typmod >= (int32) VARHDRSZ)
			b->have_shape = agg_numeric_typmod(typmod, &b->digits, &b->scale);
		else if (integer_type(from) || from == NUMERICOID)
		{
			b->have_shape = a.have_shape;
			b->digits = a.digits;
			b->scale = a.scale;
		}
	}
	else if (integer_type(f->funcresulttype) && b->have_range)
	{
		b->have_shape = true;
		b->digits = Max(integer_digits(b->lo), integer_digits(b->hi));
		b->scale = 0;
	}
	return true;
}

static bool
bounds_of(Expr *expr, BoundsContext *cxt, AggExprBounds *b)
{
	ListCell   *lc;

	memset(b, 0, sizeof(*b));
	switch (nodeTag(expr))
	{
		case T_Var:
			return var_bounds((Var *) expr, cxt, b);
		case T_Const:
			return const_bounds((Const *) expr, b);
		case T_RelabelType:
			return bounds_of(((RelabelType *) expr)->arg, cxt, b);
		case T_OpExpr:
			return op_bounds((OpExpr *) expr, cxt, b);
		case T_FuncExpr:
			return cast_bounds((FuncExpr *) expr, cxt, b);
		case T_CaseExpr:
			{
				CaseExpr   *c = (CaseExpr *) expr;
				AggExprBounds r;

				b->empty = true;
				foreach(lc, c->args)
				{
					if (!bounds_of(((CaseWhen *) lfirst(lc))->result, cxt, &r))
						return false;
					unite(b, &r);
				}
				if (c->defresult != NULL)
				{
					if (!bounds_of(c->defresult, cxt, &r))
						return false;
					unite(b, &r);
				}
				return true;
			}
		case T_CoalesceExpr:
			{
				AggExprBounds r;

				b->empty = true;
				foreach(lc, ((CoalesceExpr *) expr)->args)
				{
					if (!bounds_of(lfirst(lc), cxt, &r))
						return false;
					unite(b, &r);
				}
				return true;
			}
		default:
			return false;
	}
}

bool
agg_expr_bounds(Expr *expr, TupleDesc desc, ZoneStatsFn stats_fn, void *zone,
				AggExprBounds *bounds)
{
	BoundsContext cxt = {desc, stats_fn, zone};

	return bounds_of(expr, &cxt, bounds);
}
