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
