/*-------------------------------------------------------------------------
 *
 * options.c
 *	  The one place that knows the per-table options of colcompress and
 *	  rowcompress: their names, which access method uses each, how values
 *	  are parsed, validated and normalized, their defaults, and how they are
 *	  stored in pg_class.reloptions.
 *
 *	  Why reloptions: PostgreSQL already carries them through pg_dump,
 *	  pg_upgrade, VACUUM FULL, CLUSTER, table rewrites and \d+, inside the
 *	  same transaction as the DDL that sets them.  PostgreSQL itself only
 *	  validates them against heap's fixed list, so the statements that set
 *	  them are intercepted (options_utility.c) and everything that writes
 *	  them goes through options_merge() and options_write_reloptions()
 *	  below: one validation, one catalog update, for the DDL hook and the
 *	  SQL functions alike.
 *
 *	  Stored form: "name=value" entries with normalized values (codec name
 *	  in lower case, integers in decimal, booleans as true/false, orderby as
 *	  'col ASC, other DESC NULLS LAST'), our entries after PostgreSQL's own
 *	  in a fixed order, so that dumps and \d+ are stable.
 *
 *	  Readers (colcompress_options_get, rowcompress_options_get) parse the
 *	  stored entries again and fill in defaults; they ignore the entries of
 *	  the other access method, which a table keeps while ALTER TABLE ... SET
 *	  ACCESS METHOD rewrites it.
 *
 *-------------------------------------------------------------------------
 */
#include "compat/compat.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/heap.h"
#include "catalog/indexing.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "lib/stringinfo.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "parser/scansup.h"
#include "storage/lmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "catalog/options.h"
#include "codec/codec.h"

/* ---- The option table ---- */

typedef enum OptionKind
{
	OPTION_INT,					/* integer within [min_value, max_value] */
	OPTION_BOOL,
	OPTION_CODEC,				/* codec name */
	OPTION_LEVEL,				/* integer checked against the codec */
	OPTION_ORDERBY				/* 'col [ASC|DESC] [NULLS FIRST|LAST], ...' */
} OptionKind;

typedef enum OptionIndex
{
	OPT_COMPRESSION,
	OPT_COMPRESSION_LEVEL,
	OPT_STRIPE_ROW_LIMIT,
	OPT_CHUNK_GROUP_ROW_LIMIT,
	OPT_ORDERBY,
	OPT_INDEX_SCAN,
	OPT_BATCH_SIZE,
	OPT_COUNT
} OptionIndex;

#define AM_BIT(am)	(1 << (am))
#define COL			AM_BIT(OPTIONS_AM_COLCOMPRESS)
#define ROW			AM_BIT(OPTIONS_AM_ROWCOMPRESS)

typedef struct OptionDef
{
	const char *name;
	OptionKind	kind;
	int			ams;			/* AM_BIT()s of the access methods using it */
	int32		min_value;		/* OPTION_INT only */
	int32		max_value;
} OptionDef;

/* The order of this table is the order options are stored in. */
static const OptionDef option_defs[OPT_COUNT] = {
	[OPT_COMPRESSION] = {"compression", OPTION_CODEC, COL | ROW},
	[OPT_COMPRESSION_LEVEL] = {"compression_level", OPTION_LEVEL, COL | ROW},
	[OPT_STRIPE_ROW_LIMIT] = {"stripe_row_limit", OPTION_INT, COL,
		COLCOMPRESS_MIN_STRIPE_ROW_LIMIT, COLCOMPRESS_MAX_STRIPE_ROW_LIMIT},
	[OPT_CHUNK_GROUP_ROW_LIMIT] = {"chunk_group_row_limit", OPTION_INT, COL,
		COLCOMPRESS_MIN_CHUNK_GROUP_ROW_LIMIT, COLCOMPRESS_MAX_CHUNK_GROUP_ROW_LIMIT},
	[OPT_ORDERBY] = {"orderby", OPTION_ORDERBY, COL},
	[OPT_INDEX_SCAN] = {"index_scan", OPTION_BOOL, COL},
	[OPT_BATCH_SIZE] = {"batch_size", OPTION_INT, ROW,
		ROWCOMPRESS_MIN_BATCH_SIZE, ROWCOMPRESS_MAX_BATCH_SIZE},
};

/*
 * Heap's options that describe heap pages and so mean nothing on our
 * tables.  Heap's other options (autovacuum_*, parallel_workers,
 * vacuum_truncate, ...) act on VACUUM, autovacuum and the planner, which
 * work the same for every access method, and are accepted.
 */
static const char *const heap_only_options[] = {
	"fillfactor",
	"toast_tuple_target",
	"user_catalog_table",
};

/* One item of an orderby list. */
typedef struct OrderbyItem
{
	char	   *column;
	bool		descending;
	bool		nulls_first;
} OrderbyItem;

/* Parsed values of our options; isset[i] false means "default". */
typedef struct OptionValues
{
	bool		isset[OPT_COUNT];
	int32		value[OPT_COUNT];	/* INT, BOOL (0/1), CODEC (CodecId),
									 * LEVEL */
	List	   *orderby;		/* of OrderbyItem */
} OptionValues;

/* Why an orderby column cannot be used. */
typedef enum OrderbyProblem
{
	ORDERBY_OK,
	ORDERBY_NO_COLUMN,
	ORDERBY_SYSTEM_COLUMN,
	ORDERBY_NOT_SORTABLE
} OrderbyProblem;

static int
option_lookup(const char *name)
{
	int			i;

	for (i = 0; i < OPT_COUNT; i++)
		if (strcmp(option_defs[i].name, name) == 0)
			return i;
	return -1;
}

static bool
option_used_by(int opt, OptionsAm am)
{
	return am != OPTIONS_AM_OTHER && (option_defs[opt].ams & AM_BIT(am)) != 0;
}

bool
options_name_is_ours(const char *name)
{
	return option_lookup(name) >= 0;
}

bool
options_name_is_heap_only(const char *name)
{
	int			i;

	for (i = 0; i < lengthof(heap_only_options); i++)
		if (strcmp(heap_only_options[i], name) == 0)
			return true;
	return false;
}

/* ---- Access methods ---- */

const char *
options_am_name(OptionsAm am)
{
	switch (am)
	{
		case OPTIONS_AM_COLCOMPRESS:
			return "colcompress";
		case OPTIONS_AM_ROWCOMPRESS:
			return "rowcompress";
		case OPTIONS_AM_OTHER:
			break;
	}
	return "heap";
}

OptionsAm
options_am_of(Oid amoid)
{
	char	   *amname;

	if (!OidIsValid(amoid))
		return OPTIONS_AM_OTHER;
	amname = get_am_name(amoid);
	if (amname == NULL)
		return OPTIONS_AM_OTHER;
	if (strcmp(amname, "colcompress") == 0)
		return OPTIONS_AM_COLCOMPRESS;
	if (strcmp(amname, "rowcompress") == 0)
		return OPTIONS_AM_ROWCOMPRESS;
	return OPTIONS_AM_OTHER;
}

/*
 * Only tables and materialized views carry options; a partitioned table
 * whose relam names one of our access methods (PostgreSQL 17+) has no
 * storage and takes no options, like PostgreSQL's own.
 */
OptionsAm
options_am_of_relation(Oid relid)
{
	HeapTuple	tuple;
	Form_pg_class classform;
	OptionsAm	am = OPTIONS_AM_OTHER;

	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		return OPTIONS_AM_OTHER;
	classform = (Form_pg_class) GETSTRUCT(tuple);
	if (classform->relkind == RELKIND_RELATION ||
		classform->relkind == RELKIND_MATVIEW)
		am = options_am_of(classform->relam);
	ReleaseSysCache(tuple);
	return am;
}

/* Name of a relation's access method, for messages. */
static char *
relation_am_name(Oid relid)
{
	HeapTuple	tuple;
	char	   *name = NULL;

	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (HeapTupleIsValid(tuple))
	{
		Oid			relam = ((Form_pg_class) GETSTRUCT(tuple))->relam;

		if (OidIsValid(relam))
			name = get_am_name(relam);
		ReleaseSysCache(tuple);
	}
	return name ? name : pstrdup("none");
}

/* "compression, compression_level, ..." for access method am. */
static char *
option_names_of(OptionsAm am)
{
	StringInfoData buf;
	int			i;

	initStringInfo(&buf);
	for (i = 0; i < OPT_COUNT; i++)
	{
		if (!option_used_by(i, am))
			continue;
		if (buf.len > 0)
			appendStringInfoString(&buf, ", ");
		appendStringInfoString(&buf, option_defs[i].name);
	}
	return buf.data;
}

/* "access method "colcompress"" or "access methods "colcompress" ..." */
static char *
option_ams_text(int opt)
{
	if ((option_defs[opt].ams & COL) && (option_defs[opt].ams & ROW))
		return pstrdup("access methods \"colcompress\" and \"rowcompress\"");
	return psprintf("access method \"%s\"",
					options_am_name((option_defs[opt].ams & COL) ?
									OPTIONS_AM_COLCOMPRESS :
									OPTIONS_AM_ROWCOMPRESS));
}

void
options_report_foreign(const char *name, OptionsAm am, Oid relid,
					   const char *amname)
{
	int			opt = option_lookup(name);
	char	   *relname = get_rel_name(relid);

	if (relname == NULL)
		relname = psprintf("%u", relid);

	if (am == OPTIONS_AM_OTHER)
	{
		if (opt < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unrecognized parameter \"%s\"", name)));
		if (amname != NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unrecognized parameter \"%s\"", name),
					 errdetail("Parameter \"%s\" applies to tables of %s; table \"%s\" is being changed to access method \"%s\".",
							   name, option_ams_text(opt), relname, amname),
					 errhint("A table that changes to another access method loses the options of colcompress and rowcompress; leave them out of this statement.")));
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unrecognized parameter \"%s\"", name),
				 errdetail("Parameter \"%s\" applies to tables of %s; table \"%s\" uses access method \"%s\".",
						   name, option_ams_text(opt), relname,
						   relation_am_name(relid)),
				 errhint("Create the table with USING colcompress or USING rowcompress, or change it with ALTER TABLE ... SET ACCESS METHOD.")));
	}

	if (options_name_is_heap_only(name))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("parameter \"%s\" is not supported by access method \"%s\"",
						name, options_am_name(am)),
				 errdetail("Parameter \"%s\" sets the page layout of heap tables; table \"%s\" does not use heap pages.",
						   name, relname),
				 errhint("Parameters of access method \"%s\" are: %s.",
						 options_am_name(am), option_names_of(am))));

	if (opt < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unrecognized parameter \"%s\"", name),
				 errhint("Parameters of access method \"%s\" are: %s.",
						 options_am_name(am), option_names_of(am))));

	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unrecognized parameter \"%s\"", name),
			 errdetail("Parameter \"%s\" applies to tables of %s; table \"%s\" uses access method \"%s\".",
					   name, option_ams_text(opt), relname, options_am_name(am)),
			 errhint("Parameters of access method \"%s\" are: %s.",
					 options_am_name(am), option_names_of(am))));
}

void
options_check_names(Oid relid, OptionsAm am, List *changes)
{
	ListCell   *lc;

	foreach(lc, changes)
	{
		OptionsChange *change = (OptionsChange *) lfirst(lc);
		ListCell   *ld;

		foreach(ld, change->defs)
		{
			DefElem    *def = (DefElem *) lfirst(ld);
			int			opt = option_lookup(def->defname);

			if (def->defnamespace != NULL || opt < 0 || !option_used_by(opt, am))
				options_report_foreign(def->defname, am, relid, NULL);
		}
	}
}

/* ---- Codecs ---- */

/* "none, pglz, zstd": the codecs this build can use. */
static char *
available_codecs(void)
{
	StringInfoData buf;
	const Codec *codec;
	int			id;

	initStringInfo(&buf);
	for (id = 0; (codec = codec_by_id(id)) != NULL; id++)
	{
		if (!codec->available)
			continue;
		if (buf.len > 0)
			appendStringInfoString(&buf, ", ");
		appendStringInfoString(&buf, codec->name);
	}
	return buf.data;
}

static const Codec *
codec_or_default(const OptionValues *vals)
{
	int			id = vals->isset[OPT_COMPRESSION] ?
		vals->value[OPT_COMPRESSION] : OPTIONS_DEFAULT_CODEC;
	const Codec *codec = codec_by_id(id);

	if (codec == NULL)
		elog(ERROR, "unknown codec id %d", id);
	return codec;
}

/* ---- orderby: parsing, printing, resolving ---- */

static void
orderby_syntax_error(const char *input, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value for option \"orderby\": \"%s\"", input),
			 errdetail("%s", detail),
			 errhint("Write orderby as 'column [ASC | DESC] [NULLS FIRST | NULLS LAST], ...'.")));
}

static bool
orderby_ident_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
		c >= 0x80;
}

static bool
orderby_ident_cont(unsigned char c)
{
	return orderby_ident_start(c) || (c >= '0' && c <= '9') || c == '$';
}

/*
 * Next word of an orderby list: an identifier (folded to lower case, like
 * the SQL parser does) or a quoted identifier.  Returns NULL at the end of
 * the input or at a comma; *quoted tells the two kinds apart.
 */
static char *
orderby_next_word(const char *input, const char **pp, bool *quoted, int *pos)
{
	const char *p = *pp;
	char	   *word;

	while (scanner_isspace(*p))
		p++;
	*quoted = false;
	*pos = (int) (p - input) + 1;
	if (*p == '\0' || *p == ',')
	{
		*pp = p;
		return NULL;
	}
	if (*p == '"')
	{
		StringInfoData buf;

		initStringInfo(&buf);
		p++;
		for (;;)
		{
			if (*p == '\0')
				orderby_syntax_error(input, "A quoted identifier is not terminated.");
			if (*p == '"')
			{
				if (p[1] != '"')
					break;
				p++;
			}
			appendStringInfoChar(&buf, *p);
			p++;
		}
		p++;
		if (buf.len == 0)
			orderby_syntax_error(input, "A quoted identifier is empty.");
		truncate_identifier(buf.data, buf.len, false);
		*quoted = true;
		*pp = p;
		return buf.data;
	}
	if (orderby_ident_start((unsigned char) *p))
	{
		const char *start = p;

		while (orderby_ident_cont((unsigned char) *p))
			p++;
		word = downcase_truncate_identifier(start, p - start, false);
		*pp = p;
		return word;
	}
	orderby_syntax_error(input,
						 psprintf("Unexpected character \"%c\" at position %d.",
								  *p, (int) (p - input) + 1));
	return NULL;				/* keep compiler quiet */
}

static List *
orderby_parse(const char *input)
{
	List	   *items = NIL;
	const char *p = input;

	for (;;)
	{
		OrderbyItem *item;
		bool		quoted;
		char	   *word;
		int			pos;
		ListCell   *lc;

		word = orderby_next_word(input, &p, &quoted, &pos);
		if (word == NULL)
			orderby_syntax_error(input,
								 items == NIL && *p == '\0' ?
								 "The list names no column." :
								 psprintf("Expected a column name at position %d.",
										  pos));
		foreach(lc, items)
		{
			if (strcmp(((OrderbyItem *) lfirst(lc))->column, word) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("column \"%s\" appears more than once in option \"orderby\"",
								word)));
		}
		item = palloc0(sizeof(OrderbyItem));
		item->column = word;

		word = orderby_next_word(input, &p, &quoted, &pos);
		if (word != NULL && !quoted && strcmp(word, "asc") == 0)
			word = orderby_next_word(input, &p, &quoted, &pos);
		else if (word != NULL && !quoted && strcmp(word, "desc") == 0)
		{
			item->descending = true;
			word = orderby_next_word(input, &p, &quoted, &pos);
		}
		/* PostgreSQL's defaults: NULLS LAST for ASC, NULLS FIRST for DESC */
		item->nulls_first = item->descending;
		if (word != NULL && !quoted && strcmp(word, "nulls") == 0)
		{
			word = orderby_next_word(input, &p, &quoted, &pos);
			if (word != NULL && !quoted && strcmp(word, "first") == 0)
				item->nulls_first = true;
			else if (word != NULL && !quoted && strcmp(word, "last") == 0)
				item->nulls_first = false;
			else
				orderby_syntax_error(input,
									 psprintf("Expected FIRST or LAST after NULLS at position %d.",
											  pos));
			word = orderby_next_word(input, &p, &quoted, &pos);
		}
		if (word != NULL)
			orderby_syntax_error(input,
								 psprintf("Unexpected \"%s\" at position %d.",
										  word, pos));
		items = lappend(items, item);

		if (*p == '\0')
			break;
		Assert(*p == ',');
		p++;
	}
	return items;
}

static char *
orderby_deparse(List *items)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, items)
	{
		OrderbyItem *item = (OrderbyItem *) lfirst(lc);

		if (buf.len > 0)
			appendStringInfoString(&buf, ", ");
		appendStringInfo(&buf, "%s %s", quote_identifier(item->column),
						 item->descending ? "DESC" : "ASC");
		if (item->nulls_first != item->descending)
			appendStringInfoString(&buf,
								   item->nulls_first ? " NULLS FIRST" : " NULLS LAST");
	}
	return buf.data;
}

static OrderbyProblem
orderby_item_resolve(Relation rel, const OrderbyItem *item,
					 ColcompressOrderbyKey *key)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			i;

	for (i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		TypeCacheEntry *typentry;

		if (att->attisdropped || strcmp(NameStr(att->attname), item->column) != 0)
			continue;
		typentry = lookup_type_cache(att->atttypid,
									 TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
		key->attnum = att->attnum;
		key->atttype = att->atttypid;
		key->sortop = item->descending ? typentry->gt_opr : typentry->lt_opr;
		key->collation = att->attcollation;
		key->descending = item->descending;
		key->nulls_first = item->nulls_first;
		return OidIsValid(key->sortop) ? ORDERBY_OK : ORDERBY_NOT_SORTABLE;
	}
	if (SystemAttributeByName(item->column) != NULL)
		return ORDERBY_SYSTEM_COLUMN;
	return ORDERBY_NO_COLUMN;
}

static void
orderby_report(Relation rel, const OrderbyItem *item, OrderbyProblem problem,
			   const ColcompressOrderbyKey *key)
{
	switch (problem)
	{
		case ORDERBY_NO_COLUMN:
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" named in option \"orderby\" does not exist",
							item->column),
					 errdetail("Table \"%s\" has no column \"%s\".",
							   RelationGetRelationName(rel), item->column),
					 errhint("Name columns of the table; quote names that contain upper case letters.")));
			break;
		case ORDERBY_SYSTEM_COLUMN:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("option \"orderby\" cannot use system column \"%s\"",
							item->column)));
			break;
		case ORDERBY_NOT_SORTABLE:
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_FUNCTION),
					 errmsg("column \"%s\" named in option \"orderby\" cannot be sorted",
							item->column),
					 errdetail("Type %s has no default btree operator class.",
							   format_type_be(key->atttype)),
					 errhint("Order by columns whose type has a default btree operator class.")));
			break;
		case ORDERBY_OK:
			break;
	}
}

ColcompressOrderbyKey *
colcompress_orderby_resolve(Relation rel, const char *orderby, int *nkeys)
{
	List	   *items = orderby_parse(orderby);
	ColcompressOrderbyKey *keys;
	ListCell   *lc;
	int			n = 0;

	keys = palloc0(sizeof(ColcompressOrderbyKey) * list_length(items));
	foreach(lc, items)
	{
		OrderbyItem *item = (OrderbyItem *) lfirst(lc);
		OrderbyProblem problem = orderby_item_resolve(rel, item, &keys[n]);

		if (problem != ORDERBY_OK)
			orderby_report(rel, item, problem, &keys[n]);
		n++;
	}
	*nkeys = n;
	return keys;
}

/*
 * Check a parsed orderby against the table.  strict: the user just wrote
 * it, so any problem is an error.  Otherwise it was stored earlier and
 * columns were dropped or changed type since: drop those items, with a
 * NOTICE unless quiet.  Returns the remaining items.
 */
static List *
orderby_check(Relation rel, List *items, bool strict, bool quiet)
{
	List	   *kept = NIL;
	ListCell   *lc;

	foreach(lc, items)
	{
		OrderbyItem *item = (OrderbyItem *) lfirst(lc);
		ColcompressOrderbyKey key;
		OrderbyProblem problem = orderby_item_resolve(rel, item, &key);

		if (problem == ORDERBY_OK)
			kept = lappend(kept, item);
		else if (strict)
			orderby_report(rel, item, problem, &key);
		else if (!quiet)
			ereport(NOTICE,
					(errmsg("removed column \"%s\" from option \"orderby\" of table \"%s\"",
							item->column, RelationGetRelationName(rel)),
					 problem == ORDERBY_NOT_SORTABLE ?
					 errdetail("Type %s has no default btree operator class.",
							   format_type_be(key.atttype)) :
					 errdetail("The column no longer exists.")));
	}
	if (kept == NIL && items != NIL && !strict && !quiet)
		ereport(NOTICE,
				(errmsg("option \"orderby\" of table \"%s\" is now unset",
						RelationGetRelationName(rel))));
	return kept;
}

/* ---- Values ---- */

/*
 * A decimal integer, surrounding spaces allowed.  Unlike PostgreSQL's
 * parse_int() there is no hex, octal or rounding of fractions: '050000' is
 * fifty thousand.  Values beyond int32 come back clamped, for the range
 * check to report.
 */
static bool
parse_decimal(const char *value, int *result)
{
	const char *p = value;
	bool		negative = false;
	int64		v = 0;
	bool		digits = false;

	while (scanner_isspace(*p))
		p++;
	if (*p == '+' || *p == '-')
		negative = (*p++ == '-');
	while (*p >= '0' && *p <= '9')
	{
		if (v <= PG_INT32_MAX)
			v = v * 10 + (*p - '0');
		digits = true;
		p++;
	}
	while (scanner_isspace(*p))
		p++;
	if (!digits || *p != '\0')
		return false;
	if (negative)
		v = -v;
	*result = (int) Max(Min(v, PG_INT32_MAX), PG_INT32_MIN);
	return true;
}

static void
option_parse(int opt, const char *value, OptionValues *vals)
{
	const OptionDef *def = &option_defs[opt];
	int			ival;
	bool		bval;
	const Codec *codec;

	switch (def->kind)
	{
		case OPTION_INT:
			if (!parse_decimal(value, &ival))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("invalid value for integer option \"%s\": %s",
								def->name, value),
						 errhint("Valid values are integers between %d and %d.",
								 def->min_value, def->max_value)));
			if (ival < def->min_value || ival > def->max_value)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("value %s out of bounds for option \"%s\"",
								value, def->name),
						 errdetail("Valid values are between %d and %d.",
								   def->min_value, def->max_value)));
			vals->value[opt] = ival;
			break;
		case OPTION_LEVEL:
			if (!parse_decimal(value, &ival))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("invalid value for integer option \"%s\": %s",
								def->name, value),
						 errhint("Valid levels depend on the codec, for example 1 to 19 for zstd.")));
			vals->value[opt] = ival;
			break;
		case OPTION_BOOL:
			if (!parse_bool(value, &bval))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("invalid value for boolean option \"%s\": %s",
								def->name, value),
						 errhint("Valid values are true and false.")));
			vals->value[opt] = bval ? 1 : 0;
			break;
		case OPTION_CODEC:
			codec = codec_by_name(value);
			if (codec == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("unrecognized compression codec \"%s\"", value),
						 errhint("Valid codecs are: %s.", codec_names_list())));
			vals->value[opt] = codec->id;
			break;
		case OPTION_ORDERBY:
			vals->orderby = orderby_parse(value);
			break;
	}
	vals->isset[opt] = true;
}

/* Normalized text of a parsed value. */
static char *
option_value_text(int opt, const OptionValues *vals)
{
	switch (option_defs[opt].kind)
	{
		case OPTION_INT:
		case OPTION_LEVEL:
			return psprintf("%d", vals->value[opt]);
		case OPTION_BOOL:
			return pstrdup(vals->value[opt] ? "true" : "false");
		case OPTION_CODEC:
			return pstrdup(codec_by_id(vals->value[opt])->name);
		case OPTION_ORDERBY:
			return orderby_deparse(vals->orderby);
	}
	return NULL;				/* keep compiler quiet */
}

/* ---- reloptions arrays ---- */

/* The "name=value" strings of a reloptions array. */
static List *
reloptions_entries(Datum reloptions)
{
	ArrayType  *array;
	Datum	   *elems;
	int			nelems;
	int			i;
	List	   *result = NIL;

	if (!PointerIsValid(DatumGetPointer(reloptions)))
		return NIL;
	array = DatumGetArrayTypeP(reloptions);
	deconstruct_array(array, TEXTOID, -1, false, TYPALIGN_INT,
					  &elems, NULL, &nelems);
	for (i = 0; i < nelems; i++)
		result = lappend(result, TextDatumGetCString(elems[i]));
	return result;
}

/* Split "name=value" in place; value is "" when there is no '='. */
static char *
entry_split(char *entry, char **value)
{
	char	   *eq = strchr(entry, '=');

	if (eq == NULL)
		*value = entry + strlen(entry);
	else
	{
		*eq = '\0';
		*value = eq + 1;
	}
	return entry;
}

bool
options_reloptions_have_ours(Datum reloptions)
{
	ListCell   *lc;

	foreach(lc, reloptions_entries(reloptions))
	{
		char	   *value;

		if (options_name_is_ours(entry_split((char *) lfirst(lc), &value)))
			return true;
	}
	return false;
}

static bool
reloptions_equal(Datum a, Datum b)
{
	List	   *la = reloptions_entries(a);
	List	   *lb = reloptions_entries(b);
	ListCell   *ca,
			   *cb;

	if (list_length(la) != list_length(lb))
		return false;
	forboth(ca, la, cb, lb)
	{
		if (strcmp((char *) lfirst(ca), (char *) lfirst(cb)) != 0)
			return false;
	}
	return true;
}

Datum
options_read_reloptions(Oid relid)
{
	HeapTuple	tuple;
	Datum		datum;
	bool		isnull;
	Datum		result = (Datum) 0;

	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for relation %u", relid);
	datum = SysCacheGetAttr(RELOID, tuple, Anum_pg_class_reloptions, &isnull);
	if (!isnull)
		result = PointerGetDatum(PG_DETOAST_DATUM_COPY(datum));
	ReleaseSysCache(tuple);
	return result;
}

/*
 * Raw (unparsed) values of our options that access method am uses, from a
 * reloptions array; names of the entries of ours that am does not use go
 * to *dropped when dropped is not NULL.
 */
static void
reloptions_ours(Datum reloptions, OptionsAm am, char *raw[OPT_COUNT],
				List **dropped)
{
	ListCell   *lc;

	memset(raw, 0, sizeof(char *) * OPT_COUNT);
	foreach(lc, reloptions_entries(reloptions))
	{
		char	   *value;
		char	   *name = entry_split((char *) lfirst(lc), &value);
		int			opt = option_lookup(name);

		if (opt < 0)
			continue;
		if (option_used_by(opt, am))
			raw[opt] = value;
		else if (dropped != NULL)
			*dropped = lappend(*dropped, name);
	}
}

static void
values_parse(char *raw[OPT_COUNT], OptionValues *vals)
{
	int			i;

	memset(vals, 0, sizeof(OptionValues));
	for (i = 0; i < OPT_COUNT; i++)
		if (raw[i] != NULL)
			option_parse(i, raw[i], vals);
}

static void
values_from_catalog(Oid relid, OptionsAm am, OptionValues *vals)
{
	char	   *raw[OPT_COUNT];

	reloptions_ours(options_read_reloptions(relid), am, raw, NULL);
	values_parse(raw, vals);
}

static char *
name_list_text(List *names)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, names)
	{
		if (buf.len > 0)
			appendStringInfoString(&buf, ", ");
		appendStringInfoString(&buf, (char *) lfirst(lc));
	}
	return buf.data;
}

/* ---- Merge and validate ---- */

Datum
options_merge(Oid relid, OptionsAm am, Datum base, Datum current,
			  List *changes, int flags)
{
	bool		quiet = (flags & OPTIONS_QUIET) != 0;
	char	   *raw[OPT_COUNT];
	bool		mentioned[OPT_COUNT] = {0};
	const Codec *oldcodec;
	char	   *oldlevel;
	OptionValues vals;
	List	   *dropped = NIL;
	ArrayBuildState *astate = NULL;
	ListCell   *lc;
	int			i;

	/* Ours as they were, minus those am does not use. */
	reloptions_ours(base, am, raw, &dropped);

	/*
	 * The codec and level as they were, read without validating: a stored
	 * value that is no longer valid must not stop RESET from removing it.
	 */
	oldcodec = raw[OPT_COMPRESSION] ? codec_by_name(raw[OPT_COMPRESSION]) : NULL;
	if (oldcodec == NULL)
		oldcodec = codec_by_id(OPTIONS_DEFAULT_CODEC);
	oldlevel = raw[OPT_COMPRESSION_LEVEL];

	/* PostgreSQL's own options as they are now. */
	foreach(lc, reloptions_entries(current))
	{
		char	   *entry = (char *) lfirst(lc);
		char	   *value;
		char	   *name = entry_split(pstrdup(entry), &value);

		if (options_name_is_ours(name))
			continue;
		if (am != OPTIONS_AM_OTHER && options_name_is_heap_only(name) &&
			!(flags & OPTIONS_KEEP_FOREIGN))
		{
			dropped = lappend(dropped, name);
			continue;
		}
		astate = accumArrayResult(astate, CStringGetTextDatum(entry), false,
								  TEXTOID, CurrentMemoryContext);
	}

	if (dropped != NIL && !quiet)
		ereport(NOTICE,
				(errmsg("removed options that access method \"%s\" does not use",
						options_am_name(am)),
				 errdetail("Removed: %s.", name_list_text(dropped))));

	if (am == OPTIONS_AM_OTHER)
	{
		Assert(changes == NIL);
		return astate ? makeArrayResult(astate, CurrentMemoryContext) : (Datum) 0;
	}

	/* Apply the changes, in order. */
	foreach(lc, changes)
	{
		OptionsChange *change = (OptionsChange *) lfirst(lc);
		ListCell   *ld;

		foreach(ld, change->defs)
		{
			DefElem    *def = (DefElem *) lfirst(ld);
			int			opt = option_lookup(def->defname);

			if (def->defnamespace != NULL || opt < 0 || !option_used_by(opt, am))
				options_report_foreign(def->defname, am, relid, NULL);
			mentioned[opt] = true;
			if (change->is_reset)
			{
				if (def->arg != NULL)
					ereport(ERROR,
							(errcode(ERRCODE_SYNTAX_ERROR),
							 errmsg("RESET must not include values for parameters")));
				raw[opt] = NULL;
			}
			else
				raw[opt] = def->arg ? defGetString(def) : "true";
		}
	}
	values_parse(raw, &vals);

	/*
	 * A level belongs to the codec it was chosen for: when the codec changes
	 * and the same command does not give a level, the level goes back to the
	 * new codec's default.
	 */
	if (oldcodec->id != codec_or_default(&vals)->id &&
		!mentioned[OPT_COMPRESSION_LEVEL] && vals.isset[OPT_COMPRESSION_LEVEL])
	{
		vals.isset[OPT_COMPRESSION_LEVEL] = false;
		if (!quiet)
			ereport(NOTICE,
					(errmsg("compression_level reset to the default of codec \"%s\"",
							codec_or_default(&vals)->name),
					 errdetail("Level %s was chosen for codec \"%s\".",
							   oldlevel ? oldlevel : "?", oldcodec->name)));
	}

	if (mentioned[OPT_COMPRESSION] && vals.isset[OPT_COMPRESSION] &&
		!codec_or_default(&vals)->available)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("compression codec \"%s\" is not available",
						codec_or_default(&vals)->name),
				 errdetail("storage_engine was built without the %s library.",
						   codec_or_default(&vals)->name),
				 errhint("Codecs available in this build: %s.", available_codecs())));

	if ((mentioned[OPT_COMPRESSION] || mentioned[OPT_COMPRESSION_LEVEL]) &&
		vals.isset[OPT_COMPRESSION_LEVEL])
	{
		const Codec *codec = codec_or_default(&vals);
		int			level = vals.value[OPT_COMPRESSION_LEVEL];

		if (level < codec->min_level || level > codec->max_level)
		{
			if (codec->min_level == codec->max_level)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("compression_level %d is out of range for codec \"%s\"",
								level, codec->name),
						 errdetail("Codec \"%s\" has no compression levels.",
								   codec->name),
						 errhint("Set compression_level to %d or reset it.",
								 codec->min_level)));
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("compression_level %d is out of range for codec \"%s\"",
							level, codec->name),
					 errdetail("Codec \"%s\" accepts levels %d to %d.",
							   codec->name, codec->min_level, codec->max_level),
					 errhint("Choose a level in that range, or reset compression_level to use the codec's default of %d.",
							 codec->default_level)));
		}
	}

	if (am == OPTIONS_AM_COLCOMPRESS &&
		(mentioned[OPT_STRIPE_ROW_LIMIT] || mentioned[OPT_CHUNK_GROUP_ROW_LIMIT]))
	{
		int32		stripe = vals.isset[OPT_STRIPE_ROW_LIMIT] ?
			vals.value[OPT_STRIPE_ROW_LIMIT] : COLCOMPRESS_DEFAULT_STRIPE_ROW_LIMIT;
		int32		chunk = vals.isset[OPT_CHUNK_GROUP_ROW_LIMIT] ?
			vals.value[OPT_CHUNK_GROUP_ROW_LIMIT] : COLCOMPRESS_DEFAULT_CHUNK_GROUP_ROW_LIMIT;

		if (chunk > stripe)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("chunk_group_row_limit must not exceed stripe_row_limit"),
					 errdetail("chunk_group_row_limit would be %d and stripe_row_limit %d.",
							   chunk, stripe),
					 errhint("Set both in the same command.")));
	}

	if (vals.isset[OPT_ORDERBY] && !(flags & OPTIONS_NO_COLUMN_CHECK))
	{
		Relation	rel = relation_open(relid, NoLock);

		vals.orderby = orderby_check(rel, vals.orderby, mentioned[OPT_ORDERBY],
									 quiet);
		if (vals.orderby == NIL)
			vals.isset[OPT_ORDERBY] = false;
		relation_close(rel, NoLock);
	}

	for (i = 0; i < OPT_COUNT; i++)
	{
		char	   *entry;

		if (!vals.isset[i])
			continue;
		entry = psprintf("%s=%s", option_defs[i].name, option_value_text(i, &vals));
		astate = accumArrayResult(astate, CStringGetTextDatum(entry), false,
								  TEXTOID, CurrentMemoryContext);
	}
	return astate ? makeArrayResult(astate, CurrentMemoryContext) : (Datum) 0;
}

/* ---- Catalog update ---- */

void
options_write_reloptions(Oid relid, Datum reloptions)
{
	Relation	pgclass;
	HeapTuple	tuple;
	HeapTuple	newtuple;
	Datum		old;
	bool		isnull;
	Datum		values[Natts_pg_class] = {0};
	bool		nulls[Natts_pg_class] = {0};
	bool		replace[Natts_pg_class] = {0};

	pgclass = table_open(RelationRelationId, RowExclusiveLock);
	tuple = SearchSysCacheLocked1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for relation %u", relid);

	old = SysCacheGetAttr(RELOID, tuple, Anum_pg_class_reloptions, &isnull);
	if (reloptions_equal(isnull ? (Datum) 0 : old, reloptions))
	{
		UnlockTuple(pgclass, &tuple->t_self, InplaceUpdateTupleLock);
		ReleaseSysCache(tuple);
		table_close(pgclass, RowExclusiveLock);
		return;
	}

	if (PointerIsValid(DatumGetPointer(reloptions)))
		values[Anum_pg_class_reloptions - 1] = reloptions;
	else
		nulls[Anum_pg_class_reloptions - 1] = true;
	replace[Anum_pg_class_reloptions - 1] = true;

	newtuple = heap_modify_tuple(tuple, RelationGetDescr(pgclass),
								 values, nulls, replace);
	CatalogTupleUpdate(pgclass, &newtuple->t_self, newtuple);
	UnlockTuple(pgclass, &tuple->t_self, InplaceUpdateTupleLock);

	InvokeObjectPostAlterHook(RelationRelationId, relid, 0);

	heap_freetuple(newtuple);
	ReleaseSysCache(tuple);
	table_close(pgclass, RowExclusiveLock);

	CacheInvalidateRelcacheByRelid(relid);
	CommandCounterIncrement();
}

void
options_alter_relation(Oid relid, OptionsAm am, List *changes)
{
	Datum		stored = options_read_reloptions(relid);

	options_check_names(relid, am, changes);
	options_write_reloptions(relid,
							 options_merge(relid, am, stored, stored, changes, 0));
}

/* ---- Column maintenance of orderby ---- */

void
options_orderby_rename_column(Oid relid, const char *oldname,
							  const char *newname)
{
	char	   *raw[OPT_COUNT];
	Datum		stored;
	List	   *items;
	ListCell   *lc;
	bool		renamed = false;
	Relation	rel;
	OptionsChange change;

	if (options_am_of_relation(relid) != OPTIONS_AM_COLCOMPRESS)
		return;
	stored = options_read_reloptions(relid);
	reloptions_ours(stored, OPTIONS_AM_COLCOMPRESS, raw, NULL);
	if (raw[OPT_ORDERBY] == NULL)
		return;

	/* A child renamed under ONLY keeps its column: nothing to follow. */
	rel = relation_open(relid, NoLock);
	items = orderby_parse(raw[OPT_ORDERBY]);
	foreach(lc, items)
	{
		OrderbyItem *item = (OrderbyItem *) lfirst(lc);
		ColcompressOrderbyKey key;

		if (strcmp(item->column, oldname) == 0 &&
			orderby_item_resolve(rel, item, &key) == ORDERBY_NO_COLUMN)
		{
			item->column = pstrdup(newname);
			renamed = true;
		}
	}
	relation_close(rel, NoLock);
	if (!renamed)
		return;

	change.is_reset = false;
	change.defs = list_make1(makeDefElem(pstrdup("orderby"),
										 (Node *) makeString(orderby_deparse(items)),
										 -1));
	options_write_reloptions(relid,
							 options_merge(relid, OPTIONS_AM_COLCOMPRESS, stored,
										   stored, list_make1(&change), 0));
}

void
options_orderby_recheck(Oid relid)
{
	Datum		stored;

	if (options_am_of_relation(relid) != OPTIONS_AM_COLCOMPRESS)
		return;
	stored = options_read_reloptions(relid);
	if (!options_reloptions_have_ours(stored))
		return;
	options_write_reloptions(relid,
							 options_merge(relid, OPTIONS_AM_COLCOMPRESS, stored,
										   stored, NIL, 0));
}

/* ---- Readers ---- */

void
colcompress_options_get(Oid relid, ColcompressOptions *opts)
{
	OptionValues vals;
	const Codec *codec;

	values_from_catalog(relid, OPTIONS_AM_COLCOMPRESS, &vals);
	codec = codec_or_default(&vals);

	opts->stripe_row_limit = vals.isset[OPT_STRIPE_ROW_LIMIT] ?
		vals.value[OPT_STRIPE_ROW_LIMIT] : COLCOMPRESS_DEFAULT_STRIPE_ROW_LIMIT;
	opts->chunk_group_row_limit = vals.isset[OPT_CHUNK_GROUP_ROW_LIMIT] ?
		vals.value[OPT_CHUNK_GROUP_ROW_LIMIT] : COLCOMPRESS_DEFAULT_CHUNK_GROUP_ROW_LIMIT;
	opts->codec = codec->id;
	opts->compression_level = vals.isset[OPT_COMPRESSION_LEVEL] ?
		vals.value[OPT_COMPRESSION_LEVEL] : codec->default_level;
	opts->orderby = vals.isset[OPT_ORDERBY] ? orderby_deparse(vals.orderby) : NULL;
	opts->index_scan = vals.isset[OPT_INDEX_SCAN] ?
		(vals.value[OPT_INDEX_SCAN] != 0) : COLCOMPRESS_DEFAULT_INDEX_SCAN;
}

void
rowcompress_options_get(Oid relid, RowcompressOptions *opts)
{
	OptionValues vals;
	const Codec *codec;

	values_from_catalog(relid, OPTIONS_AM_ROWCOMPRESS, &vals);
	codec = codec_or_default(&vals);

	opts->batch_size = vals.isset[OPT_BATCH_SIZE] ?
		vals.value[OPT_BATCH_SIZE] : ROWCOMPRESS_DEFAULT_BATCH_SIZE;
	opts->codec = codec->id;
	opts->compression_level = vals.isset[OPT_COMPRESSION_LEVEL] ?
		vals.value[OPT_COMPRESSION_LEVEL] : codec->default_level;
}
