/*-------------------------------------------------------------------------
 *
 * filter.c
 *	  Filter kernels: a scan's filter clauses evaluated on a batch's column
 *	  arrays, leaving only the passing rows in its selection vector.
 *	  Building a row (slot) and running the expression interpreter for
 *	  each row was most of the cost of a selective filter once the column
 *	  was decoded.
 *
 *	  Kernels, one per clause of the (implicitly ANDed) filter:
 *	  - integer comparisons: a column of int2, int4, int8, date, timestamp
 *	    or timestamptz against a value, with a built-in comparison operator
 *	    of those types (< <= = >= > <>), compared as int64;
 *	  - text LIKE 'prefix%' and LIKE 'literal' under a deterministic
 *	    collation: a comparison of bytes (LIKE does not depend on the
 *	    collation then, and a byte prefix of valid text is a character
 *	    prefix);
 *	  - col = ANY(array) (IN lists): a sorted set for the integer types,
 *	    else the strict, leakproof operator against each element;
 *	  - a boolean column, or NOT one;
 *	  - IS NULL, IS NOT NULL;
 *	  - any other column-against-value comparison whose operator function
 *	    is strict and leakproof, called per value: it cannot fail or leak
 *	    whatever rows it sees before the rest of the filter (row security
 *	    quals included).
 *	  The value is a constant, a parameter or a stable expression, computed
 *	  when the filter is built (scan start and rescan).  Every clause is
 *	  strict: a NULL column value never passes.  Other clauses stay with
 *	  the caller, which evaluates them on the rows that pass.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "catalog/pg_collation.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "scan/prune.h"
#include "vector/filter.h"
#include "guc.h"

typedef enum FilterKind
{
	FILTER_INT_CMP,
	FILTER_BYTES,				/* LIKE prefix or literal */
	FILTER_IS_NULL,
	FILTER_IS_NOT_NULL,
	FILTER_OPERATOR,
	FILTER_INT_IN,				/* col = ANY(integers) */
	FILTER_OPERATOR_ANY,		/* col op ANY(values) */
	FILTER_BOOL,				/* a boolean column, or its negation */
	FILTER_NOTHING				/* compares with NULL: no row passes */
} FilterKind;

typedef enum IntCmp
{
	CMP_LT,
	CMP_LE,
	CMP_EQ,
	CMP_GE,
	CMP_GT,
	CMP_NE
} IntCmp;

typedef struct FilterClause
{
	FilterKind	kind;
	int			attno;			/* column, 0-based */
	/* FILTER_INT_CMP: column cmp bound */
	int16		width;			/* the column's typlen */
	IntCmp		cmp;
	int64		bound;
	/* FILTER_BYTES */
	char	   *bytes;
	int			nbytes;
	bool		prefix;			/* else the whole value */
	/* FILTER_OPERATOR: fn(column, value), or fn(value, column) */
	FmgrInfo	fn;
	Oid			collation;
	Datum		value;
	bool		column_first;
	/* FILTER_INT_IN (sorted, distinct), FILTER_OPERATOR_ANY: the values */
	int64	   *ints;
	Datum	   *values;
	int			nvalues;
	/* FILTER_BOOL: the value that passes */
	bool		want;
} FilterClause;

struct VecFilter
{
	int			nclauses;
	FilterClause *clauses;
	List	   *exprs;			/* the clauses compiled */
};

/* prune_column_of, a column the descriptor still has */
static Var *
column_of(Node *node, Index relid, TupleDesc desc)
{
	Var		   *var = prune_column_of(node, relid);

	if (var == NULL || var->varattno > desc->natts ||
		TupleDescAttr(desc, var->varattno - 1)->attisdropped)
		return NULL;
	return var;
}

/* The integer types whose built-in comparisons are int64 comparisons. */
static int
int_class(Oid type)
{
	switch (type)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
			return 1;
		case DATEOID:
			return 2;
		case TIMESTAMPOID:
			return 3;
		case TIMESTAMPTZOID:
			return 4;
		default:
			return 0;
	}
}

static int64
int_value(Datum d, Oid type)
{
	switch (type)
	{
		case INT2OID:
			return DatumGetInt16(d);
		case INT4OID:
		case DATEOID:
			return DatumGetInt32(d);
		default:
			return DatumGetInt64(d);
	}
}

/* col op value, col of the column's type, value of value_type */
static bool
compile_int_cmp(Oid opno, Form_pg_attribute attr, Oid value_type,
				Datum value, FilterClause *c)
{
	static const char *const names[] = {"<", "<=", "=", ">=", ">", "<>"};
	char	   *name;
	int			i;

	if (int_class(attr->atttypid) == 0 ||
		int_class(attr->atttypid) != int_class(value_type) ||
		opno >= FirstNormalObjectId)
		return false;
	name = get_opname(opno);
	if (name == NULL)
		return false;
	for (i = 0; i < lengthof(names); i++)
		if (strcmp(name, names[i]) == 0)
		{
			c->kind = FILTER_INT_CMP;
			c->width = attr->attlen;
			c->cmp = (IntCmp) i;
			c->bound = int_value(value, value_type);
			return true;
		}
	return false;
}

/*
 * LIKE with a pattern of plain characters, alone or followed by one '%':
 * no '_', no escape, no other '%'.
 */
static bool
compile_like(Datum pattern, FilterClause *c)
{
	text	   *p = DatumGetTextPP(pattern);
	const char *s = VARDATA_ANY(p);
	int			n = VARSIZE_ANY_EXHDR(p);
	int			i;

	for (i = 0; i < n; i++)
		if (s[i] == '%' || s[i] == '_' || s[i] == '\\')
			break;
	if (i < n && !(s[i] == '%' && i == n - 1))
		return false;
	c->kind = FILTER_BYTES;
	c->prefix = i < n;
	c->nbytes = i;
	c->bytes = palloc(Max(i, 1));
	memcpy(c->bytes, s, i);
	return true;
}

static int
compare_int64(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/*
 * col = ANY(array), the array a value for the scan: integers (the
 * built-in equality of the integer, date and timestamp types) become a
 * sorted set, other element types keep their strict, leakproof operator.
 * NULL elements never make a row pass (= ANY is then NULL or true).
 */
static bool
compile_in(ScalarArrayOpExpr *sa, Index relid, TupleDesc desc,
		   PlanState *parent, FilterClause *c)
{
	Var		   *var = column_of(linitial(sa->args), relid, desc);
	Expr	   *array_expr = lsecond(sa->args);
	Form_pg_attribute attr;
	Oid			elemtype;
	ArrayType  *array;
	Datum		array_value;
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	bool		isnull;
	char	   *name;
	int			i;

	if (!sa->useOr || var == NULL ||
		contain_var_clause((Node *) array_expr) ||
		contain_volatile_functions((Node *) array_expr) ||
		!func_strict(sa->opfuncid))
		return false;
	attr = TupleDescAttr(desc, var->varattno - 1);
	c->attno = var->varattno - 1;
	elemtype = get_element_type(exprType((Node *) array_expr));
	if (!OidIsValid(elemtype))
		return false;
	name = get_opname(sa->opno);
	if (name != NULL && strcmp(name, "=") == 0 && sa->opno < FirstNormalObjectId &&
		int_class(attr->atttypid) != 0 &&
		int_class(attr->atttypid) == int_class(elemtype))
		c->kind = FILTER_INT_IN;
	else if (get_func_leakproof(sa->opfuncid))
		c->kind = FILTER_OPERATOR_ANY;
	else
		return false;

	array_value = prune_value(array_expr, parent, parent->ps_ExprContext, &isnull);
	if (isnull)
	{
		c->kind = FILTER_NOTHING;
		return true;
	}
	array = DatumGetArrayTypeP(array_value);
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	deconstruct_array(array, elemtype, typlen, typbyval, typalign,
					  &elems, &nulls, &nelems);
	c->values = palloc(sizeof(Datum) * Max(nelems, 1));
	c->ints = palloc(sizeof(int64) * Max(nelems, 1));
	for (i = 0; i < nelems; i++)
	{
		if (nulls[i])
			continue;
		if (c->kind == FILTER_INT_IN)
			c->ints[c->nvalues++] = int_value(elems[i], elemtype);
		else
			c->values[c->nvalues++] = elems[i];
	}
	if (c->kind == FILTER_INT_IN)
		qsort(c->ints, c->nvalues, sizeof(int64), compare_int64);
	else
	{
		fmgr_info(sa->opfuncid, &c->fn);
		c->collation = sa->inputcollid;
	}
	c->width = attr->attlen;
	return true;
}

/* A clause with a kernel: fills *c; false leaves it to the caller. */
static bool
compile_clause(Expr *clause, Index relid, TupleDesc desc, PlanState *parent,
			   FilterClause *c)
{
	memset(c, 0, sizeof(*c));
	if (IsA(clause, ScalarArrayOpExpr))
		return compile_in((ScalarArrayOpExpr *) clause, relid, desc, parent, c);
	/* "WHERE b", "WHERE NOT b" */
	if (is_notclause(clause) ||
		(IsA(clause, Var) && column_of((Node *) clause, relid, desc) != NULL))
	{
		Var		   *var = column_of(is_notclause(clause) ?
									(Node *) get_notclausearg(clause) :
									(Node *) clause, relid, desc);

		if (var == NULL || var->vartype != BOOLOID)
			return false;
		c->kind = FILTER_BOOL;
		c->attno = var->varattno - 1;
		c->want = !is_notclause(clause);
		return true;
	}
	if (IsA(clause, NullTest))
	{
		NullTest   *nt = (NullTest *) clause;
		Var		   *var = column_of((Node *) nt->arg, relid, desc);

		if (nt->argisrow || var == NULL)
			return false;
		c->kind = nt->nulltesttype == IS_NULL ? FILTER_IS_NULL : FILTER_IS_NOT_NULL;
		c->attno = var->varattno - 1;
		return true;
	}
	if (IsA(clause, OpExpr) && list_length(((OpExpr *) clause)->args) == 2)
	{
		OpExpr	   *op = (OpExpr *) clause;
		Var		   *var;
		Expr	   *other;
		bool		column_first = true;
		Form_pg_attribute attr;
		Oid			opno = op->opno;
		Datum		value;
		bool		isnull;

		if ((var = column_of(linitial(op->args), relid, desc)) != NULL)
			other = lsecond(op->args);
		else if ((var = column_of(lsecond(op->args), relid, desc)) != NULL)
		{
			other = linitial(op->args);
			column_first = false;
		}
		else
			return false;
		if (contain_var_clause((Node *) other) ||
			contain_volatile_functions((Node *) other) ||
			!func_strict(op->opfuncid))
			return false;
		attr = TupleDescAttr(desc, var->varattno - 1);
		c->attno = var->varattno - 1;

		value = prune_value(other, parent, parent->ps_ExprContext, &isnull);
		if (isnull)
		{
			c->kind = FILTER_NOTHING;	/* strict: NULL for every row */
			return true;
		}
		if (!column_first)
			opno = get_commutator(opno);
		if (OidIsValid(opno) &&
			compile_int_cmp(opno, attr, exprType((Node *) other), value, c))
			return true;
		if (column_first && op->opno == OID_TEXT_LIKE_OP &&
			(attr->atttypid == TEXTOID || attr->atttypid == VARCHAROID) &&
			(op->inputcollid == C_COLLATION_OID ||
			 (OidIsValid(op->inputcollid) &&
			  get_collation_isdeterministic(op->inputcollid))) &&
			compile_like(value, c))
			return true;
		if (!get_func_leakproof(op->opfuncid))
			return false;
		c->kind = FILTER_OPERATOR;
		fmgr_info(op->opfuncid, &c->fn);
		c->collation = op->inputcollid;
		c->value = value;
		c->column_first = column_first;
		return true;
	}
	return false;
}

VecFilter *
vec_filter_build(List *quals, Index scanrelid, TupleDesc desc,
				 PlanState *parent, List **rest)
{
	VecFilter  *f = palloc0(sizeof(VecFilter));
	ListCell   *lc;

	*rest = NIL;
	f->clauses = palloc0(sizeof(FilterClause) * Max(list_length(quals), 1));
	foreach(lc, quals)
	{
		Expr	   *clause = lfirst(lc);

		if (IsA(clause, RestrictInfo))
			clause = ((RestrictInfo *) clause)->clause;
		if (compile_clause(clause, scanrelid, desc, parent,
						   &f->clauses[f->nclauses]))
		{
			f->nclauses++;
			f->exprs = lappend(f->exprs, clause);
		}
		else
			*rest = lappend(*rest, clause);
	}
	if (f->nclauses == 0)
	{
		pfree(f->clauses);
		pfree(f);
		return NULL;
	}
	return f;
}

static inline bool
int_passes(IntCmp cmp, int64 v, int64 bound)
{
	switch (cmp)
	{
		case CMP_LT:
			return v < bound;
		case CMP_LE:
			return v <= bound;
		case CMP_EQ:
			return v == bound;
		case CMP_GE:
			return v >= bound;
		case CMP_GT:
			return v > bound;
		case CMP_NE:
			return v != bound;
	}
	return false;
}

/* Does row's value pass clause c? */
static inline bool
passes(const FilterClause *c, const ColumnBatch *col, uint32 row)
{
	Datum		v;

	if (c->kind == FILTER_IS_NULL)
		return col->isnull[row];
	if (col->isnull[row])
		return false;
	v = col->values[row];
	switch (c->kind)
	{
		case FILTER_INT_CMP:
			return int_passes(c->cmp,
							  c->width == 2 ? DatumGetInt16(v) :
							  c->width == 4 ? DatumGetInt32(v) : DatumGetInt64(v),
							  c->bound);
		case FILTER_BYTES:
			{
				const char *s = VARDATA_ANY(DatumGetPointer(v));
				int			n = VARSIZE_ANY_EXHDR(DatumGetPointer(v));

				return (c->prefix ? n >= c->nbytes : n == c->nbytes) &&
					memcmp(s, c->bytes, c->nbytes) == 0;
			}
		case FILTER_IS_NOT_NULL:
			return true;
		case FILTER_INT_IN:
			{
				int64		x = c->width == 2 ? DatumGetInt16(v) :
					c->width == 4 ? DatumGetInt32(v) : DatumGetInt64(v);

				return bsearch(&x, c->ints, c->nvalues, sizeof(int64),
							   compare_int64) != NULL;
			}
		case FILTER_OPERATOR_ANY:
			{
				int			i;

				for (i = 0; i < c->nvalues; i++)
					if (DatumGetBool(FunctionCall2Coll((FmgrInfo *) &c->fn,
													   c->collation, v, c->values[i])))
						return true;
				return false;
			}
		case FILTER_BOOL:
			return DatumGetBool(v) == c->want;
		case FILTER_OPERATOR:
			return DatumGetBool(c->column_first ?
								FunctionCall2Coll((FmgrInfo *) &c->fn, c->collation, v, c->value) :
								FunctionCall2Coll((FmgrInfo *) &c->fn, c->collation, c->value, v));
		default:
			return false;
	}
}

void
vec_filter_apply(VecFilter *f, RowBatch *b, uint32 *sel)
{
	int			i;

	for (i = 0; i < f->nclauses; i++)
	{
		const FilterClause *c = &f->clauses[i];
		ColumnBatch *col = &b->cols[c->attno];
		uint32		n = 0;
		uint32		k;

		if (c->kind == FILTER_NOTHING)
		{
			b->nsel = 0;
			b->sel = sel;
			return;
		}
		/* in place: sel may be b->sel, read ahead of where it is written */
		for (k = 0; k < b->nsel; k++)
		{
			uint32		row = b->sel != NULL ? b->sel[k] : k;

			batch_make_value(col, row);
			if (passes(c, col, row))
				sel[n++] = row;
		}
		b->sel = sel;
		b->nsel = n;
	}
}

VecFilter *
vec_filter_for_scan(ScanState *ss, ExprState **rest_qual)
{
	Scan	   *scan = (Scan *) ss->ps.plan;
	List	   *quals = scan->plan.qual;
	VecFilter  *f;
	List	   *rest;

	*rest_qual = NULL;
	if (!storage_engine_enable_vectorized_filter || quals == NIL ||
		contain_subplans((Node *) quals))
		return NULL;
	f = vec_filter_build(quals, scan->scanrelid,
						 RelationGetDescr(ss->ss_currentRelation), &ss->ps,
						 &rest);
	if (f != NULL)
		*rest_qual = ExecInitQual(rest, &ss->ps);
	return f;
}

List *
vec_filter_clauses(VecFilter *f)
{
	return f->exprs;
}
