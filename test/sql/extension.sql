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

-- Fetches by row number, and scans, keep chunk metadata for the backend's
-- life, keyed by storage and stripe numbers, which a new extension hands
-- out again: a table made after DROP / CREATE EXTENSION must not be read
-- with the metadata of the one dropped (same numbers, other values, other
-- zone bounds: v >= 'second' would prune every chunk group with the old).
SET enable_seqscan = off;
SET enable_bitmapscan = off;
CREATE TABLE cache_t (id int, v text) USING colcompress;
INSERT INTO cache_t SELECT g, 'first ' || g FROM generate_series(1, 3000) g;
CREATE INDEX ON cache_t (id);
SELECT storage_id AS first_storage FROM engine.stripe LIMIT 1 \gset
SELECT v FROM cache_t WHERE id IN (5, 2500) ORDER BY id;
RESET enable_seqscan;
EXPLAIN (COSTS OFF) SELECT count(*), sum(length(v)) FROM cache_t WHERE v >= 'f';
SELECT count(*), sum(length(v)) FROM cache_t WHERE v >= 'f';
SET enable_seqscan = off;
DROP EXTENSION storage_engine CASCADE;
CREATE EXTENSION storage_engine;
CREATE TABLE cache_t (id int, v text) USING colcompress;
INSERT INTO cache_t SELECT g, 'second, longer ' || g FROM generate_series(1, 3000) g;
RESET enable_seqscan;
SELECT count(*), sum(length(v)) FROM cache_t WHERE v >= 'second';
SET enable_seqscan = off;
CREATE INDEX ON cache_t (id);
SELECT storage_id = :first_storage AS same_storage_number FROM engine.stripe;
EXPLAIN (COSTS OFF) SELECT v FROM cache_t WHERE id IN (5, 2500) ORDER BY id;
SELECT v FROM cache_t WHERE id IN (5, 2500) ORDER BY id;
DROP TABLE cache_t;
RESET enable_seqscan;
RESET enable_bitmapscan;
