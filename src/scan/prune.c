/*-------------------------------------------------------------------------
 *
 * prune.c
 *	  Zone-map pruning of stripes and chunk groups.
 *
 *	  A filter clause can exclude a zone when it is, or is an AND/OR of,
 *	  comparisons of a column with a value that does not change during the
 *	  scan (a constant, a parameter, a stable expression such as now()):
 *	  col op value with op one of < <= = >= > <> in the column's default
 *	  btree operator family, col = ANY(array) (IN lists), col IS [NOT]
 *	  NULL.  Values are computed when the scan starts (and again on
 *	  rescan), never folded at planning, so cached generic plans stay
 *	  right.
 *
 *	  Bounds were computed with the column's default btree ordering under
 *	  its collation (catalog/zone_map.c); a comparison under another
 *	  collation is not used.  Pruning only ever skips zones that cannot
 *	  hold a matching row; the scan still evaluates the full filter on the
 *	  rows it reads, so results never depend on pruning.  The one exception
 *	  is proven, not guessed: when the tests stand for the whole filter
 *	  (prune_complete) and a zone's bounds show that every row satisfies
 *	  them (no NULL, both bounds inside), the scan skips evaluating the
 *	  filter on that zone's rows.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/nbtree.h"
#include "catalog/pg_am.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/array.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/typcache.h"

#include "catalog/zone_map.h"
#include "scan/prune.h"

typedef enum PruneKind
{
	PRUNE_AND,
	PRUNE_OR,
	PRUNE_CMP,
	PRUNE_IN,
	PRUNE_IS_NULL,
	PRUNE_IS_NOT_NULL
} PruneKind;

#define STRATEGY_NOT_EQUAL 0

struct PruneNode
{
	PruneKind	kind;
	List	   *children;		/* AND, OR */
	AttrNumber	attno;
	Form_pg_attribute attr;
	int			strategy;		/* BT*StrategyNumber, or STRATEGY_NOT_EQUAL */
	FmgrInfo	cmp;			/* order proc (column type, value type) */
	Oid			collation;
	bool		value_isnull;
	Datum		value;
	int			nvalues;		/* IN */
	Datum	   *values;
	bool		complete;		/* the whole clause: no AND arm left out */
	MemoryContext cxt;			/* root only: scratch, reset per test */
};

/* What a leaf clause compares. */
typedef struct LeafInfo
{
	PruneKind	kind;
	AttrNumber	attno;
	Expr	   *value;			/* comparison value or array */
	Oid			opfamily;
	int			strategy;
	Oid			lefttype;
	Oid			righttype;
} LeafInfo;

Var *
prune_column_of(Node *node, Index relid)
{
	while (node && IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	if (node && IsA(node, Var))
	{
		Var		   *var = (Var *) node;

		if (var->varno == relid && var->varlevelsup == 0 && var->varattno > 0)
			return var;
	}
	return NULL;
}

static bool
is_pseudo_constant(Node *node)
{
	return !contain_var_clause(node) && !contain_volatile_functions(node);
}

/* Family and strategy of opno applied to the column (on the left). */
static bool
operator_info(Oid opno, Form_pg_attribute attr, Oid collation, LeafInfo *leaf)
{
	TypeCacheEntry *tc;
	Oid			family;
	int			strategy;
	Oid			left;
	Oid			right;
	bool		negated = false;

	if (zone_map_cmp(attr) == NULL)
		return false;
	if (OidIsValid(attr->attcollation) && collation != attr->attcollation)
		return false;
	/* the type's default btree opclass, cached (planning runs this often) */
	tc = lookup_type_cache(attr->atttypid, TYPECACHE_BTREE_OPFAMILY);
	family = tc->btree_opf;
	if (!OidIsValid(family))
		return false;
	if (!op_in_opfamily(opno, family))
	{
		Oid			negator = get_negator(opno);

		if (!OidIsValid(negator) || !op_in_opfamily(negator, family))
			return false;
		opno = negator;
		negated = true;
	}
	get_op_opfamily_properties(opno, family, false, &strategy, &left, &right);
	if (negated && strategy != BTEqualStrategyNumber)
		return false;
	if (left != tc->btree_opintype)
		return false;
	if (!OidIsValid(get_opfamily_proc(family, left, right, BTORDER_PROC)))
		return false;
	leaf->opfamily = family;
	leaf->strategy = negated ? STRATEGY_NOT_EQUAL : strategy;
	leaf->lefttype = left;
	leaf->righttype = right;
	return true;
}

/* Recognizes a leaf clause; false when it cannot prune. */
static bool
analyze_leaf(Expr *clause, Index relid, TupleDesc desc, LeafInfo *leaf)
{
	Var		   *var;

	memset(leaf, 0, sizeof(*leaf));

	/* a boolean column as a clause ("WHERE b", "WHERE NOT b") is b = const */
	if ((var = prune_column_of((Node *) clause, relid)) != NULL ||
		(is_notclause(clause) &&
		 (var = prune_column_of((Node *) get_notclausearg(clause), relid)) != NULL))
	{
		if (var->varattno > desc->natts || var->vartype != BOOLOID ||
			!operator_info(BooleanEqualOperator, TupleDescAttr(desc, var->varattno - 1),
						   InvalidOid, leaf))
			return false;
		leaf->kind = PRUNE_CMP;
		leaf->attno = var->varattno;
		leaf->value = (Expr *) makeBoolConst(!is_notclause(clause), false);
		return true;
	}
	if (IsA(clause, OpExpr))
	{
		OpExpr	   *op = (OpExpr *) clause;
		Node	   *other;
		Oid			opno = op->opno;

		if (list_length(op->args) != 2)
			return false;
		if ((var = prune_column_of(linitial(op->args), relid)) != NULL)
			other = lsecond(op->args);
		else if ((var = prune_column_of(lsecond(op->args), relid)) != NULL)
		{
			other = linitial(op->args);
			opno = get_commutator(opno);
			if (!OidIsValid(opno))
				return false;
		}
		else
			return false;
		if (var->varattno > desc->natts || !is_pseudo_constant(other))
			return false;
		if (!operator_info(opno, TupleDescAttr(desc, var->varattno - 1),
						   op->inputcollid, leaf))
			return false;
		leaf->kind = PRUNE_CMP;
		leaf->attno = var->varattno;
		leaf->value = (Expr *) other;
		return true;
	}
	if (IsA(clause, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *sa = (ScalarArrayOpExpr *) clause;

		var = prune_column_of(linitial(sa->args), relid);
		if (!sa->useOr || var == NULL || var->varattno > desc->natts ||
			!is_pseudo_constant(lsecond(sa->args)))
			return false;
		if (!operator_info(sa->opno, TupleDescAttr(desc, var->varattno - 1),
						   sa->inputcollid, leaf) ||
			leaf->strategy != BTEqualStrategyNumber)
			return false;
		leaf->kind = PRUNE_IN;
		leaf->attno = var->varattno;
		leaf->value = lsecond(sa->args);
		return true;
	}
	if (IsA(clause, NullTest))
	{
		NullTest   *nt = (NullTest *) clause;

		var = prune_column_of((Node *) nt->arg, relid);
		if (nt->argisrow || var == NULL || var->varattno > desc->natts)
			return false;
		leaf->kind = nt->nulltesttype == IS_NULL ? PRUNE_IS_NULL : PRUNE_IS_NOT_NULL;
		leaf->attno = var->varattno;
		return true;
	}
	return false;
}

static bool
supported(Expr *clause, Index relid, TupleDesc desc)
{
	LeafInfo	leaf;
	ListCell   *lc;

	if (IsA(clause, RestrictInfo))
		clause = ((RestrictInfo *) clause)->clause;
	if (is_andclause(clause))
	{
		foreach(lc, ((BoolExpr *) clause)->args)
			if (supported(lfirst(lc), relid, desc))
				return true;
		return false;
	}
	if (is_orclause(clause))
	{
		foreach(lc, ((BoolExpr *) clause)->args)
			if (!supported(lfirst(lc), relid, desc))
				return false;
		return true;
	}
	return analyze_leaf(clause, relid, desc, &leaf);
}

bool
prune_clause_supported(Expr *clause, Index relid, Relation rel)
{
	return supported(clause, relid, RelationGetDescr(rel));
}

Datum
prune_value(Expr *expr, PlanState *parent, ExprContext *econtext, bool *isnull)
{
	ExprState  *state = ExecInitExpr(expr, parent);
	Datum		value = ExecEvalExprSwitchContext(state, econtext, isnull);
	int16		typlen;
	bool		typbyval;

	if (*isnull)
		return (Datum) 0;
	get_typlenbyval(exprType((Node *) expr), &typlen, &typbyval);
	return datumCopy(value, typbyval, typlen);
}

static PruneNode *
build(Expr *clause, Index relid, TupleDesc desc, PlanState *parent,
	  ExprContext *econtext)
{
	PruneNode  *node;
	LeafInfo	leaf;
	ListCell   *lc;

	if (is_andclause(clause) || is_orclause(clause))
	{
		bool		is_and = is_andclause(clause);

		node = palloc0(sizeof(PruneNode));
		node->kind = is_and ? PRUNE_AND : PRUNE_OR;
		node->complete = true;
		foreach(lc, ((BoolExpr *) clause)->args)
		{
			PruneNode  *child = build(lfirst(lc), relid, desc, parent, econtext);

			if (child == NULL && !is_and)
				return NULL;	/* an OR arm that cannot prune */
			if (child == NULL || !child->complete)
				node->complete = false;
			if (child != NULL)
				node->children = lappend(node->children, child);
		}
		return node->children != NIL ? node : NULL;
	}
	if (!analyze_leaf(clause, relid, desc, &leaf))
		return NULL;

	node = palloc0(sizeof(PruneNode));
	node->kind = leaf.kind;
	node->complete = true;
	node->attno = leaf.attno;
	node->attr = TupleDescAttr(desc, leaf.attno - 1);
	node->strategy = leaf.strategy;
	node->collation = node->attr->attcollation;
	if (leaf.kind == PRUNE_CMP || leaf.kind == PRUNE_IN)
	{
		fmgr_info(get_opfamily_proc(leaf.opfamily, leaf.lefttype, leaf.righttype,
									BTORDER_PROC), &node->cmp);
		node->value = prune_value(leaf.value, parent, econtext, &node->value_isnull);
	}
	if (leaf.kind == PRUNE_IN && !node->value_isnull)
	{
		ArrayType  *arr = DatumGetArrayTypeP(node->value);
		int16		typlen;
		bool		typbyval;
		char		typalign;
		bool	   *nulls;
		int			i;
		int			n = 0;

		get_typlenbyvalalign(ARR_ELEMTYPE(arr), &typlen, &typbyval, &typalign);
		deconstruct_array(arr, ARR_ELEMTYPE(arr), typlen, typbyval, typalign,
						  &node->values, &nulls, &node->nvalues);
		/* NULL elements never compare equal */
		for (i = 0; i < node->nvalues; i++)
			if (!nulls[i])
				node->values[n++] = node->values[i];
		node->nvalues = n;
	}
	return node;
}

PruneNode *
prune_build(List *clauses, Relation rel, TupleDesc desc, PlanState *parent,
			ExprContext *econtext)
{
	Index		relid = ((Scan *) parent->plan)->scanrelid;
	PruneNode  *root;

	if (clauses == NIL)
		return NULL;
	root = build((Expr *) make_ands_explicit(clauses), relid, desc, parent, econtext);
	if (root == NULL)
		return NULL;
	root->cxt = AllocSetContextCreate(CurrentMemoryContext, "zone map pruning",
									  ALLOCSET_SMALL_SIZES);
	return root;
}

static int
compare(PruneNode *n, const bytea *bound, Datum value)
{
	Datum		b = zone_bound_deserialize(bound, n->attr);

	return DatumGetInt32(FunctionCall2Coll(&n->cmp, n->collation, b, value));
}

/* Can no row with a value in [min, max] satisfy "col op value"? */
static bool
cmp_excludes(PruneNode *n, int strategy, const ZoneStats *s, Datum value)
{
	switch (strategy)
	{
		case BTLessStrategyNumber:
			return compare(n, s->min, value) >= 0;
		case BTLessEqualStrategyNumber:
			return compare(n, s->min, value) > 0;
		case BTEqualStrategyNumber:
			return compare(n, s->min, value) > 0 || compare(n, s->max, value) < 0;
		case BTGreaterEqualStrategyNumber:
			return compare(n, s->max, value) < 0;
		case BTGreaterStrategyNumber:
			return compare(n, s->max, value) <= 0;
		case STRATEGY_NOT_EQUAL:
			return compare(n, s->min, value) == 0 && compare(n, s->max, value) == 0;
	}
	return false;
}

static bool
excluded(PruneNode *n, ZoneStatsFn stats_fn, void *zone)
{
	ZoneStats	s;
	ListCell   *lc;
	int			i;

	switch (n->kind)
	{
		case PRUNE_AND:
			foreach(lc, n->children)
				if (excluded(lfirst(lc), stats_fn, zone))
					return true;
			return false;
		case PRUNE_OR:
			foreach(lc, n->children)
				if (!excluded(lfirst(lc), stats_fn, zone))
					return false;
			return true;
		default:
			break;
	}

	if (!stats_fn(zone, n->attno, &s))
		return false;
	switch (n->kind)
	{
		case PRUNE_IS_NULL:
			return s.null_count == 0;
		case PRUNE_IS_NOT_NULL:
			return s.null_count >= s.row_count;
		case PRUNE_CMP:
		case PRUNE_IN:
			/* strict comparisons: NULLs never match */
			if (n->value_isnull || s.null_count >= s.row_count)
				return true;
			if (s.min == NULL || s.max == NULL)
				return false;
			if (n->kind == PRUNE_CMP)
				return cmp_excludes(n, n->strategy, &s, n->value);
			for (i = 0; i < n->nvalues; i++)
				if (!cmp_excludes(n, BTEqualStrategyNumber, &s, n->values[i]))
					return false;
			return true;
		default:
			return false;
	}
}

/* Does every row with a value in [min, max] satisfy "col op value"? */
static bool
cmp_holds(PruneNode *n, int strategy, const ZoneStats *s, Datum value)
{
	switch (strategy)
	{
		case BTLessStrategyNumber:
			return compare(n, s->max, value) < 0;
		case BTLessEqualStrategyNumber:
			return compare(n, s->max, value) <= 0;
		case BTEqualStrategyNumber:
			return compare(n, s->min, value) == 0 && compare(n, s->max, value) == 0;
		case BTGreaterEqualStrategyNumber:
			return compare(n, s->min, value) >= 0;
		case BTGreaterStrategyNumber:
			return compare(n, s->min, value) > 0;
		case STRATEGY_NOT_EQUAL:
			return compare(n, s->max, value) < 0 || compare(n, s->min, value) > 0;
	}
	return false;
}

/* Does every row of the zone satisfy the (complete) clause of n? */
static bool
holds(PruneNode *n, ZoneStatsFn stats_fn, void *zone)
{
	ZoneStats	s;
	ListCell   *lc;
	int			i;

	switch (n->kind)
	{
		case PRUNE_AND:
			foreach(lc, n->children)
				if (!holds(lfirst(lc), stats_fn, zone))
					return false;
			return true;
		case PRUNE_OR:
			foreach(lc, n->children)
				if (holds(lfirst(lc), stats_fn, zone))
					return true;
			return false;
		default:
			break;
	}

	if (!stats_fn(zone, n->attno, &s))
		return false;
	switch (n->kind)
	{
		case PRUNE_IS_NULL:
			return s.null_count >= s.row_count;
		case PRUNE_IS_NOT_NULL:
			return s.null_count == 0;
		case PRUNE_CMP:
		case PRUNE_IN:
			/* strict comparisons: a NULL row does not satisfy them */
			if (n->value_isnull || s.null_count > 0 || s.min == NULL || s.max == NULL)
				return false;
			if (n->kind == PRUNE_CMP)
				return cmp_holds(n, n->strategy, &s, n->value);
			for (i = 0; i < n->nvalues; i++)
				if (cmp_holds(n, BTEqualStrategyNumber, &s, n->values[i]))
					return true;
			return false;
		default:
			return false;
	}
}

bool
prune_complete(PruneNode *root)
{
	return root != NULL && root->complete;
}

/* Runs test on a zone in the root's scratch memory (bounds deserialized). */
static bool
test_zone(PruneNode *root, bool (*test) (PruneNode *, ZoneStatsFn, void *),
		  ZoneStatsFn stats_fn, void *zone)
{
	MemoryContext old = MemoryContextSwitchTo(root->cxt);
	bool		result = test(root, stats_fn, zone);

	MemoryContextSwitchTo(old);
	MemoryContextReset(root->cxt);
	return result;
}

bool
prune_zone_all_match(PruneNode *root, ZoneStatsFn stats_fn, void *zone)
{
	return prune_complete(root) && test_zone(root, holds, stats_fn, zone);
}

bool
prune_zone_excluded(PruneNode *root, ZoneStatsFn stats_fn, void *zone)
{
	return root != NULL && test_zone(root, excluded, stats_fn, zone);
}
