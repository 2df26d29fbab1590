-- A small table in each access method, for the main job to show the
-- extension working before the benchmark runs.  An access method that is not
-- available yet is reported, not faked.
\set ON_ERROR_STOP 0
DROP TABLE IF EXISTS demo_heap, demo_col, demo_row;
CREATE TABLE demo_heap AS
	SELECT g AS id, 'item ' || (g % 100) AS label, g * 1.5 AS price
	FROM generate_series(1, 10000) g;
CREATE TABLE demo_col USING colcompress AS SELECT * FROM demo_heap;
CREATE TABLE demo_row USING rowcompress AS SELECT * FROM demo_heap;
SELECT c.relname AS table, a.amname AS access_method,
	   pg_size_pretty(pg_total_relation_size(c.oid)) AS size
  FROM pg_class c JOIN pg_am a ON a.oid = c.relam
 WHERE c.relname IN ('demo_heap', 'demo_col', 'demo_row') ORDER BY 1;
