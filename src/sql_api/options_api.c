/*-------------------------------------------------------------------------
 *
 * options_api.c
 *	  SQL functions over the per-table options of colcompress and
 *	  rowcompress tables:
 *
 *	    engine.alter_colcompress_table_set / _reset
 *	    engine.alter_rowcompress_table_set / _reset
 *	    engine.colcompress_table_options / engine.rowcompress_table_options
 *	      (behind the views engine.colcompress_options and
 *	      engine.rowcompress_options)
 *
 *	  They only translate arguments: validation, defaults and the pg_class
 *	  update are options.c's, the same code ALTER TABLE goes through.  The
 *	  set/reset functions are the equivalent of ALTER TABLE ... SET/RESET
 *	  and need the same privilege, ownership of the table.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "catalog/options.h"
#include "codec/codec.h"

PG_FUNCTION_INFO_V1(options_api_alter_colcompress_table_set);
PG_FUNCTION_INFO_V1(options_api_alter_colcompress_table_reset);
PG_FUNCTION_INFO_V1(options_api_alter_rowcompress_table_set);
PG_FUNCTION_INFO_V1(options_api_alter_rowcompress_table_reset);
PG_FUNCTION_INFO_V1(options_api_colcompress_table_options);
PG_FUNCTION_INFO_V1(options_api_rowcompress_table_options);

/* Arguments after table_name, in the order of the SQL signatures. */
typedef struct OptionArg
{
	const char *name;
	Oid			type;			/* of the _set function's argument */
} OptionArg;

static const OptionArg colcompress_args[] = {
	{"chunk_group_row_limit", INT4OID},
	{"stripe_row_limit", INT4OID},
	{"compression", NAMEOID},
	{"compression_level", INT4OID},
	{"orderby", TEXTOID},
	{"index_scan", BOOLOID},
};
static const OptionArg rowcompress_args[] = {
	{"batch_size", INT4OID},
	{"compression", NAMEOID},
	{"compression_level", INT4OID},
};

static void
check_table_of_am(Oid relid, OptionsAm am)
{
	if (options_am_of_relation(relid) != am)
	{
		HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
		Oid			relam = InvalidOid;
		char	   *amname;

		if (HeapTupleIsValid(tuple))
		{
			relam = ((Form_pg_class) GETSTRUCT(tuple))->relam;
			ReleaseSysCache(tuple);
		}
		amname = OidIsValid(relam) ? get_am_name(relam) : NULL;
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("table \"%s\" is not a %s table",
						get_rel_name(relid), options_am_name(am)),
				 amname ? errdetail("It uses access method \"%s\".", amname) :
				 errdetail("It has no table access method."),
				 errhint("Use ALTER TABLE ... SET ACCESS METHOD %s to convert it.",
						 options_am_name(am))));
	}
}

/*
 * The checks of ALTER TABLE: a writable transaction, ownership, then a lock
 * (ownership first, so that nobody queues a lock on a table they may not
 * alter), then the access method.
 */
static void
lock_table_for_alter(Oid relid, OptionsAm am, const char *funcname)
{
	PreventCommandIfReadOnly(funcname);
	PreventCommandIfParallelMode(funcname);

	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (!object_ownercheck(RelationRelationId, relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER,
					   get_relkind_objtype(get_rel_relkind(relid)),
					   get_rel_name(relid));

	LockRelationOid(relid, ShareUpdateExclusiveLock);
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	check_table_of_am(relid, am);
}

/* Argument argno of a _set function as the value of a SET list. */
static Node *
arg_value(FunctionCallInfo fcinfo, int argno, Oid argtype)
{
	Datum		arg = PG_GETARG_DATUM(argno);

	switch (argtype)
	{
		case INT4OID:
			return (Node *) makeString(psprintf("%d", DatumGetInt32(arg)));
		case BOOLOID:
			return (Node *) makeString(pstrdup(DatumGetBool(arg) ? "true" : "false"));
		case NAMEOID:
			return (Node *) makeString(pstrdup(NameStr(*DatumGetName(arg))));
		case TEXTOID:
			return (Node *) makeString(TextDatumGetCString(arg));
		default:
			elog(ERROR, "unexpected argument type %u", argtype);
	}
	return NULL;				/* keep compiler quiet */
}

static void
alter_table_options(FunctionCallInfo fcinfo, OptionsAm am, bool is_reset,
					const OptionArg *args, int nargs,
					const char *funcname)
{
	Oid			relid;
	OptionsChange change;
	int			i;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("table_name must not be null")));
	relid = PG_GETARG_OID(0);
	lock_table_for_alter(relid, am, funcname);

	change.defs = NIL;
	change.is_reset = is_reset;
	for (i = 0; i < nargs; i++)
	{
		int			argno = i + 1;

		if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
			continue;
		if (is_reset)
		{
			if (PG_GETARG_BOOL(argno))
				change.defs = lappend(change.defs,
									  makeDefElem(pstrdup(args[i].name), NULL, -1));
		}
		else
			change.defs = lappend(change.defs,
								  makeDefElem(pstrdup(args[i].name),
											  arg_value(fcinfo, argno, args[i].type),
											  -1));
	}
	if (change.defs != NIL)
		options_alter_relation(relid, am, list_make1(&change));
}

Datum
options_api_alter_colcompress_table_set(PG_FUNCTION_ARGS)
{
	alter_table_options(fcinfo, OPTIONS_AM_COLCOMPRESS, false,
						colcompress_args, lengthof(colcompress_args),
						"engine.alter_colcompress_table_set()");
	PG_RETURN_VOID();
}

Datum
options_api_alter_colcompress_table_reset(PG_FUNCTION_ARGS)
{
	alter_table_options(fcinfo, OPTIONS_AM_COLCOMPRESS, true,
						colcompress_args, lengthof(colcompress_args),
						"engine.alter_colcompress_table_reset()");
	PG_RETURN_VOID();
}

Datum
options_api_alter_rowcompress_table_set(PG_FUNCTION_ARGS)
{
	alter_table_options(fcinfo, OPTIONS_AM_ROWCOMPRESS, false,
						rowcompress_args, lengthof(rowcompress_args),
						"engine.alter_rowcompress_table_set()");
	PG_RETURN_VOID();
}

Datum
options_api_alter_rowcompress_table_reset(PG_FUNCTION_ARGS)
{
	alter_table_options(fcinfo, OPTIONS_AM_ROWCOMPRESS, true,
						rowcompress_args, lengthof(rowcompress_args),
						"engine.alter_rowcompress_table_reset()");
	PG_RETURN_VOID();
}

static Datum
name_datum(const char *s)
{
	Name		name = (Name) palloc0(NAMEDATALEN);

	namestrcpy(name, s);
	return NameGetDatum(name);
}

static Datum
make_result(FunctionCallInfo fcinfo, Datum *values, bool *nulls)
{
	TupleDesc	tupdesc;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	return HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
}

/*
 * Effective options of one table, defaults filled in.  NULL when the table
 * was dropped after the calling view read pg_class.
 */
Datum
options_api_colcompress_table_options(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	ColcompressOptions opts;
	Datum		values[6];
	bool		nulls[6] = {0};

	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		PG_RETURN_NULL();
	check_table_of_am(relid, OPTIONS_AM_COLCOMPRESS);
	colcompress_options_get(relid, &opts);

	values[0] = Int32GetDatum(opts.chunk_group_row_limit);
	values[1] = Int32GetDatum(opts.stripe_row_limit);
	values[2] = name_datum(codec_by_id(opts.codec)->name);
	values[3] = Int32GetDatum(opts.compression_level);
	if (opts.orderby != NULL)
		values[4] = CStringGetTextDatum(opts.orderby);
	else
		nulls[4] = true;
	values[5] = BoolGetDatum(opts.index_scan);
	PG_RETURN_DATUM(make_result(fcinfo, values, nulls));
}

Datum
options_api_rowcompress_table_options(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	RowcompressOptions opts;
	Datum		values[3];
	bool		nulls[3] = {0};

	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		PG_RETURN_NULL();
	check_table_of_am(relid, OPTIONS_AM_ROWCOMPRESS);
	rowcompress_options_get(relid, &opts);

	values[0] = Int32GetDatum(opts.batch_size);
	values[1] = name_datum(codec_by_id(opts.codec)->name);
	values[2] = Int32GetDatum(opts.compression_level);
	PG_RETURN_DATUM(make_result(fcinfo, values, nulls));
}
