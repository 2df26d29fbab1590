/*-------------------------------------------------------------------------
 *
 * agg_partial.c
 *	  Builds the serialized partial states of sum() and avg() over int8 and
 *	  numeric from a kernel's count and sum, with PostgreSQL's own
 *	  functions, so that its Finalize Aggregate combines them with the
 *	  states of participants that did not vectorize.
 *
 *	  The state of count values adding up to sum is the aggregate's
 *	  transition function applied once, to sum, then serialized with the
 *	  count written over the serialized N: the first field of these states
 *	  (an int64 in network byte order) in every PostgreSQL version we
 *	  build for.  Rather than trust that, the builder checks it the first
 *	  time a backend creates one for an aggregate: the final result of a state built this way must equal the
 *	  final result of the same values passed one by one, else the builder
 *	  refuses and the caller leaves the aggregation to PostgreSQL.
 *
 *	  The transition and serial functions insist on being called from an
 *	  aggregate (AggCheckCallContext): they get an AggState of our own
 *	  whose only set field is the expression context whose memory holds
 *	  the transition state, reset after each build.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "catalog/pg_aggregate.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "nodes/execnodes.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "vector/agg_partial.h"

struct AggStateBuilder
{
	FmgrInfo	transfn;
	FmgrInfo	serialfn;
	FmgrInfo	deserialfn;
	FmgrInfo	finalfn;
	AggState   *context;		/* for AggCheckCallContext */
	ExprContext *econtext;		/* its per-tuple memory holds the states */
};

/* The transition function applied to state (NULL: none yet) and value. */
static Datum
transition(AggStateBuilder *b, Datum state, bool state_null, Datum value)
{
	LOCAL_FCINFO(fcinfo, 2);

	InitFunctionCallInfoData(*fcinfo, &b->transfn, 2, InvalidOid,
							 (Node *) b->context, NULL);
	fcinfo->args[0].value = state;
	fcinfo->args[0].isnull = state_null;
	fcinfo->args[1].value = value;
	fcinfo->args[1].isnull = false;
	return FunctionCallInvoke(fcinfo);
}

static Datum
call_with_context(AggStateBuilder *b, FmgrInfo *fn, Datum arg, int nargs)
{
	LOCAL_FCINFO(fcinfo, 2);

	InitFunctionCallInfoData(*fcinfo, fn, nargs, InvalidOid,
							 (Node *) b->context, NULL);
	fcinfo->args[0].value = arg;
	fcinfo->args[0].isnull = false;
	fcinfo->args[1].value = (Datum) 0;
	fcinfo->args[1].isnull = true;
	return FunctionCallInvoke(fcinfo);
}

Datum
agg_state_builder_build(AggStateBuilder *b, Datum sum, int64 count)
{
	Datum		state = transition(b, (Datum) 0, true, sum);
	bytea	   *serialized;
	uint64		n = pg_hton64((uint64) count);

	serialized = DatumGetByteaPCopy(call_with_context(b, &b->serialfn, state, 1));
	if (VARSIZE(serialized) < VARHDRSZ + sizeof(n))
		elog(ERROR, "serialized aggregate state of %d bytes is too short",
			 (int) VARSIZE(serialized));
	memcpy(VARDATA(serialized), &n, sizeof(n));
	ResetExprContext(b->econtext);
	return PointerGetDatum(serialized);
}

/* The aggregate's final result of a serialized state. */
static Datum
final_of(AggStateBuilder *b, Datum serialized)
{
	Datum		state = call_with_context(b, &b->deserialfn, serialized, 2);

	return call_with_context(b, &b->finalfn, state, 1);
}

/*
 * Does a built state finish as the state of the values themselves?  The
 * values 1, 1, 1, 0, 0: sum 3, average 0.6.
 */
static bool
builder_works(AggStateBuilder *b, Oid input_type)
{
	Datum		one;
	Datum		zero;
	Datum		three;
	Datum		state = (Datum) 0;
	Datum		honest;
	Datum		built;
	int			i;

	if (input_type == INT8OID)
	{
		one = Int64GetDatum(1);
		zero = Int64GetDatum(0);
		three = Int64GetDatum(3);
	}
	else
	{
		one = NumericGetDatum(int64_to_numeric(1));
		zero = NumericGetDatum(int64_to_numeric(0));
		three = NumericGetDatum(int64_to_numeric(3));
	}
	for (i = 0; i < 5; i++)
		state = transition(b, state, i == 0, i < 3 ? one : zero);
	honest = final_of(b, call_with_context(b, &b->serialfn, state, 1));
	built = final_of(b, agg_state_builder_build(b, three, 5));
	return DatumGetBool(DirectFunctionCall2(numeric_eq, honest, built));
}

/*
 * builder_works, once per aggregate and backend: the functions it tests do
 * not change while the server runs, and partial aggregations start in
 * every worker of every parallel query.
 */
#define TESTED_AGGREGATES 8

static bool
tested_works(AggStateBuilder *b, Oid aggfnoid, Oid input_type)
{
	static Oid	tested[TESTED_AGGREGATES];
	static bool works[TESTED_AGGREGATES];
	static int	ntested = 0;
	bool		result;
	int			i;

	for (i = 0; i < ntested; i++)
		if (tested[i] == aggfnoid)
			return works[i];
	result = builder_works(b, input_type);
	ResetExprContext(b->econtext);
	if (ntested < TESTED_AGGREGATES)
	{
		tested[ntested] = aggfnoid;
		works[ntested++] = result;
	}
	return result;
}

AggStateBuilder *
agg_state_builder_create(Oid aggfnoid)
{
	HeapTuple	tuple;
	Form_pg_aggregate agg;
	AggStateBuilder *b;
	Oid		   *argtypes;
	int			nargs;
	Oid			input_type;

	get_func_signature(aggfnoid, &argtypes, &nargs);
	if (nargs != 1 || (argtypes[0] != INT8OID && argtypes[0] != NUMERICOID))
		return NULL;
	input_type = argtypes[0];

	tuple = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggfnoid));
	if (!HeapTupleIsValid(tuple))
		return NULL;
	agg = (Form_pg_aggregate) GETSTRUCT(tuple);
	if (agg->aggtranstype != INTERNALOID || !OidIsValid(agg->aggserialfn) ||
		!OidIsValid(agg->aggdeserialfn) || !OidIsValid(agg->aggfinalfn) ||
		get_func_rettype(agg->aggfinalfn) != NUMERICOID)
	{
		ReleaseSysCache(tuple);
		return NULL;
	}
	b = palloc0(sizeof(AggStateBuilder));
	fmgr_info(agg->aggtransfn, &b->transfn);
	/* called with no state below: only a non-strict function takes that */
	if (b->transfn.fn_strict)
	{
		ReleaseSysCache(tuple);
		return NULL;
	}
	fmgr_info(agg->aggserialfn, &b->serialfn);
	fmgr_info(agg->aggdeserialfn, &b->deserialfn);
	fmgr_info(agg->aggfinalfn, &b->finalfn);
	ReleaseSysCache(tuple);

	b->econtext = CreateStandaloneExprContext();
	b->context = makeNode(AggState);
	b->context->curaggcontext = b->econtext;
	if (!tested_works(b, aggfnoid, input_type))
		return NULL;
	return b;
}
