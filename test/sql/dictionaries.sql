-- Compression dictionaries: a colcompress stripe may keep one zstd
-- dictionary per column, shared by that column's short frames, and a
-- rowcompress batch one for its rows.  Rows read back the same through
-- scans and fetches by TID whether or not there is one, and a table mixes
-- stripes or batches with and without dictionaries.

CREATE TABLE dict_heap (id int, tag text, code text, price float8, n int);
INSERT INTO dict_heap
SELECT g, md5(g::text), 'user-' || (g % 997) || '-' || md5((g % 31)::text),
	   round((g * 0.37)::numeric % 1000, 2)::float8, g % 13
  FROM generate_series(1, 40000) g;
-- does table tbl hold dict_heap's rows?  All of them through a scan, or
-- (fetched) 300 ids spread over the table, through the plan the settings
-- allow
CREATE FUNCTION same_rows(tbl text, fetched bool DEFAULT false)
RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
	q text := 'SELECT md5(string_agg(t::text, '','' ORDER BY id)) FROM %I t'
			  || CASE WHEN fetched THEN ' WHERE id = ANY (ARRAY(SELECT g * 397 %% 40000 + 1'
										|| ' FROM generate_series(1, 300) g))' ELSE '' END;
	got text;
	want text;
BEGIN
	EXECUTE format(q, tbl) INTO got;
	EXECUTE format(q, 'dict_heap') INTO want;
	RETURN got = want;
END $$;

CREATE TABLE dict_col (LIKE dict_heap) USING colcompress;
INSERT INTO dict_col SELECT * FROM dict_heap;

-- columns big enough for one got a dictionary, at the start of the stripe
SELECT count(*) FILTER (WHERE d <> -1) > 0 AS some_dictionary,
	   min(d) FILTER (WHERE d <> -1) AS first_at
  FROM engine.stripe s, unnest(s.attr_dict_offset) d
 WHERE s.storage_id = engine.storage_id('dict_col');

-- whole rows through a scan
SELECT same_rows('dict_col') AS scan_equal;

-- a column compressing to under a byte a row takes a dictionary (and short
-- frames) for the few bytes more it costs, though long frames without one
-- are smaller by more than 5%: a fetch decodes a fraction as much
CREATE TABLE dict_narrow (id int, url text) USING colcompress;
INSERT INTO dict_narrow SELECT g, '/page/' || (g % 5000) FROM generate_series(1, 150000) g;
SELECT s.attr_dict_offset[2] <> -1 AS narrow_dictionary
  FROM engine.stripe s WHERE s.storage_id = engine.storage_id('dict_narrow');
SELECT count(*) = 150000 AND bool_and(url = '/page/' || (id % 5000)) AS narrow_equal
  FROM dict_narrow;
SET enable_seqscan = off;
CREATE INDEX ON dict_narrow (id);
SELECT string_agg(url, ',' ORDER BY id) FROM dict_narrow WHERE id IN (1, 4999, 75000, 149999);
RESET enable_seqscan;
DROP TABLE dict_narrow;

-- fetches by TID: every column of rows spread over the stripe
CREATE INDEX ON dict_col (id);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM dict_col WHERE id = ANY ('{1,2}');
SELECT same_rows('dict_col', fetched => true) AS fetch_equal;
-- a session's loaded dictionaries are kept within a size; with none kept
-- but the last, every column's frames load theirs again and still decode
SHOW storage_engine.dictionary_cache_size;
SET storage_engine.dictionary_cache_size = 0;
SELECT same_rows('dict_col', fetched => true) AS fetch_equal_uncached;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT same_rows('dict_col') AS scan_equal_uncached;
RESET storage_engine.dictionary_cache_size;

-- a codec without dictionaries for new stripes: the table mixes both
ALTER TABLE dict_col SET (compression = 'lz4');
INSERT INTO dict_col SELECT id + 40000, tag, code, price, n FROM dict_heap;
INSERT INTO dict_heap SELECT id + 40000, tag, code, price, n FROM dict_heap;
SELECT stripe_num, count(*) FILTER (WHERE d <> -1) > 0 AS has_dictionary
  FROM engine.stripe s, unnest(s.attr_dict_offset) d
 WHERE s.storage_id = engine.storage_id('dict_col')
 GROUP BY stripe_num ORDER BY stripe_num;
SELECT same_rows('dict_col') AS mixed_equal;
SELECT count(*) AS problems FROM engine.colcompress_verify('dict_col');

-- a small stripe keeps none
CREATE TABLE dict_small (LIKE dict_heap) USING colcompress;
INSERT INTO dict_small SELECT * FROM dict_heap WHERE id <= 500;
SELECT bool_and(d = -1) AS no_dictionary
  FROM engine.stripe s, unnest(s.attr_dict_offset) d
 WHERE s.storage_id = engine.storage_id('dict_small');

DROP TABLE dict_col, dict_small;

-- rowcompress: one dictionary per batch, after its frames
DELETE FROM dict_heap WHERE id > 40000;
CREATE TABLE dict_row (LIKE dict_heap) USING rowcompress;
INSERT INTO dict_row SELECT * FROM dict_heap;
SELECT count(*) FILTER (WHERE dict_offset <> -1) > 0 AS some_dictionary,
	   bool_and(dict_offset = -1 OR dict_offset < data_length) AS inside
  FROM engine.batch WHERE storage_id = engine.storage_id('dict_row');
SELECT same_rows('dict_row') AS scan_equal;
CREATE INDEX ON dict_row (id);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET storage_engine.enable_custom_scan = off;
EXPLAIN (COSTS OFF) SELECT * FROM dict_row WHERE id = ANY ('{1,2}');
SELECT same_rows('dict_row', fetched => true) AS fetch_equal;
SET storage_engine.dictionary_cache_size = 0;
SELECT same_rows('dict_row', fetched => true) AS fetch_equal_uncached;
RESET storage_engine.dictionary_cache_size;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET storage_engine.enable_custom_scan;
ALTER TABLE dict_row SET (compression = 'lz4');
INSERT INTO dict_row SELECT id + 40000, tag, code, price, n FROM dict_heap;
INSERT INTO dict_heap SELECT id + 40000, tag, code, price, n FROM dict_heap;
SELECT v.codec, count(*) FILTER (WHERE b.dict_offset <> -1) > 0 AS has_dictionary
  FROM engine.batch b JOIN engine.rowcompress_batches v USING (batch_num)
 WHERE b.storage_id = engine.storage_id('dict_row') AND v.relation = 'dict_row'::regclass
 GROUP BY v.codec ORDER BY v.codec;
SELECT same_rows('dict_row') AS mixed_equal;
SELECT count(*) AS problems FROM engine.rowcompress_verify('dict_row');

DROP TABLE dict_heap, dict_row;
DROP FUNCTION same_rows(text, bool);
