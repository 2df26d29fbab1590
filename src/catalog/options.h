/*-------------------------------------------------------------------------
 *
 * options.h
 *	  Per-table options of colcompress and rowcompress tables.
 *
 *	  The options live in pg_class.reloptions, next to PostgreSQL's own
 *	  storage parameters, so that pg_dump, pg_upgrade, VACUUM FULL, CLUSTER
 *	  and \d+ carry them without any work of ours.  options.c is the one
 *	  place that knows their names, types, ranges and defaults; the rest of
 *	  the tree reads them through colcompress_options_get() and
 *	  rowcompress_options_get().
 *
 *	  PostgreSQL validates table reloptions against heap's fixed list, so
 *	  statements that carry our options are intercepted by a ProcessUtility
 *	  hook (options_utility.c), which takes our options out of the statement
 *	  before PostgreSQL sees it and writes them to pg_class itself.  The SQL
 *	  functions in sql_api/options_api.c share the validation and catalog
 *	  update code below.  See docs/options.md.
 *
 *-------------------------------------------------------------------------
 */
#ifndef STORAGE_ENGINE_OPTIONS_H
#define STORAGE_ENGINE_OPTIONS_H

#include "access/attnum.h"
#include "nodes/pg_list.h"
#include "utils/relcache.h"

/* Defaults and ranges (docs/options.md lists them for users). */
#define COLCOMPRESS_DEFAULT_STRIPE_ROW_LIMIT		150000
#define COLCOMPRESS_MIN_STRIPE_ROW_LIMIT			1000
#define COLCOMPRESS_MAX_STRIPE_ROW_LIMIT			10000000
#define COLCOMPRESS_DEFAULT_CHUNK_GROUP_ROW_LIMIT	10000
#define COLCOMPRESS_MIN_CHUNK_GROUP_ROW_LIMIT		1000
#define COLCOMPRESS_MAX_CHUNK_GROUP_ROW_LIMIT		100000
#define COLCOMPRESS_DEFAULT_INDEX_SCAN				true
#define ROWCOMPRESS_DEFAULT_BATCH_SIZE				10000
#define ROWCOMPRESS_MIN_BATCH_SIZE					100
#define ROWCOMPRESS_MAX_BATCH_SIZE					1000000
#define OPTIONS_DEFAULT_CODEC						CODEC_ZSTD

/*
 * Effective options of a colcompress table: what the table says, with
 * defaults filled in for what it does not say.
 */
typedef struct ColcompressOptions
{
	int32		stripe_row_limit;	/* default 150000, range 1000 .. 10000000 */
	int32		chunk_group_row_limit;	/* default 10000, range 1000 ..
										 * 100000, and <= stripe_row_limit */
	int			codec;			/* CodecId; default CODEC_ZSTD */
	int			compression_level;	/* default: the codec's default_level;
									 * range: the codec's [min_level,
									 * max_level] */
	char	   *orderby;		/* NULL when unset; palloc'd in
								 * CurrentMemoryContext */
	bool		index_scan;		/* default true */
} ColcompressOptions;

typedef struct RowcompressOptions
{
	int32		batch_size;		/* default 10000, range 100 .. 1000000 */
	int			codec;			/* default CODEC_ZSTD */
	int			compression_level;
} RowcompressOptions;

/*
 * One sort key of a colcompress table's orderby option, resolved against
 * the table's current columns.
 */
typedef struct ColcompressOrderbyKey
{
	AttrNumber	attnum;
	Oid			atttype;
	Oid			sortop;			/* "<" (ASC) or ">" (DESC) of the type's
								 * default btree operator class */
	Oid			collation;		/* the column's collation */
	bool		descending;
	bool		nulls_first;
} ColcompressOrderbyKey;

/*
 * Read a table's options from pg_class.reloptions through the syscache and
 * fill in defaults.  Options of other access methods (left in reloptions
 * while ALTER TABLE ... SET ACCESS METHOD rewrites a table) are ignored.
 * The codec is returned even when it is not available in this build: the
 * caller that compresses decides how to report that.
 */
extern void colcompress_options_get(Oid relid, ColcompressOptions *opts);
extern void rowcompress_options_get(Oid relid, RowcompressOptions *opts);

/*
 * Resolve an orderby option (as colcompress_options_get returns it) against
 * the relation's columns.  Returns a palloc'd array of *nkeys keys; raises
 * an error naming the table when a column no longer exists or cannot be
 * sorted.
 */
extern ColcompressOrderbyKey *colcompress_orderby_resolve(Relation rel,
														  const char *orderby,
														  int *nkeys);

/* Install the ProcessUtility hook (options_utility.c); called by _PG_init. */
extern void options_install_hooks(void);

/*
 * ---- Shared by options_utility.c and sql_api/options_api.c ----
 */

/* Which of our access methods a table uses. */
typedef enum OptionsAm
{
	OPTIONS_AM_OTHER = 0,		/* heap or any access method not ours */
	OPTIONS_AM_COLCOMPRESS,
	OPTIONS_AM_ROWCOMPRESS
} OptionsAm;

/* One SET (...) or RESET (...) list of DefElems, applied in order. */
typedef struct OptionsChange
{
	List	   *defs;
	bool		is_reset;
} OptionsChange;

/* Flags of options_merge(). */
#define OPTIONS_QUIET				0x01	/* no NOTICEs */
#define OPTIONS_NO_COLUMN_CHECK		0x02	/* do not resolve orderby columns */
#define OPTIONS_KEEP_FOREIGN		0x04	/* keep heap's page-layout options */

extern OptionsAm options_am_of(Oid amoid);
extern OptionsAm options_am_of_relation(Oid relid);
extern const char *options_am_name(OptionsAm am);

/* Is this (non-namespaced) option name one of ours, for any of our AMs? */
extern bool options_name_is_ours(const char *name);

/* Is it one of heap's page-layout options, refused on our tables? */
extern bool options_name_is_heap_only(const char *name);

/*
 * Raise the error for option "name" used on table relid of access method am.
 * amname, for OPTIONS_AM_OTHER only: the access method ALTER TABLE ... SET
 * ACCESS METHOD is changing the table to (NULL: not changing).  Does not
 * return.
 */
pg_noreturn extern void options_report_foreign(const char *name, OptionsAm am,
											   Oid relid, const char *amname);

/* Check that every name in changes is an option of am; error otherwise. */
extern void options_check_names(Oid relid, OptionsAm am, List *changes);

/*
 * The new pg_class.reloptions of a table: PostgreSQL's options taken from
 * "current", ours taken from "base" with "changes" applied, everything
 * validated for access method am (OPTIONS_AM_OTHER: ours are removed).
 * Options that am does not use are dropped with a NOTICE.  Returns
 * (Datum) 0 for an empty list.
 */
extern Datum options_merge(Oid relid, OptionsAm am, Datum base, Datum current,
						   List *changes, int flags);

/* pg_class.reloptions of a relation, (Datum) 0 when null. */
extern Datum options_read_reloptions(Oid relid);

/* Does a reloptions array hold any of our options? */
extern bool options_reloptions_have_ours(Datum reloptions);

/*
 * Write pg_class.reloptions when it differs from what is stored, then
 * make the change visible (relcache invalidation, CommandCounterIncrement).
 */
extern void options_write_reloptions(Oid relid, Datum reloptions);

/*
 * Validate and store changes on a locked table of access method am whose
 * ownership the caller checked.
 */
extern void options_alter_relation(Oid relid, OptionsAm am, List *changes);

/*
 * Column maintenance of the orderby option: follow a column rename, and
 * re-check the stored orderby after columns were dropped or changed type.
 */
extern void options_orderby_rename_column(Oid relid, const char *oldname,
										  const char *newname);
extern void options_orderby_recheck(Oid relid);

#endif							/* STORAGE_ENGINE_OPTIONS_H */
