-- Bitmap heap scans of colcompress tables decode only the columns the plan
-- reads (ColcompressBitmapColumns): the target list's and filter's always,
-- the recheck condition's for rechecked blocks only.  Results are the same
-- with the projection on and off and as on heap, for exact and lossy
-- bitmaps, rescans with parameters, whole-row references, row locks,
-- UPDATE and DELETE.

CREATE TABLE bm_col (
	id int, grp int, price float8, note text, tags text[], doc jsonb, gone int
) USING colcompress WITH (stripe_row_limit = 6000, chunk_group_row_limit = 2000);
INSERT INTO bm_col
SELECT g, g % 100, g / 4.0, CASE WHEN g % 7 = 0 THEN NULL ELSE 'note ' || g END,
	   ARRAY['tag_' || g % 20, 'all'], jsonb_build_object('os', CASE WHEN g % 5 = 0 THEN 'android' ELSE 'ios' END, 'g', g),
	   g
  FROM generate_series(1, 20000) g;
ALTER TABLE bm_col DROP COLUMN gone;
CREATE TABLE bm_heap AS SELECT * FROM bm_col;
CREATE INDEX ON bm_col (grp);
CREATE INDEX ON bm_col USING gin (tags);
CREATE INDEX ON bm_col USING gin (doc jsonb_path_ops);
CREATE INDEX ON bm_heap (grp);
CREATE INDEX ON bm_heap USING gin (tags);
CREATE INDEX ON bm_heap USING gin (doc jsonb_path_ops);
ANALYZE bm_col;
ANALYZE bm_heap;

-- bitmap plans only
SET enable_seqscan = off;
SET enable_indexscan = off;
SET storage_engine.enable_custom_scan = off;
SET max_parallel_workers_per_gather = 0;

-- runs q with the projection, without it, and on heap (test/sql/common)
\getenv abs_srcdir PG_ABS_SRCDIR
\cd :abs_srcdir/sql
\i common/compare.psql
CREATE FUNCTION check_query(q text) RETURNS text LANGUAGE sql AS $$
	SELECT compare_paths(q, 'storage_engine.enable_bitmap_projection', 'bm_col', 'bm_heap')
$$;

-- the plan says which columns are decoded
EXPLAIN (COSTS OFF) SELECT count(*), avg(price) FROM bm_col WHERE tags @> ARRAY['tag_5'];
EXPLAIN (COSTS OFF) SELECT id, note FROM bm_col WHERE grp = 3 AND price > 100;
EXPLAIN (COSTS OFF) SELECT count(*) FROM bm_col WHERE doc @> '{"os": "android"}';
EXPLAIN (COSTS OFF) SELECT b FROM bm_col b WHERE grp = 3;
SET storage_engine.enable_bitmap_projection = off;
EXPLAIN (COSTS OFF) SELECT count(*), avg(price) FROM bm_col WHERE tags @> ARRAY['tag_5'];
RESET storage_engine.enable_bitmap_projection;

SELECT check_query($$SELECT count(*), avg(price) FROM bm_col WHERE tags @> ARRAY['tag_5']$$);
SELECT check_query($$SELECT id, note, price FROM bm_col WHERE grp = 3 AND price > 100$$);
SELECT check_query($$SELECT id FROM bm_col WHERE grp IN (3, 4) AND note IS NULL$$);
SELECT check_query($$SELECT count(*), sum((doc->>'g')::int) FROM bm_col WHERE doc @> '{"os": "android"}'$$);
SELECT check_query($$SELECT count(*) FROM bm_col WHERE tags @> ARRAY['tag_5'] OR grp = 7$$);
SELECT check_query($$SELECT b FROM bm_col b WHERE grp = 3$$);
SELECT check_query($$SELECT ctid IS NOT NULL, tableoid::regclass IS NOT NULL, id FROM bm_col WHERE grp = 3$$);
SELECT check_query($$SELECT count(*) FROM bm_col WHERE grp IN (3, 4)$$);

-- a plan that reads no column decodes none: counting rows through an exact
-- bitmap reads the index and the stripes' metadata, no chunk, so fewer
-- pages than when it decodes every column (fetches pin each page once per
-- row, so a row's columns may cost no more pages than its metadata)
EXPLAIN (COSTS OFF) SELECT count(*) FROM bm_col WHERE grp IN (3, 4);
SELECT plan_buffers('SELECT count(*) FROM bm_col WHERE grp IN (3, 4)') AS counting_buffers \gset
SET storage_engine.enable_bitmap_projection = off;
SELECT :counting_buffers
	 < plan_buffers('SELECT count(*) FROM bm_col WHERE grp IN (3, 4)') AS counting_decodes_nothing;
RESET storage_engine.enable_bitmap_projection;

-- a lossy bitmap rechecks every row of its blocks: the recheck columns are
-- decoded there, and only there
SET work_mem = '64kB';
SELECT check_query($$SELECT count(*), avg(price) FROM bm_col WHERE tags @> ARRAY['tag_5']$$);
SELECT check_query($$SELECT id, price FROM bm_col WHERE grp BETWEEN 10 AND 60 AND id % 97 = 0$$);
RESET work_mem;

-- rescans with new parameters (the inner side of a nested loop)
RESET enable_seqscan;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
CREATE TABLE bm_keys AS SELECT g AS k FROM generate_series(1, 5) g;
ANALYZE bm_keys;
EXPLAIN (COSTS OFF) SELECT k, count(*), sum(price) FROM bm_keys JOIN bm_col ON grp = k GROUP BY k;
SELECT check_query($$SELECT k, count(*), sum(price) FROM bm_keys JOIN bm_col ON grp = k GROUP BY k$$);
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;
SET enable_seqscan = off;

-- rows locked, updated and deleted through a projected bitmap scan keep
-- every column: the row is fetched whole by TID for the change
EXPLAIN (COSTS OFF) UPDATE bm_col SET price = price + 1 WHERE grp = 12;
BEGIN;
SELECT id, price FROM bm_col WHERE grp = 11 ORDER BY id LIMIT 3 FOR UPDATE;
UPDATE bm_col SET price = price + 1 WHERE grp = 12;
UPDATE bm_heap SET price = price + 1 WHERE grp = 12;
DELETE FROM bm_col WHERE tags @> ARRAY['tag_13'] AND grp = 13;
DELETE FROM bm_heap WHERE tags @> ARRAY['tag_13'] AND grp = 13;
SELECT check_query($$SELECT * FROM bm_col WHERE grp IN (11, 12, 13)$$);
COMMIT;
RESET enable_seqscan;
RESET enable_indexscan;
SELECT (SELECT count(*) FROM (SELECT * FROM bm_col EXCEPT ALL SELECT * FROM bm_heap) d) AS missing,
	   (SELECT count(*) FROM (SELECT * FROM bm_heap EXCEPT ALL SELECT * FROM bm_col) d) AS extra;

-- a bitmap scan reading two columns of every chunk group is charged for
-- those columns' pages only, as a scan of them is: it wins over a
-- parallel scan evaluating the condition on every row
-- (columns the query does not read make up most of the table's pages)
CREATE TABLE bm_wide (price float8, tags text[], pad1 text, pad2 text)
	USING colcompress;
INSERT INTO bm_wide
SELECT g / 4.0, ARRAY['tag_' || g % 20, 'all'], md5(g::text), md5((-g)::text)
  FROM generate_series(1, 20000) g;
CREATE INDEX ON bm_wide USING gin (tags);
ANALYZE bm_wide;
RESET storage_engine.enable_custom_scan;
SET max_parallel_workers_per_gather = 2;
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
EXPLAIN (COSTS OFF) SELECT count(*), avg(price) FROM bm_wide WHERE tags @> ARRAY['tag_5'];
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;

DROP TABLE bm_col, bm_heap, bm_keys, bm_wide;
DROP FUNCTION check_query(text);
\i common/compare_end.psql
