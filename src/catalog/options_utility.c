/*-------------------------------------------------------------------------
 *
 * options_utility.c
 *	  The ProcessUtility hook that lets DDL carry colcompress and rowcompress
 *	  options in pg_class.reloptions.
 *
 *	  PostgreSQL checks a table's reloptions against heap's fixed list, in
 *	  CREATE TABLE, CREATE TABLE AS, CREATE MATERIALIZED VIEW and ALTER
 *	  TABLE ... SET/RESET, whatever the table's access method.  So this hook
 *	  takes our options out of those statements before PostgreSQL sees them,
 *	  lets PostgreSQL run the rest, and then validates ours and writes them
 *	  into pg_class.reloptions itself (options.c), in the same transaction.
 *
 *	  CREATE (also CREATE TABLE AS under EXPLAIN ANALYZE): our options are
 *	  applied once the relation exists, because the
 *	  access method it ends up with (USING, default_table_access_method, the
 *	  parent of a partition on PostgreSQL 17+) is known only then, and
 *	  because orderby needs its columns.  A table that is not ours gets
 *	  PostgreSQL's "unrecognized parameter" error, and the transaction rolls
 *	  the table back.
 *
 *	  ALTER TABLE on one of our tables: PostgreSQL's SET/RESET re-validates
 *	  the whole merged list, ours included, so while PostgreSQL runs the
 *	  statement's own SET/RESET our stored options are taken out of
 *	  pg_class and put back afterwards.  When there is no such subcommand,
 *	  our new options are written before PostgreSQL runs the statement, so
 *	  that a rewrite in the same statement (SET ACCESS METHOD, a column type
 *	  change) already uses them.  SET ACCESS METHOD keeps the options the
 *	  new access method uses and removes the others.  Dropping, retyping or
 *	  renaming a column keeps orderby in step.
 *
 *	  The hook chains to the previous ProcessUtility_hook.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "commands/defrem.h"
#include "commands/tablecmds.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/lsyscache.h"

#include "catalog/options.h"

static ProcessUtility_hook_type prev_ProcessUtility = NULL;

/* The arguments of one ProcessUtility call, to pass it on. */
typedef struct UtilityCall
{
	PlannedStmt *pstmt;
	const char *queryString;
	bool		readOnlyTree;
	ProcessUtilityContext context;
	ParamListInfo params;
	QueryEnvironment *queryEnv;
	DestReceiver *dest;
	QueryCompletion *qc;
} UtilityCall;

/* Run the statement, or a rewritten copy of it, through the next hook. */
static void
utility_next(UtilityCall *call, Node *stmt)
{
	PlannedStmt *pstmt = call->pstmt;

	if (stmt != NULL)
	{
		pstmt = makeNode(PlannedStmt);
		memcpy(pstmt, call->pstmt, sizeof(PlannedStmt));
		pstmt->utilityStmt = stmt;
	}
	if (prev_ProcessUtility)
		prev_ProcessUtility(pstmt, call->queryString, call->readOnlyTree,
							call->context, call->params, call->queryEnv,
							call->dest, call->qc);
	else
		standard_ProcessUtility(pstmt, call->queryString, call->readOnlyTree,
								call->context, call->params, call->queryEnv,
								call->dest, call->qc);
}

/* Take our options out of *defs and return them. */
static List *
extract_ours(List **defs)
{
	List	   *ours = NIL;
	List	   *rest = NIL;
	ListCell   *lc;

	foreach(lc, *defs)
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		if (def->defnamespace == NULL && options_name_is_ours(def->defname))
			ours = lappend(ours, def);
		else
			rest = lappend(rest, def);
	}
	*defs = rest;
	return ours;
}

/* First of heap's page-layout options in defs, or NULL. */
static const char *
first_heap_only(List *defs)
{
	ListCell   *lc;

	foreach(lc, defs)
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		if (def->defnamespace == NULL && options_name_is_heap_only(def->defname))
			return def->defname;
	}
	return NULL;
}

/* Does a WITH list hold anything this module must look at? */
static bool
defs_concern_us(List *defs)
{
	ListCell   *lc;

	foreach(lc, defs)
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		if (def->defnamespace == NULL &&
			(options_name_is_ours(def->defname) ||
			 options_name_is_heap_only(def->defname)))
			return true;
	}
	return false;
}

static Oid
created_relation(const RangeVar *rv)
{
	return get_relname_relid(rv->relname, RangeVarGetCreationNamespace(rv));
}

/*
 * After CREATE TABLE [AS]: apply our options to the new relation, or refuse
 * them when its access method is not ours.
 */
static void
apply_after_create(const RangeVar *rv, List *ours, const char *heap_only)
{
	Oid			relid;
	OptionsAm	am;

	CommandCounterIncrement();
	relid = created_relation(rv);
	if (!OidIsValid(relid))
		return;					/* nothing was created */

	am = options_am_of_relation(relid);
	if (am == OPTIONS_AM_OTHER)
	{
		if (ours != NIL)
			options_report_foreign(((DefElem *) linitial(ours))->defname,
								   OPTIONS_AM_OTHER, relid, NULL);
		return;
	}
	if (heap_only != NULL)
		options_report_foreign(heap_only, am, relid, NULL);
	if (ours != NIL)
	{
		OptionsChange change;

		change.defs = ours;
		change.is_reset = false;
		options_alter_relation(relid, am, list_make1(&change));
	}
}

static void
process_create_table(UtilityCall *call, CreateStmt *stmt)
{
	CreateStmt *copy;
	List	   *ours;
	const char *heap_only;
	bool		existed;

	/*
	 * A partitioned table has no storage and PostgreSQL refuses any option
	 * on it, with its own clear message.
	 */
	if (stmt->partspec != NULL || !defs_concern_us(stmt->options))
	{
		utility_next(call, NULL);
		return;
	}

	copy = copyObject(stmt);
	ours = extract_ours(&copy->options);
	heap_only = first_heap_only(copy->options);
	existed = OidIsValid(created_relation(stmt->relation));

	utility_next(call, (Node *) copy);

	if (!existed)
		apply_after_create(stmt->relation, ours, heap_only);
}

static bool
ctas_concerns_us(CreateTableAsStmt *stmt)
{
	return stmt->into != NULL && defs_concern_us(stmt->into->options);
}

/*
 * CREATE TABLE AS, SELECT INTO, CREATE MATERIALIZED VIEW, on their own
 * (explain == NULL) or under EXPLAIN ANALYZE, which creates the table too.
 */
static void
process_create_table_as(UtilityCall *call, CreateTableAsStmt *stmt,
						ExplainStmt *explain)
{
	CreateTableAsStmt *copy;
	Node	   *run;
	List	   *ours;
	const char *heap_only;
	bool		existed;

	if (explain != NULL)
	{
		ExplainStmt *ecopy = copyObject(explain);

		copy = (CreateTableAsStmt *) ((Query *) ecopy->query)->utilityStmt;
		run = (Node *) ecopy;
	}
	else
	{
		copy = copyObject(stmt);
		run = (Node *) copy;
	}
	ours = extract_ours(&copy->into->options);
	heap_only = first_heap_only(copy->into->options);
	existed = OidIsValid(created_relation(stmt->into->rel));

	utility_next(call, run);

	/* Plain EXPLAIN creates nothing, and then there is nothing to do. */
	if (!existed)
		apply_after_create(stmt->into->rel, ours, heap_only);
}

/* Keep orderby in step after columns of relid (and its children) changed. */
static void
recheck_orderby(Oid relid, bool recurse, Oid skip)
{
	List	   *rels;
	ListCell   *lc;

	rels = recurse ? find_all_inheritors(relid, NoLock, NULL) : list_make1_oid(relid);
	foreach(lc, rels)
	{
		if (lfirst_oid(lc) != skip)
			options_orderby_recheck(lfirst_oid(lc));
	}
}

static void
process_alter_table(UtilityCall *call, AlterTableStmt *stmt)
{
	AlterTableStmt *copy;
	List	   *changes = NIL;
	List	   *cmds = NIL;
	bool		concerns_us = false;
	bool		has_columns = false;
	bool		has_setam = false;
	bool		generic = false;
	const char *target_amname = NULL;
	const char *heap_only = NULL;
	LOCKMODE	lockmode;
	Oid			relid;
	char		relkind;
	OptionsAm	cur_am;
	OptionsAm	target_am;
	Datum		stored;
	bool		recurse = stmt->relation->inh;
	ListCell   *lc;

	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);

		switch (cmd->subtype)
		{
			case AT_SetRelOptions:
			case AT_ResetRelOptions:
			case AT_SetAccessMethod:
				concerns_us = true;
				break;
			case AT_DropColumn:
			case AT_AlterColumnType:
				concerns_us = true;
				has_columns = true;
				break;
			default:
				break;
		}
	}
	if (!concerns_us)
	{
		utility_next(call, NULL);
		return;
	}

	/* Our options out of a copy of the statement. */
	copy = copyObject(stmt);
	foreach(lc, copy->cmds)
	{
		AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);

		if (cmd->subtype == AT_SetRelOptions || cmd->subtype == AT_ResetRelOptions)
		{
			List	   *defs = (List *) cmd->def;
			List	   *ours = extract_ours(&defs);

			if (ours != NIL)
			{
				OptionsChange *change = palloc(sizeof(OptionsChange));

				change->defs = ours;
				change->is_reset = (cmd->subtype == AT_ResetRelOptions);
				changes = lappend(changes, change);
			}
			if (defs == NIL)
				continue;		/* only ours: the subcommand goes */
			cmd->def = (Node *) defs;
			generic = true;
			if (cmd->subtype == AT_SetRelOptions && heap_only == NULL)
				heap_only = first_heap_only(defs);
		}
		else if (cmd->subtype == AT_SetAccessMethod)
		{
			has_setam = true;
			target_amname = cmd->name ? cmd->name : default_table_access_method;
		}
		cmds = lappend(cmds, cmd);
	}
	copy->cmds = cmds;

	/* Same lookup, lock and ownership check as ALTER TABLE itself. */
	lockmode = AlterTableGetLockLevel(copy->cmds);
	relid = AlterTableLookupRelation(stmt, lockmode);
	if (!OidIsValid(relid))
	{
		utility_next(call, NULL);	/* IF EXISTS: PostgreSQL says it skipped */
		return;
	}

	relkind = get_rel_relkind(relid);
	if (relkind != RELKIND_RELATION && relkind != RELKIND_MATVIEW)
	{
		/* Partitioned tables, views, ...: PostgreSQL has the last word. */
		utility_next(call, NULL);
		if (has_columns && recurse)
			recheck_orderby(relid, true, InvalidOid);
		return;
	}

	cur_am = options_am_of_relation(relid);
	target_am = cur_am;
	if (has_setam)
	{
		Oid			amoid = get_table_am_oid(target_amname, true);

		if (!OidIsValid(amoid))
		{
			utility_next(call, NULL);	/* PostgreSQL reports the bad name */
			return;
		}
		target_am = options_am_of(amoid);
	}

	if (target_am == OPTIONS_AM_OTHER)
	{
		if (changes != NIL)
			options_report_foreign(((DefElem *) linitial(((OptionsChange *) linitial(changes))->defs))->defname,
								   OPTIONS_AM_OTHER, relid,
								   has_setam ? target_amname : NULL);
		if (cur_am == OPTIONS_AM_OTHER)
		{
			utility_next(call, NULL);
			if (has_columns && recurse)
				recheck_orderby(relid, true, InvalidOid);
			return;
		}
	}
	else
	{
		options_check_names(relid, target_am, changes);
		if (heap_only != NULL)
			options_report_foreign(heap_only, target_am, relid, NULL);
	}

	/* We may write the catalog before PostgreSQL gets to check this. */
	PreventCommandIfReadOnly(CreateCommandName((Node *) stmt));
	PreventCommandIfParallelMode(CreateCommandName((Node *) stmt));

	stored = options_read_reloptions(relid);
	if (generic)
	{
		/* PostgreSQL is going to re-validate the list: hide ours from it. */
		if (options_reloptions_have_ours(stored))
			options_write_reloptions(relid,
									 options_merge(relid, OPTIONS_AM_OTHER,
												   stored, stored, NIL,
												   OPTIONS_QUIET));
	}
	else if (target_am != OPTIONS_AM_OTHER)
	{
		/* Validate now, and let a rewrite in this statement use them. */
		options_write_reloptions(relid,
								 options_merge(relid, target_am, stored, stored,
											   changes,
											   OPTIONS_QUIET |
											   OPTIONS_NO_COLUMN_CHECK |
											   OPTIONS_KEEP_FOREIGN));
	}

	if (copy->cmds != NIL)
	{
		/* Name the relation we locked, whatever search_path does meanwhile. */
		copy->relation->schemaname = get_namespace_name(get_rel_namespace(relid));
		copy->relation->relname = get_rel_name(relid);
		copy->relation->catalogname = NULL;
		utility_next(call, (Node *) copy);
		CommandCounterIncrement();
	}

	options_write_reloptions(relid,
							 options_merge(relid, options_am_of_relation(relid),
										   stored,
										   options_read_reloptions(relid),
										   changes, 0));

	if (has_columns && recurse)
		recheck_orderby(relid, true, relid);
}

static void
process_rename(UtilityCall *call, RenameStmt *stmt)
{
	RangeVar   *rv;
	char	   *oldname;
	char	   *newname;
	Oid			relid;
	List	   *rels;
	ListCell   *lc;

	if (stmt->renameType != OBJECT_COLUMN || stmt->relation == NULL)
	{
		utility_next(call, NULL);
		return;
	}

	rv = copyObject(stmt->relation);
	oldname = pstrdup(stmt->subname);
	newname = pstrdup(stmt->newname);

	utility_next(call, NULL);

	relid = RangeVarGetRelid(rv, NoLock, true);
	if (!OidIsValid(relid))
		return;
	CommandCounterIncrement();
	rels = rv->inh ? find_all_inheritors(relid, NoLock, NULL) : list_make1_oid(relid);
	foreach(lc, rels)
		options_orderby_rename_column(lfirst_oid(lc), oldname, newname);
}

static void
options_process_utility(PlannedStmt *pstmt, const char *queryString,
						bool readOnlyTree, ProcessUtilityContext context,
						ParamListInfo params, QueryEnvironment *queryEnv,
						DestReceiver *dest, QueryCompletion *qc)
{
	UtilityCall call;
	Node	   *parsetree = pstmt->utilityStmt;

	call.pstmt = pstmt;
	call.queryString = queryString;
	call.readOnlyTree = readOnlyTree;
	call.context = context;
	call.params = params;
	call.queryEnv = queryEnv;
	call.dest = dest;
	call.qc = qc;

	switch (nodeTag(parsetree))
	{
		case T_CreateStmt:
			process_create_table(&call, (CreateStmt *) parsetree);
			break;
		case T_CreateTableAsStmt:
			if (ctas_concerns_us((CreateTableAsStmt *) parsetree))
				process_create_table_as(&call, (CreateTableAsStmt *) parsetree,
										NULL);
			else
				utility_next(&call, NULL);
			break;
		case T_ExplainStmt:
			{
				Query	   *query = (Query *) ((ExplainStmt *) parsetree)->query;

				if (IsA(query, Query) && query->commandType == CMD_UTILITY &&
					IsA(query->utilityStmt, CreateTableAsStmt) &&
					ctas_concerns_us((CreateTableAsStmt *) query->utilityStmt))
					process_create_table_as(&call,
											(CreateTableAsStmt *) query->utilityStmt,
											(ExplainStmt *) parsetree);
				else
					utility_next(&call, NULL);
			}
			break;
		case T_AlterTableStmt:
			process_alter_table(&call, (AlterTableStmt *) parsetree);
			break;
		case T_RenameStmt:
			process_rename(&call, (RenameStmt *) parsetree);
			break;
		default:
			utility_next(&call, NULL);
			break;
	}
}

void
options_install_hooks(void)
{
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = options_process_utility;
}
