-- Dictionary encoding: a colcompress chunk of a variable-length column
-- holding at most 256 distinct values is written as each frame's distinct
-- values and a code of up to 8 bits per row (engine.chunk.encoding 2).
-- wide has exactly 256 distinct values, with 4-byte varlena headers.
-- Rows read back the same through scans and fetches by TID, with NULLs,
-- frames of NULLs only (sparse), every code width from 0 (one) to 8 bits
-- (wide), and chunks of more values than a dictionary takes (many), which
-- stay plain.

CREATE TABLE enc_heap (id int, one text, two text, five bpchar(3), tags text[],
					   j jsonb, n numeric, wide text, many text, sparse text);
INSERT INTO enc_heap
SELECT g,
	   'always the same',
	   CASE WHEN g % 2 = 0 THEN 'even' ELSE 'odd' END,
	   (ARRAY['a', 'bb', 'ccc', 'dd', 'e'])[g % 5 + 1],
	   ARRAY['tag_' || (g % 20), 'cat_' || (g % 8)],
	   jsonb_build_object('k', g % 7),
	   (g % 11) * 1.5,
	   repeat('w', 200) || (g % 256),
	   'v' || g,
	   CASE WHEN g % 3000 < 2500 THEN NULL ELSE 's' || (g % 3) END
  FROM generate_series(1, 30000) g;
CREATE TABLE enc_col (LIKE enc_heap) USING colcompress
	WITH (chunk_group_row_limit = 10000);
INSERT INTO enc_col SELECT * FROM enc_heap;

-- which columns' chunks are dictionary-encoded (2): not the one of 10,000
-- distinct values per chunk, not the integers (packed, 3) nor the numerics
-- of one scale (packed decimals, 4)
SELECT a.attname, array_agg(DISTINCT c.encoding) AS encodings
  FROM engine.chunk c
  JOIN pg_attribute a ON a.attrelid = 'enc_col'::regclass AND a.attnum = c.attr_num
 WHERE c.storage_id = engine.storage_id('enc_col')
 GROUP BY a.attname, a.attnum ORDER BY a.attnum;

-- does enc_col hold enc_heap's rows?  all through a scan, or some through
-- the plan the settings allow (test/sql/common/compare.psql, from test/sql)
\getenv abs_srcdir PG_ABS_SRCDIR
\cd :abs_srcdir/sql
\i common/compare.psql
CREATE FUNCTION enc_same(filter text DEFAULT 'true') RETURNS text LANGUAGE sql AS $$
	SELECT same_as_heap('SELECT * FROM enc_col WHERE ' || filter, 'enc_col', 'enc_heap')
$$;
SELECT enc_same() AS scan_equal;
SELECT enc_same('five = ''ccc'' AND two = ''odd''') AS filter_equal;
SELECT count(*), count(sparse), count(DISTINCT tags), count(DISTINCT wide), max(five)
  FROM enc_col;

CREATE INDEX ON enc_col (id);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM enc_col WHERE id = ANY ('{1,2}');
SELECT enc_same('id = ANY (ARRAY(SELECT g * 37 % 30000 + 1 FROM generate_series(1, 400) g))')
	AS index_fetch_equal;
-- rows of one frame asked out of order and again
SELECT enc_same('id IN (5, 3, 4, 1000, 999, 5)') AS repeated_fetch_equal;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SELECT enc_same('id BETWEEN 500 AND 2600 AND id % 3 = 0') AS bitmap_fetch_equal;
RESET enable_indexscan;
RESET enable_seqscan;

-- UPDATE and DELETE read and rewrite dictionary-encoded rows
UPDATE enc_col SET two = 'changed', tags = NULL WHERE id % 100 = 7;
UPDATE enc_heap SET two = 'changed', tags = NULL WHERE id % 100 = 7;
DELETE FROM enc_col WHERE id % 100 = 8;
DELETE FROM enc_heap WHERE id % 100 = 8;
SELECT enc_same() AS after_dml_equal;
SELECT count(*) AS problems FROM engine.colcompress_verify('enc_col');

-- switched off, new chunks are written plain and read the same
SET storage_engine.enable_dictionary_encoding = off;
INSERT INTO enc_col SELECT id + 30000, one, two, five, tags, j, n, wide, many, sparse
  FROM enc_heap WHERE id <= 10000;
INSERT INTO enc_heap SELECT id + 30000, one, two, five, tags, j, n, wide, many, sparse
  FROM enc_heap WHERE id <= 10000;
RESET storage_engine.enable_dictionary_encoding;
SELECT s.stripe_num, array_agg(DISTINCT c.encoding ORDER BY c.encoding) AS encodings
  FROM engine.chunk c JOIN engine.stripe s USING (storage_id, stripe_num)
 WHERE c.storage_id = engine.storage_id('enc_col')
 GROUP BY s.stripe_num ORDER BY s.stripe_num;
SELECT enc_same() AS mixed_equal;

DROP TABLE enc_col, enc_heap;

-- a stripe decides its columns' encodings on its first chunk group: a
-- column of few values there and of many later (a status column that
-- grows) writes the later chunks plain, and its dictionary's samples,
-- taken across the stripe, too (an insert of such rows once failed with
-- "too many distinct values")
CREATE TABLE grow_heap (id int, t text);
INSERT INTO grow_heap
SELECT g, CASE WHEN g <= 10000 THEN 'a' || (g % 10) ELSE 'x' || g END
  FROM generate_series(1, 60000) g;
CREATE TABLE grow_col (LIKE grow_heap) USING colcompress
	WITH (chunk_group_row_limit = 10000);
INSERT INTO grow_col SELECT * FROM grow_heap;
SELECT c.chunk_group_num, c.encoding FROM engine.chunk c
 WHERE c.storage_id = engine.storage_id('grow_col') AND c.attr_num = 2
 ORDER BY 1;
SELECT same_as_heap('SELECT * FROM grow_col', 'grow_col', 'grow_heap') AS grown_equal;
SELECT count(*) AS problems FROM engine.colcompress_verify('grow_col');
DROP TABLE grow_col, grow_heap;
DROP FUNCTION enc_same(text);
\i common/compare_end.psql
