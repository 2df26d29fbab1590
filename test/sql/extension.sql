-- The extension's objects, its GUC prefix, and a DROP / CREATE round trip.
-- pg_regress created the extension (--load-extension) before this file runs.

SELECT extname, extversion, extnamespace::regnamespace AS ext_schema
  FROM pg_extension WHERE extname = 'storage_engine';

SELECT amname, amtype, amhandler
  FROM pg_am WHERE amname IN ('colcompress', 'rowcompress') ORDER BY amname;

SELECT engine.version() LIKE 'storage_engine %' AS version_ok;

-- The prefix is reserved: a misspelt parameter is an error, not a placeholder.
SET storage_engine.no_such_parameter = on;

-- Dropping removes schema, access methods and functions ...
DROP EXTENSION storage_engine;
SELECT count(*) AS ams_left FROM pg_am WHERE amname IN ('colcompress', 'rowcompress');
SELECT count(*) AS schema_left FROM pg_namespace WHERE nspname = 'engine';

-- ... and a re-create brings everything back.
CREATE EXTENSION storage_engine;
SELECT count(*) AS ams FROM pg_am WHERE amname IN ('colcompress', 'rowcompress');
SELECT engine.version() LIKE 'storage_engine %' AS version_ok;
