-- the shared body, run for rowcompress (test/sql/common/types.psql); from
-- test/sql, so that psql names the file the same on every machine
\set am rowcompress
\getenv abs_srcdir PG_ABS_SRCDIR
\cd :abs_srcdir/sql
\i common/types.psql

-- Every codec and level: the same rows, compressed differently, read back
-- the same; a codec change applies to new batches, old ones stay readable.
CREATE TABLE codec_src AS
SELECT g AS id, md5(g::text) AS h, repeat('log line ' || g % 13, 1 + g % 7) AS msg,
	   CASE WHEN g % 9 = 0 THEN NULL ELSE g * 1.5 END AS amount,
	   jsonb_build_object('k', g % 17) AS j
  FROM generate_series(1, 3000) g;
CREATE TABLE codec_none (LIKE codec_src) USING rowcompress WITH (compression = 'none', batch_size = 1000);
CREATE TABLE codec_pglz (LIKE codec_src) USING rowcompress WITH (compression = 'pglz', batch_size = 1000);
CREATE TABLE codec_lz4 (LIKE codec_src) USING rowcompress WITH (compression = 'lz4', batch_size = 1000);
CREATE TABLE codec_zstd1 (LIKE codec_src) USING rowcompress WITH (compression = 'zstd', compression_level = 1, batch_size = 1000);
CREATE TABLE codec_zstd19 (LIKE codec_src) USING rowcompress WITH (compression = 'zstd', compression_level = 19, batch_size = 1000);
CREATE TABLE codec_deflate (LIKE codec_src) USING rowcompress WITH (compression = 'deflate', batch_size = 1000);
INSERT INTO codec_none SELECT * FROM codec_src;
INSERT INTO codec_pglz SELECT * FROM codec_src;
INSERT INTO codec_lz4 SELECT * FROM codec_src;
INSERT INTO codec_zstd1 SELECT * FROM codec_src;
INSERT INTO codec_zstd19 SELECT * FROM codec_src;
INSERT INTO codec_deflate SELECT * FROM codec_src;
SELECT relation, count(*) AS batches, sum(row_count) AS rows, min(codec) AS codec,
	   bool_and(data_length < raw_length) = (min(codec) <> 'none') AS smaller_when_compressed
  FROM engine.rowcompress_batches
 WHERE relation::text LIKE 'codec\_%'
 GROUP BY relation ORDER BY relation::text;
SELECT t.relname,
	   (SELECT count(*) FROM (SELECT * FROM codec_src EXCEPT ALL SELECT * FROM codec_none) d) +
	   (SELECT count(*) FROM (SELECT * FROM codec_src EXCEPT ALL SELECT * FROM codec_pglz) d) +
	   (SELECT count(*) FROM (SELECT * FROM codec_src EXCEPT ALL SELECT * FROM codec_lz4) d) +
	   (SELECT count(*) FROM (SELECT * FROM codec_src EXCEPT ALL SELECT * FROM codec_zstd1) d) +
	   (SELECT count(*) FROM (SELECT * FROM codec_src EXCEPT ALL SELECT * FROM codec_zstd19) d) +
	   (SELECT count(*) FROM (SELECT * FROM codec_src EXCEPT ALL SELECT * FROM codec_deflate) d) AS differ
  FROM (VALUES ('all codecs')) t(relname);
-- the stronger zstd level is not larger
SELECT (SELECT sum(data_length) FROM engine.rowcompress_batches WHERE relation = 'codec_zstd19'::regclass) <=
	   (SELECT sum(data_length) FROM engine.rowcompress_batches WHERE relation = 'codec_zstd1'::regclass) AS level_19_not_larger;
ALTER TABLE codec_pglz SET (compression = 'lz4');
INSERT INTO codec_pglz SELECT * FROM codec_src WHERE id <= 500;
SELECT codec, count(*) AS batches, sum(row_count) AS rows FROM engine.rowcompress_batches
 WHERE relation = 'codec_pglz'::regclass GROUP BY codec ORDER BY codec;
SELECT count(*), count(DISTINCT h), sum(amount) FROM codec_pglz;
SELECT relation, batch_size, compression, compression_level FROM engine.rowcompress_options
 WHERE relation::text LIKE 'codec\_%' ORDER BY relation::text;
SELECT count(*) AS problems FROM engine.rowcompress_verify('codec_pglz');
DROP TABLE codec_src, codec_none, codec_pglz, codec_lz4, codec_zstd1, codec_zstd19, codec_deflate;

-- INSERT ... SELECT from heap hands over heap tuples: copied as they are
-- when they are rows of our layout, rebuilt when they hold compressed or
-- TOASTed values, fewer columns, or dropped ones
CREATE TABLE src_heap (a int, junk text, b text);
INSERT INTO src_heap SELECT g, 'junk', CASE WHEN g % 3 = 0 THEN repeat('abc', 2000 + g % 7)
											WHEN g % 3 = 1 THEN repeat(md5(g::text), 10000)
											ELSE 'plain ' || g END
  FROM generate_series(1, 3000) g;
ALTER TABLE src_heap DROP COLUMN junk;
ALTER TABLE src_heap ADD COLUMN c int DEFAULT 5;
INSERT INTO src_heap VALUES (-1, 'after', 6);
CREATE TABLE dst_row (a int, junk text, b text) USING rowcompress;
ALTER TABLE dst_row DROP COLUMN junk;
ALTER TABLE dst_row ADD COLUMN c int DEFAULT 5;
INSERT INTO dst_row SELECT * FROM src_heap;
CREATE TABLE dst_row2 (a int, b text, c int) USING rowcompress;
INSERT INTO dst_row2 SELECT * FROM src_heap;
SELECT (SELECT count(*) FROM (SELECT * FROM src_heap EXCEPT ALL SELECT * FROM dst_row) d) AS differ,
	   (SELECT count(*) FROM (SELECT * FROM src_heap EXCEPT ALL SELECT * FROM dst_row2) d) AS differ2,
	   (SELECT sum(length(b)) FROM dst_row) = (SELECT sum(length(b)) FROM src_heap) AS lengths;
SELECT count(*) AS problems FROM engine.rowcompress_verify('dst_row');
DROP TABLE src_heap, dst_row, dst_row2;

-- Every column type through a table rewrite (ALTER COLUMN TYPE reads the
-- old rows with the old column layout), dropped and added columns.
CREATE TABLE layout_heap (a smallint, b text, c int8, d numeric, e char(3), f float8, g bool);
INSERT INTO layout_heap
SELECT g % 1000, CASE WHEN g % 5 = 0 THEN NULL ELSE repeat('b', g % 40) END, g * 7,
	   CASE WHEN g % 3 = 0 THEN NULL ELSE g / 7.0 END, 'e' || (g % 10), g / 3.0, g % 2 = 0
  FROM generate_series(1, 25000) g;
CREATE TABLE layout_row (LIKE layout_heap) USING rowcompress;
INSERT INTO layout_row SELECT * FROM layout_heap;
ALTER TABLE layout_heap DROP COLUMN c;
ALTER TABLE layout_row DROP COLUMN c;
ALTER TABLE layout_heap ADD COLUMN h text DEFAULT 'added';
ALTER TABLE layout_row ADD COLUMN h text DEFAULT 'added';
ALTER TABLE layout_heap ADD COLUMN i int;
ALTER TABLE layout_row ADD COLUMN i int;
INSERT INTO layout_heap (a, b, i) VALUES (-1, 'after', 1);
INSERT INTO layout_row (a, b, i) VALUES (-1, 'after', 1);
SELECT (SELECT count(*) FROM (SELECT t::text FROM layout_heap t EXCEPT ALL SELECT t::text FROM layout_row t) d) AS differ,
	   (SELECT count(*) FROM layout_row) AS rows;
-- aggregation without a filter reads each row only as far as its last
-- column it needs, without a slot; rows written before a column was
-- added go through a slot, which gives them its default
EXPLAIN (COSTS OFF)
SELECT count(*), sum(a), count(h), sum(length(h)), count(i) FROM layout_row;
SELECT (SELECT array[count(*), sum(a), count(h), sum(length(h)), count(i), sum(length(b))] FROM layout_heap)
	 = (SELECT array[count(*), sum(a), count(h), sum(length(h)), count(i), sum(length(b))] FROM layout_row)
	   AS same_aggregates;
SELECT (SELECT array[count(*), sum(a), sum(length(b))] FROM layout_heap)
	 = (SELECT array[count(*), sum(a), sum(length(b))] FROM layout_row) AS same_prefix;
-- a filter reads them as far as its last column as well; one that reads a
-- whole row or a system column gets the stored row
EXPLAIN (COSTS OFF)
SELECT count(*), sum(a) FROM layout_row WHERE h = 'added' AND b LIKE '%1%';
SELECT (SELECT array[count(*), sum(a)] FROM layout_heap WHERE h = 'added' AND b LIKE '%1%')
	 = (SELECT array[count(*), sum(a)] FROM layout_row WHERE h = 'added' AND b LIKE '%1%')
	   AS same_filtered;
SELECT (SELECT array[count(*), sum(a)] FROM layout_heap WHERE i IS NOT NULL OR a % 7 = 0)
	 = (SELECT array[count(*), sum(a)] FROM layout_row WHERE i IS NOT NULL OR a % 7 = 0)
	   AS same_filtered_added;
SELECT (SELECT count(*) FROM layout_heap t WHERE t::text LIKE '%after%')
	 = (SELECT count(*) FROM layout_row t WHERE t::text LIKE '%after%') AS same_whole_row;
SELECT (SELECT count(*) FROM layout_heap WHERE ctid IS NOT NULL AND a > 100)
	 = (SELECT count(*) FROM layout_row WHERE ctid IS NOT NULL AND a > 100) AS same_system_column;
-- an aggregation evaluates some inputs on the scan's rows: rows are read
-- as far as those columns too (here flag, past every column it loads)
CREATE TABLE ex_heap (k int, v numeric, grp text, flag text);
INSERT INTO ex_heap SELECT g % 50, g / 10.0, 'g' || g % 4, CASE WHEN g % 3 = 0 THEN 'yes' END
  FROM generate_series(1, 30000) g;
CREATE TABLE ex_row (LIKE ex_heap) USING rowcompress;
INSERT INTO ex_row SELECT * FROM ex_heap;
EXPLAIN (COSTS OFF)
SELECT grp, count(DISTINCT k), sum(CASE WHEN flag = 'yes' THEN v END) FROM ex_row GROUP BY grp;
SELECT (SELECT array_agg(s ORDER BY s) FROM (SELECT grp, count(DISTINCT k), sum(CASE WHEN flag = 'yes' THEN v END) FROM ex_heap GROUP BY grp) s)::text
	 = (SELECT array_agg(s ORDER BY s) FROM (SELECT grp, count(DISTINCT k), sum(CASE WHEN flag = 'yes' THEN v END) FROM ex_row GROUP BY grp) s)::text
	   AS same_expression_columns;
DROP TABLE ex_heap, ex_row;
-- rows a scan hands on (here to a sort) are read as far as its target
-- list and filter reach, the others NULL
EXPLAIN (COSTS OFF) SELECT a, b FROM layout_row WHERE a > 100 ORDER BY b DESC, a LIMIT 5;
SELECT (SELECT array_agg(s ORDER BY s) FROM (SELECT a, b FROM layout_heap WHERE a > 100 ORDER BY b DESC, a LIMIT 5) s)
	 = (SELECT array_agg(s ORDER BY s) FROM (SELECT a, b FROM layout_row WHERE a > 100 ORDER BY b DESC, a LIMIT 5) s)
	   AS same_top;
SELECT (SELECT array_agg(s ORDER BY s) FROM (SELECT a, h, i FROM layout_heap WHERE a > 100 ORDER BY a DESC LIMIT 50) s)
	 = (SELECT array_agg(s ORDER BY s) FROM (SELECT a, h, i FROM layout_row WHERE a > 100 ORDER BY a DESC LIMIT 50) s)
	   AS same_top_added;
-- the rewrite reads rows stored with the old types
ALTER TABLE layout_heap ALTER COLUMN a TYPE bigint, ALTER COLUMN e TYPE text, ALTER COLUMN d TYPE float8;
ALTER TABLE layout_row ALTER COLUMN a TYPE bigint, ALTER COLUMN e TYPE text, ALTER COLUMN d TYPE float8;
ALTER TABLE layout_heap ALTER COLUMN f TYPE numeric USING f::numeric(20,3);
ALTER TABLE layout_row ALTER COLUMN f TYPE numeric USING f::numeric(20,3);
SELECT (SELECT count(*) FROM (SELECT t::text FROM layout_heap t EXCEPT ALL SELECT t::text FROM layout_row t) d) AS differ,
	   (SELECT count(*) FROM layout_row) AS rows;
SELECT pg_typeof(a), pg_typeof(e), pg_typeof(d), pg_typeof(f) FROM layout_row LIMIT 1;
SELECT count(*) AS problems FROM engine.rowcompress_verify('layout_row');

-- batches: 25001 rows make three, whose sizes the view reports
SELECT count(*) AS batches, sum(row_count) AS rows,
	   bool_and(data_length > 0 AND raw_length > 0) AS sizes,
	   bool_and(codec IS NOT NULL) AS codecs_named
  FROM engine.rowcompress_batches WHERE relation = 'layout_row'::regclass;

DROP TABLE layout_heap, layout_row;

-- wide rows: a batch is written when its rows reach the byte budget, long
-- before batch_size rows, so memory stays bounded
CREATE TABLE wide (id int, t text) USING rowcompress;
INSERT INTO wide SELECT g, repeat(md5(g::text), 32768) FROM generate_series(1, 100) g;
SELECT count(*) > 1 AS several_batches, max(row_count) < 100 AS budget_hit,
	   max(raw_length) <= 64 * 1024 * 1024 AS within_budget, sum(row_count) AS rows
  FROM engine.rowcompress_batches WHERE relation = 'wide'::regclass;
SELECT count(*), sum(length(t)), count(DISTINCT t) FROM wide;
SELECT count(*) AS problems FROM engine.rowcompress_verify('wide');
DROP TABLE wide;

-- NOT NULL columns, which a JIT-compiled deformer trusts, next to nullable
-- ones and columns added later (with JIT forced on where the server has it)
CREATE TABLE nn_heap (a int NOT NULL, b text, c int8 NOT NULL, d char(5) NOT NULL);
INSERT INTO nn_heap SELECT g, CASE WHEN g % 4 = 0 THEN NULL ELSE 'b' || g END, g * 3, 'd' || g % 9
  FROM generate_series(1, 12000) g;
CREATE TABLE nn_row (LIKE nn_heap INCLUDING ALL) USING rowcompress;
INSERT INTO nn_row SELECT * FROM nn_heap;
ALTER TABLE nn_heap ADD COLUMN e int NOT NULL DEFAULT 7;
ALTER TABLE nn_row ADD COLUMN e int NOT NULL DEFAULT 7;
-- checking a new constraint reads rows that break it: PostgreSQL's error
ALTER TABLE nn_row ALTER COLUMN b SET NOT NULL;
ALTER TABLE nn_row ADD COLUMN f int NOT NULL;
ALTER TABLE nn_row ALTER COLUMN a DROP NOT NULL;
ALTER TABLE nn_row ALTER COLUMN a SET NOT NULL;
INSERT INTO nn_heap VALUES (-1, 'x', -1, 'y', -1);
INSERT INTO nn_row VALUES (-1, 'x', -1, 'y', -1);
SET jit = on;
SET jit_above_cost = 0;
SET jit_optimize_above_cost = 0;
SELECT sum(a), count(b), sum(c), count(DISTINCT d), sum(e) FROM nn_row;
SELECT (SELECT count(*) FROM (SELECT t::text FROM nn_heap t EXCEPT ALL SELECT t::text FROM nn_row t) d) AS differ;
RESET jit;
RESET jit_above_cost;
RESET jit_optimize_above_cost;
DROP TABLE nn_heap, nn_row;
