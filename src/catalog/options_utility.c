/*-------------------------------------------------------------------------
 *
 * options_utility.c
 *	  Lets DDL carry colcompress and rowcompress options in
 *	  pg_class.reloptions: a ProcessUtility hook, and a pair of event
 *	  triggers for the statement during which the library gets loaded.
 *
 *	  PostgreSQL checks a table's reloptions against heap's fixed list, in
 *	  CREATE TABLE, CREATE TABLE AS, CREATE MATERIALIZED VIEW and ALTER
 *	  TABLE ... SET/RESET, whatever the table's access method.  So our
 *	  options are taken out of those statements before PostgreSQL sees them
 *	  (options_before), PostgreSQL runs the rest, and then ours are validated
 *	  and written into pg_class.reloptions by options.c (options_after), in
 *	  the same transaction.
 *
 *	  CREATE (also CREATE TABLE AS under EXPLAIN ANALYZE): our options are
 *	  applied once the relation exists, because the access method it ends up
 *	  with (USING, default_table_access_method, the parent of a partition on
 *	  PostgreSQL 17+) is known only then, and because orderby needs its
 *	  columns.  A table that is not ours gets an "unrecognized parameter"
 *	  error, and the transaction rolls the table back.
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
 *	  Two ways in.  The ProcessUtility hook (chained to the previous one)
 *	  sees every statement once the library is loaded: always, with
 *	  shared_preload_libraries.  Without it the library is loaded on first
 *	  use, which for DDL can be in the middle of the very statement that
 *	  needs it, after ProcessUtility was entered.  For that statement the
 *	  extension's ddl_command_start and ddl_command_end event triggers (which
 *	  load the library by being called) run the same before/after steps on
 *	  the statement in place.  Once the hook is in, the triggers step aside.
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
#include "commands/event_trigger.h"
#include "commands/tablecmds.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "catalog/options.h"

/*
 * What options_before() found, for options_after() to finish once
 * PostgreSQL ran the statement.
 */
typedef struct PendingOptions
{
	Node	   *stmt;			/* event trigger path: the running statement */
	NodeTag		kind;			/* T_CreateStmt (also for CREATE TABLE AS),
								 * T_AlterTableStmt or T_RenameStmt */
	bool		active;			/* anything to do afterwards? */

	/* CREATE TABLE [AS]: the new relation, and our options for it */
	RangeVar   *rv;
	List	   *ours;
	char	   *heap_only;

	/* ALTER TABLE */
	Oid			relid;
	bool		finish_relation;	/* merge and write relid's options */
	List	   *changes;		/* of OptionsChange */
	Datum		stored;			/* relid's reloptions before the statement */
	bool		recheck_children;	/* columns changed, recursively */

	/* RENAME COLUMN */
	char	   *oldname;
	char	   *newname;
} PendingOptions;

static ProcessUtility_hook_type prev_ProcessUtility = NULL;

/* > 0 while a statement runs below our hook: the event triggers step aside */
static int	hook_depth = 0;

/* Event trigger path: statements between ddl_command_start and _end */
static List *pending_stack = NIL;

PG_FUNCTION_INFO_V1(options_ddl_command_start);
PG_FUNCTION_INFO_V1(options_ddl_command_end);

/* ---- Helpers ---- */

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
static char *
first_heap_only(List *defs)
{
	ListCell   *lc;

	foreach(lc, defs)
	{
		DefElem    *def = (DefElem *) lfirst(lc);

		if (def->defnamespace == NULL && options_name_is_heap_only(def->defname))
			return pstrdup(def->defname);
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

/* The CREATE TABLE AS under an EXPLAIN, or NULL. */
static CreateTableAsStmt *
explained_ctas(ExplainStmt *stmt)
{
	Query	   *query = (Query *) stmt->query;

	if (query != NULL && IsA(query, Query) &&
		query->commandType == CMD_UTILITY &&
		query->utilityStmt != NULL &&
		IsA(query->utilityStmt, CreateTableAsStmt))
		return (CreateTableAsStmt *) query->utilityStmt;
	return NULL;
}

static bool
ctas_concerns_us(CreateTableAsStmt *stmt)
{
	return stmt != NULL && stmt->into != NULL &&
		defs_concern_us(stmt->into->options);
}

/*
 * A cheap look at a statement: could it need us?  Everything else goes
 * straight through.
 */
static bool
statement_concerns_us(Node *stmt)
{
	switch (nodeTag(stmt))
	{
		case T_CreateStmt:
			return defs_concern_us(((CreateStmt *) stmt)->options);
		case T_CreateTableAsStmt:
			return ctas_concerns_us((CreateTableAsStmt *) stmt);
		case T_ExplainStmt:
			return ctas_concerns_us(explained_ctas((ExplainStmt *) stmt));
		case T_AlterTableStmt:
			{
				ListCell   *lc;

				foreach(lc, ((AlterTableStmt *) stmt)->cmds)
				{
					switch (((AlterTableCmd *) lfirst(lc))->subtype)
					{
						case AT_SetRelOptions:
						case AT_ResetRelOptions:
						case AT_SetAccessMethod:
						case AT_DropColumn:
						case AT_AlterColumnType:
							return true;
						default:
							break;
					}
				}
				return false;
			}
		case T_RenameStmt:
			return ((RenameStmt *) stmt)->renameType == OBJECT_COLUMN &&
				((RenameStmt *) stmt)->relation != NULL;
		default:
			return false;
	}
}

/* ---- Before PostgreSQL runs the statement ---- */

/*
 * A partitioned table has no storage and so no options; PostgreSQL's own
 * message for that differs between versions, ours does not.
 */
static void
report_partitioned(List *ours, const char *relname)
{
	ereport(ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("cannot set option \"%s\" on partitioned table \"%s\"",
					((DefElem *) linitial(ours))->defname, relname),
			 errdetail("A partitioned table has no storage of its own."),
			 errhint("Set the option on its partitions.")));
}

/*
 * CREATE TABLE [AS]: take our options out of *options.  A partitioned table
 * has no storage and PostgreSQL refuses any option on it with its own clear
 * message, so it is left alone.
 */
static bool
before_create(PendingOptions *p, RangeVar *rv, List **options)
{
	if (!defs_concern_us(*options))
		return false;
	p->kind = T_CreateStmt;
	p->ours = extract_ours(options);
	p->heap_only = first_heap_only(*options);
	p->rv = copyObject(rv);
	/* Only a relation this statement creates gets our options. */
	return !OidIsValid(created_relation(rv));
}

static bool
before_alter(PendingOptions *p, AlterTableStmt *stmt)
{
	List	   *cmds = NIL;
	bool		has_columns = false;
	bool		has_setam = false;
	bool		generic = false;
	const char *target_amname = NULL;
	char	   *heap_only = NULL;
	LOCKMODE	lockmode;
	char		relkind;
	OptionsAm	cur_am;
	OptionsAm	target_am;
	ListCell   *lc;

	p->kind = T_AlterTableStmt;

	/* The statement without our options: new cmd nodes where they differ. */
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);

		switch (cmd->subtype)
		{
			case AT_SetRelOptions:
			case AT_ResetRelOptions:
				{
					List	   *defs = list_copy((List *) cmd->def);
					List	   *ours = extract_ours(&defs);

					if (ours != NIL)
					{
						OptionsChange *change = palloc(sizeof(OptionsChange));

						change->defs = ours;
						change->is_reset = (cmd->subtype == AT_ResetRelOptions);
						p->changes = lappend(p->changes, change);
					}
					if (defs == NIL)
						continue;	/* only ours: the subcommand goes */
					generic = true;
					if (cmd->subtype == AT_SetRelOptions && heap_only == NULL)
						heap_only = first_heap_only(defs);
					if (ours != NIL)
					{
						AlterTableCmd *newcmd = makeNode(AlterTableCmd);

						memcpy(newcmd, cmd, sizeof(AlterTableCmd));
						newcmd->def = (Node *) defs;
						cmd = newcmd;
					}
				}
				break;
			case AT_SetAccessMethod:
				has_setam = true;
				target_amname = cmd->name ? cmd->name : default_table_access_method;
				break;
			case AT_DropColumn:
			case AT_AlterColumnType:
				has_columns = true;
				break;
			default:
				break;
		}
		cmds = lappend(cmds, cmd);
	}

	/* The lookup, lock and ownership check of ALTER TABLE itself. */
	lockmode = AlterTableGetLockLevel(cmds);
	p->relid = AlterTableLookupRelation(stmt, lockmode);
	if (!OidIsValid(p->relid))
		return false;			/* IF EXISTS: PostgreSQL says it skipped */
	p->recheck_children = has_columns && stmt->relation->inh;

	relkind = get_rel_relkind(p->relid);
	if (relkind == RELKIND_PARTITIONED_TABLE)
	{
		foreach(lc, p->changes)
		{
			OptionsChange *change = (OptionsChange *) lfirst(lc);

			if (!change->is_reset)
				report_partitioned(change->defs, get_rel_name(p->relid));
		}
	}
	if (relkind != RELKIND_RELATION && relkind != RELKIND_MATVIEW)
		return p->recheck_children; /* views, ...: PostgreSQL has the last
									 * word on options */

	cur_am = options_am_of_relation(p->relid);
	target_am = cur_am;
	if (has_setam)
	{
		Oid			amoid = get_table_am_oid(target_amname, true);

		if (!OidIsValid(amoid))
			return false;		/* PostgreSQL reports the bad name */
		target_am = options_am_of(amoid);
	}

	if (target_am == OPTIONS_AM_OTHER)
	{
		if (p->changes != NIL)
		{
			OptionsChange *first = (OptionsChange *) linitial(p->changes);

			options_report_foreign(((DefElem *) linitial(first->defs))->defname,
								   OPTIONS_AM_OTHER, p->relid,
								   has_setam ? target_amname : NULL);
		}
		if (cur_am == OPTIONS_AM_OTHER)
			return p->recheck_children;
	}
	else
	{
		options_check_names(p->relid, target_am, p->changes);
		if (heap_only != NULL)
			options_report_foreign(heap_only, target_am, p->relid, NULL);
	}

	/* From here on the statement is ours to rewrite. */
	PreventCommandIfReadOnly(CreateCommandName((Node *) stmt));
	PreventCommandIfParallelMode(CreateCommandName((Node *) stmt));
	stmt->cmds = cmds;
	/* Name the relation we locked, whatever search_path does meanwhile. */
	stmt->relation = copyObject(stmt->relation);
	stmt->relation->catalogname = NULL;
	stmt->relation->schemaname = get_namespace_name(get_rel_namespace(p->relid));
	stmt->relation->relname = get_rel_name(p->relid);
	p->finish_relation = true;

	p->stored = options_read_reloptions(p->relid);
	if (generic)
	{
		/* Refuse bad values before PostgreSQL does any work. */
		if (target_am != OPTIONS_AM_OTHER)
			(void) options_merge(p->relid, target_am, p->stored, p->stored,
								 p->changes,
								 OPTIONS_QUIET | OPTIONS_NO_COLUMN_CHECK);
		/* PostgreSQL is going to re-validate the list: hide ours from it. */
		if (options_reloptions_have_ours(p->stored))
			options_write_reloptions(p->relid,
									 options_merge(p->relid, OPTIONS_AM_OTHER,
												   p->stored, p->stored, NIL,
												   OPTIONS_QUIET));
	}
	else if (target_am != OPTIONS_AM_OTHER)
	{
		/* Validate now, and let a rewrite in this statement use them. */
		options_write_reloptions(p->relid,
								 options_merge(p->relid, target_am, p->stored,
											   p->stored, p->changes,
											   OPTIONS_QUIET |
											   OPTIONS_NO_COLUMN_CHECK |
											   OPTIONS_KEEP_FOREIGN));
	}
	return true;
}

static bool
before_rename(PendingOptions *p, RenameStmt *stmt)
{
	p->kind = T_RenameStmt;
	p->rv = copyObject(stmt->relation);
	p->oldname = pstrdup(stmt->subname);
	p->newname = pstrdup(stmt->newname);
	return true;
}

/*
 * Look at a statement PostgreSQL is about to run, take our options out of
 * it (it must be a private, writable copy) and do what must come first.
 * Returns what is left to do afterwards, or NULL.
 */
static PendingOptions *
options_before(Node *stmt)
{
	PendingOptions *p = palloc0(sizeof(PendingOptions));
	CreateTableAsStmt *ctas;

	switch (nodeTag(stmt))
	{
		case T_CreateStmt:
			{
				CreateStmt *create = (CreateStmt *) stmt;

				if (create->partspec == NULL)
					p->active = before_create(p, create->relation, &create->options);
				else
				{
					List	   *defs = list_copy(create->options);
					List	   *ours = extract_ours(&defs);

					/* heap's options: PostgreSQL refuses them itself */
					if (ours != NIL)
						report_partitioned(ours, create->relation->relname);
				}
			}
			break;
		case T_CreateTableAsStmt:
			ctas = (CreateTableAsStmt *) stmt;
			if (ctas->into != NULL)
				p->active = before_create(p, ctas->into->rel, &ctas->into->options);
			break;
		case T_ExplainStmt:
			/* EXPLAIN ANALYZE creates the table, plain EXPLAIN does not */
			ctas = explained_ctas((ExplainStmt *) stmt);
			if (ctas != NULL && ctas->into != NULL)
				p->active = before_create(p, ctas->into->rel, &ctas->into->options);
			break;
		case T_AlterTableStmt:
			p->active = before_alter(p, (AlterTableStmt *) stmt);
			break;
		case T_RenameStmt:
			if (((RenameStmt *) stmt)->renameType == OBJECT_COLUMN &&
				((RenameStmt *) stmt)->relation != NULL)
				p->active = before_rename(p, (RenameStmt *) stmt);
			break;
		default:
			break;
	}
	if (!p->active)
	{
		pfree(p);
		return NULL;
	}
	return p;
}

/* ---- After PostgreSQL ran it ---- */

static void
after_create(PendingOptions *p)
{
	Oid			relid = created_relation(p->rv);
	OptionsAm	am;

	if (!OidIsValid(relid))
		return;					/* nothing was created */

	am = options_am_of_relation(relid);
	if (am == OPTIONS_AM_OTHER)
	{
		if (p->ours != NIL)
			options_report_foreign(((DefElem *) linitial(p->ours))->defname,
								   OPTIONS_AM_OTHER, relid, NULL);
		return;
	}
	if (p->heap_only != NULL)
		options_report_foreign(p->heap_only, am, relid, NULL);
	if (p->ours != NIL)
	{
		OptionsChange change;

		change.defs = p->ours;
		change.is_reset = false;
		options_alter_relation(relid, am, list_make1(&change));
	}
}

/* Keep orderby in step after columns of relid and its children changed. */
static void
recheck_orderby(Oid relid, Oid skip)
{
	ListCell   *lc;

	foreach(lc, find_all_inheritors(relid, NoLock, NULL))
	{
		if (lfirst_oid(lc) != skip)
			options_orderby_recheck(lfirst_oid(lc));
	}
}

static void
after_alter(PendingOptions *p)
{
	if (p->finish_relation)
		options_write_reloptions(p->relid,
								 options_merge(p->relid,
											   options_am_of_relation(p->relid),
											   p->stored,
											   options_read_reloptions(p->relid),
											   p->changes, 0));
	if (p->recheck_children)
		recheck_orderby(p->relid, p->finish_relation ? p->relid : InvalidOid);
}

static void
after_rename(PendingOptions *p)
{
	Oid			relid = RangeVarGetRelid(p->rv, NoLock, true);
	List	   *rels;
	ListCell   *lc;

	if (!OidIsValid(relid))
		return;
	rels = p->rv->inh ? find_all_inheritors(relid, NoLock, NULL) :
		list_make1_oid(relid);
	foreach(lc, rels)
		options_orderby_rename_column(lfirst_oid(lc), p->oldname, p->newname);
}

static void
options_after(PendingOptions *p)
{
	CommandCounterIncrement();
	switch (p->kind)
	{
		case T_CreateStmt:
			after_create(p);
			break;
		case T_AlterTableStmt:
			after_alter(p);
			break;
		case T_RenameStmt:
			after_rename(p);
			break;
		default:
			elog(ERROR, "unexpected pending options kind %d", (int) p->kind);
	}
}

/* ---- The ProcessUtility hook ---- */

static void
options_process_utility(PlannedStmt *pstmt, const char *queryString,
						bool readOnlyTree, ProcessUtilityContext context,
						ParamListInfo params, QueryEnvironment *queryEnv,
						DestReceiver *dest, QueryCompletion *qc)
{
	PendingOptions *pending = NULL;

	if (statement_concerns_us(pstmt->utilityStmt))
	{
		PlannedStmt *copy = makeNode(PlannedStmt);

		memcpy(copy, pstmt, sizeof(PlannedStmt));
		copy->utilityStmt = copyObject(pstmt->utilityStmt);
		pstmt = copy;
		pending = options_before(pstmt->utilityStmt);
	}

	hook_depth++;
	PG_TRY();
	{
		if (prev_ProcessUtility)
			prev_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
		else
			standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
									params, queryEnv, dest, qc);
	}
	PG_FINALLY();
	{
		hook_depth--;
	}
	PG_END_TRY();

	if (pending != NULL)
		options_after(pending);
}

/* ---- The event triggers, for the statement that loaded the library ---- */

Datum
options_ddl_command_start(PG_FUNCTION_ARGS)
{
	EventTriggerData *trigdata;
	PendingOptions *p = NULL;
	MemoryContext oldcontext;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		elog(ERROR, "options_ddl_command_start: not fired by event trigger manager");
	if (hook_depth > 0)
		PG_RETURN_VOID();		/* the hook has it */

	trigdata = (EventTriggerData *) fcinfo->context;

	/* Lives until ddl_command_end, past this call's memory context. */
	oldcontext = MemoryContextSwitchTo(TopTransactionContext);
	if (statement_concerns_us(trigdata->parsetree))
		p = options_before(trigdata->parsetree);
	if (p == NULL)
		p = palloc0(sizeof(PendingOptions));
	p->stmt = trigdata->parsetree;
	pending_stack = lcons(p, pending_stack);
	MemoryContextSwitchTo(oldcontext);

	PG_RETURN_VOID();
}

Datum
options_ddl_command_end(PG_FUNCTION_ARGS)
{
	EventTriggerData *trigdata;
	MemoryContext oldcontext;
	ListCell   *lc;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		elog(ERROR, "options_ddl_command_end: not fired by event trigger manager");
	if (hook_depth > 0)
		PG_RETURN_VOID();

	trigdata = (EventTriggerData *) fcinfo->context;
	foreach(lc, pending_stack)
	{
		PendingOptions *p = (PendingOptions *) lfirst(lc);

		if (p->stmt != trigdata->parsetree)
			continue;
		/* Entries above it belong to statements that failed. */
		oldcontext = MemoryContextSwitchTo(TopTransactionContext);
		pending_stack = list_copy_tail(pending_stack,
									   foreach_current_index(lc) + 1);
		MemoryContextSwitchTo(oldcontext);
		if (p->active)
			options_after(p);
		break;
	}
	PG_RETURN_VOID();
}

static void
options_xact_callback(XactEvent event, void *arg)
{
	/* The stack lived in TopTransactionContext. */
	pending_stack = NIL;
}

void
options_install_hooks(void)
{
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = options_process_utility;
	RegisterXactCallback(options_xact_callback, NULL);
}
