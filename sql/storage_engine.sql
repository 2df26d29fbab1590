-- storage_engine: the one canonical install script.
--
-- Everything lives in schema "engine", which the script creates so that it
-- is a member of the extension and DROP EXTENSION removes it with the rest.
-- (A schema named in the control file would be created outside the
-- extension and survive the drop.)

\echo Use "CREATE EXTENSION storage_engine" to load this file. \quit

CREATE SCHEMA engine;
GRANT USAGE ON SCHEMA engine TO PUBLIC;

CREATE FUNCTION engine.colcompress_handler(internal)
	RETURNS table_am_handler
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'colcompress_handler';
COMMENT ON FUNCTION engine.colcompress_handler(internal)
	IS 'table access method handler of colcompress';

CREATE ACCESS METHOD colcompress TYPE TABLE HANDLER engine.colcompress_handler;
COMMENT ON ACCESS METHOD colcompress IS 'compressed column store';

CREATE FUNCTION engine.rowcompress_handler(internal)
	RETURNS table_am_handler
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'rowcompress_handler';
COMMENT ON FUNCTION engine.rowcompress_handler(internal)
	IS 'table access method handler of rowcompress';

CREATE ACCESS METHOD rowcompress TYPE TABLE HANDLER engine.rowcompress_handler;
COMMENT ON ACCESS METHOD rowcompress IS 'batch-compressed row store';

CREATE FUNCTION engine.version()
	RETURNS text
	LANGUAGE C STRICT
	AS 'MODULE_PATHNAME', 'engine_version';
COMMENT ON FUNCTION engine.version()
	IS 'version of the loaded storage_engine library and the codecs it was built with';

-- ==== options (src/catalog/options.c) ====
--
-- Per-table options live in pg_class.reloptions (ALTER TABLE ... SET (...)
-- and CREATE TABLE ... WITH (...) write them; see docs/options.md).  These
-- functions are the equivalent of ALTER TABLE ... SET/RESET, NULL or false
-- leaving an option as it is; the views show every table's effective
-- options, defaults filled in by the same C code the access methods use.

CREATE FUNCTION engine.alter_colcompress_table_set(
		table_name regclass,
		chunk_group_row_limit int DEFAULT NULL,
		stripe_row_limit int DEFAULT NULL,
		compression name DEFAULT NULL,
		compression_level int DEFAULT NULL,
		orderby text DEFAULT NULL,
		index_scan bool DEFAULT NULL)
	RETURNS void
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'options_api_alter_colcompress_table_set';
COMMENT ON FUNCTION engine.alter_colcompress_table_set(regclass, int, int, name, int, text, bool)
	IS 'set options of a colcompress table; NULL leaves an option unchanged';

CREATE FUNCTION engine.alter_colcompress_table_reset(
		table_name regclass,
		chunk_group_row_limit bool DEFAULT false,
		stripe_row_limit bool DEFAULT false,
		compression bool DEFAULT false,
		compression_level bool DEFAULT false,
		orderby bool DEFAULT false,
		index_scan bool DEFAULT false)
	RETURNS void
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'options_api_alter_colcompress_table_reset';
COMMENT ON FUNCTION engine.alter_colcompress_table_reset(regclass, bool, bool, bool, bool, bool, bool)
	IS 'reset options of a colcompress table to their defaults';

CREATE FUNCTION engine.alter_rowcompress_table_set(
		table_name regclass,
		batch_size int DEFAULT NULL,
		compression name DEFAULT NULL,
		compression_level int DEFAULT NULL)
	RETURNS void
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'options_api_alter_rowcompress_table_set';
COMMENT ON FUNCTION engine.alter_rowcompress_table_set(regclass, int, name, int)
	IS 'set options of a rowcompress table; NULL leaves an option unchanged';

CREATE FUNCTION engine.alter_rowcompress_table_reset(
		table_name regclass,
		batch_size bool DEFAULT false,
		compression bool DEFAULT false,
		compression_level bool DEFAULT false)
	RETURNS void
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'options_api_alter_rowcompress_table_reset';
COMMENT ON FUNCTION engine.alter_rowcompress_table_reset(regclass, bool, bool, bool)
	IS 'reset options of a rowcompress table to their defaults';

CREATE FUNCTION engine.colcompress_table_options(
		table_name regclass,
		OUT chunk_group_row_limit int,
		OUT stripe_row_limit int,
		OUT compression name,
		OUT compression_level int,
		OUT orderby text,
		OUT index_scan bool)
	RETURNS record
	LANGUAGE C STRICT STABLE
	AS 'MODULE_PATHNAME', 'options_api_colcompress_table_options';
COMMENT ON FUNCTION engine.colcompress_table_options(regclass)
	IS 'effective options of a colcompress table, defaults filled in';

CREATE FUNCTION engine.rowcompress_table_options(
		table_name regclass,
		OUT batch_size int,
		OUT compression name,
		OUT compression_level int)
	RETURNS record
	LANGUAGE C STRICT STABLE
	AS 'MODULE_PATHNAME', 'options_api_rowcompress_table_options';
COMMENT ON FUNCTION engine.rowcompress_table_options(regclass)
	IS 'effective options of a rowcompress table, defaults filled in';

CREATE VIEW engine.colcompress_options AS
	SELECT c.oid::regclass AS relation,
		   o.chunk_group_row_limit,
		   o.stripe_row_limit,
		   o.compression,
		   o.compression_level,
		   o.orderby,
		   o.index_scan
	  FROM pg_catalog.pg_class c
	  JOIN pg_catalog.pg_am am ON am.oid = c.relam
	 CROSS JOIN LATERAL engine.colcompress_table_options(c.oid) o
	 WHERE am.amname = 'colcompress'
	   AND c.relkind IN ('r', 'm');
COMMENT ON VIEW engine.colcompress_options
	IS 'effective options of every colcompress table';
GRANT SELECT ON engine.colcompress_options TO PUBLIC;

CREATE VIEW engine.rowcompress_options AS
	SELECT c.oid::regclass AS relation,
		   o.batch_size,
		   o.compression,
		   o.compression_level
	  FROM pg_catalog.pg_class c
	  JOIN pg_catalog.pg_am am ON am.oid = c.relam
	 CROSS JOIN LATERAL engine.rowcompress_table_options(c.oid) o
	 WHERE am.amname = 'rowcompress'
	   AND c.relkind IN ('r', 'm');
COMMENT ON VIEW engine.rowcompress_options
	IS 'effective options of every rowcompress table';
GRANT SELECT ON engine.rowcompress_options TO PUBLIC;

-- The ProcessUtility hook sees DDL once the library is loaded, which
-- shared_preload_libraries does at server start.  Without it, the library
-- is loaded on first use, possibly halfway through the statement that needs
-- the hook; these event triggers (whose call loads it) handle that
-- statement.  ENABLE ALWAYS: also under session_replication_role = replica.
CREATE FUNCTION engine.options_ddl_command_start()
	RETURNS event_trigger
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'options_ddl_command_start';
CREATE FUNCTION engine.options_ddl_command_end()
	RETURNS event_trigger
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'options_ddl_command_end';

CREATE EVENT TRIGGER storage_engine_options_start ON ddl_command_start
	WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO',
				 'CREATE MATERIALIZED VIEW', 'ALTER TABLE',
				 'ALTER MATERIALIZED VIEW')
	EXECUTE FUNCTION engine.options_ddl_command_start();
ALTER EVENT TRIGGER storage_engine_options_start ENABLE ALWAYS;
CREATE EVENT TRIGGER storage_engine_options_end ON ddl_command_end
	WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO',
				 'CREATE MATERIALIZED VIEW', 'ALTER TABLE',
				 'ALTER MATERIALIZED VIEW')
	EXECUTE FUNCTION engine.options_ddl_command_end();
ALTER EVENT TRIGGER storage_engine_options_end ENABLE ALWAYS;
