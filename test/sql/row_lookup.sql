-- Fetches by TID (index, bitmap and index-only scans, DML) find the stripe
-- or batch holding a row number through engine.row_run, which holds every
-- stream's runs of row numbers, instead of reading every stream's
-- metadata; after 64 streams found that way a statement reads them all.
-- Both ways must find exactly the rows heap finds.

CREATE TABLE rl_heap (id int, grp int, note text);
INSERT INTO rl_heap SELECT g, g % 10, 'note ' || g FROM generate_series(1, 70000) g;
CREATE INDEX ON rl_heap (id);
-- 70 stripes of 1,000 rows; 700 batches of 100
CREATE TABLE rl_col (LIKE rl_heap) USING colcompress
	WITH (stripe_row_limit = 1000, chunk_group_row_limit = 1000);
CREATE TABLE rl_row (LIKE rl_heap) USING rowcompress WITH (batch_size = 100);
INSERT INTO rl_col SELECT * FROM rl_heap;
INSERT INTO rl_row SELECT * FROM rl_heap;
CREATE INDEX ON rl_col (id);
CREATE INDEX ON rl_row (id);

-- one run per stream, each the stream's own
CREATE FUNCTION runs_match(rel regclass) RETURNS text LANGUAGE sql AS $$
	SELECT count(*) || ' runs, ' ||
		   CASE WHEN bool_and(s.row_runs[1] = r.first_row_number AND s.row_runs[2] = r.row_count)
				THEN 'each its stream''s' ELSE 'MISMATCH' END
	  FROM engine.row_run r
	  JOIN (SELECT storage_id, stripe_num AS num, row_runs FROM engine.stripe
			UNION ALL
			SELECT storage_id, batch_num, row_runs FROM engine.batch) s
		ON s.storage_id = r.storage_id AND s.num = r.stream_num
	 WHERE r.storage_id = engine.storage_id(rel) $$;
SELECT runs_match('rl_col') AS col_runs, runs_match('rl_row') AS row_runs;

-- the same rows as heap, through plan kind plan
CREATE FUNCTION same_as_heap(q text, plan text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	got text;
	want text;
	wrap text := 'SELECT md5(coalesce(string_agg(r::text, ''|'' ORDER BY r::text), '''')) '
				 || '|| '' '' || count(*) FROM (%s) r';
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_indexscan', (plan = 'index')::text, true);
	PERFORM set_config('enable_bitmapscan', (plan = 'bitmap')::text, true);
	PERFORM set_config('storage_engine.enable_custom_scan', 'off', true);
	EXECUTE format(wrap, q) INTO got;
	EXECUTE format(wrap, regexp_replace(q, '\m(rl|fc|fr|rc)_(col|row)\M', '\1_heap', 'g')) INTO want;
	RETURN CASE WHEN got = want THEN 'same, ' || split_part(got, ' ', 2) || ' rows'
				ELSE 'DIFFERENT: ' || got || ' / ' || want END;
END $$;

-- a few rows: each stream found through the index
SELECT same_as_heap('SELECT * FROM rl_col WHERE id IN (7, 15001, 69999, 70001)', 'index') AS col_few,
	   same_as_heap('SELECT * FROM rl_row WHERE id IN (7, 15001, 69999, 70001)', 'index') AS row_few;
-- rows of every stream, in key order and in TID order: past 64 streams the
-- statement reads them all
SELECT same_as_heap('SELECT * FROM rl_col WHERE id = ANY (ARRAY(SELECT g * 97 FROM generate_series(1, 721) g))', 'index') AS col_many_index,
	   same_as_heap('SELECT * FROM rl_col WHERE id = ANY (ARRAY(SELECT g * 97 FROM generate_series(1, 721) g))', 'bitmap') AS col_many_bitmap,
	   same_as_heap('SELECT * FROM rl_row WHERE id = ANY (ARRAY(SELECT g * 97 FROM generate_series(1, 721) g))', 'index') AS row_many_index,
	   same_as_heap('SELECT * FROM rl_row WHERE id = ANY (ARRAY(SELECT g * 97 FROM generate_series(1, 721) g))', 'bitmap') AS row_many_bitmap;
-- backwards, in descending key order
SELECT same_as_heap('SELECT id FROM rl_col WHERE id BETWEEN 100 AND 69000 AND id % 250 = 0 ORDER BY id DESC', 'index') AS col_desc,
	   same_as_heap('SELECT id FROM rl_row WHERE id BETWEEN 100 AND 69000 AND id % 250 = 0 ORDER BY id DESC', 'index') AS row_desc;

-- DML finds its rows the same way; rolled back rows leave no run behind
BEGIN;
INSERT INTO rl_col SELECT g, 0, 'rolled back' FROM generate_series(80001, 82000) g;
INSERT INTO rl_row SELECT g, 0, 'rolled back' FROM generate_series(80001, 82000) g;
ROLLBACK;
UPDATE rl_col SET note = 'updated' WHERE id IN (3, 14000, 27000);
UPDATE rl_row SET note = 'updated' WHERE id IN (3, 14000, 27000);
UPDATE rl_heap SET note = 'updated' WHERE id IN (3, 14000, 27000);
DELETE FROM rl_col WHERE id BETWEEN 2001 AND 2900;
DELETE FROM rl_row WHERE id BETWEEN 2001 AND 2900;
DELETE FROM rl_heap WHERE id BETWEEN 2001 AND 2900;
SELECT same_as_heap('SELECT * FROM rl_col WHERE id IN (3, 2500, 14000, 27000, 81000)', 'index') AS col_after_dml,
	   same_as_heap('SELECT * FROM rl_row WHERE id IN (3, 2500, 14000, 27000, 81000)', 'index') AS row_after_dml;

-- VACUUM writes mostly deleted streams again with new row numbers: their
-- runs go with them, the new streams' runs come
VACUUM rl_col;
VACUUM rl_row;
SELECT runs_match('rl_col') AS col_runs, runs_match('rl_row') AS row_runs;
SELECT same_as_heap('SELECT * FROM rl_col WHERE id BETWEEN 1990 AND 3010', 'bitmap') AS col_after_vacuum,
	   same_as_heap('SELECT * FROM rl_row WHERE id BETWEEN 1990 AND 3010', 'bitmap') AS row_after_vacuum;
SELECT count(*) AS col_problems FROM engine.colcompress_verify('rl_col');
SELECT count(*) AS row_problems FROM engine.rowcompress_verify('rl_row');

-- the verify functions report a run table that lost a run, or has one
-- no stream holds
BEGIN;
DELETE FROM engine.row_run
 WHERE storage_id = engine.storage_id('rl_col')
   AND first_row_number = (SELECT min(first_row_number) FROM engine.row_run
						   WHERE storage_id = engine.storage_id('rl_col'));
INSERT INTO engine.row_run VALUES (engine.storage_id('rl_row'), 999999, 10000000, 5);
SELECT regexp_replace(problem, '[0-9]+', 'N', 'g') AS col_problem
  FROM engine.colcompress_verify('rl_col');
SELECT regexp_replace(problem, '[0-9]+', 'N', 'g') AS row_problem
  FROM engine.rowcompress_verify('rl_row');
ROLLBACK;

-- TRUNCATE and DROP take the runs with the streams
SELECT engine.storage_id('rl_col') AS col_storage, engine.storage_id('rl_row') AS row_storage \gset
TRUNCATE rl_col;
DROP TABLE rl_row;
SELECT count(*) AS runs_left FROM engine.row_run
 WHERE storage_id IN (:col_storage, :row_storage);

DROP TABLE rl_col, rl_heap;

-- A backend keeps hints of which stream holds a run of row numbers and
-- where its metadata row is (catalog/stream_hints.c), and checks each hint
-- against its snapshot before use.  A row rewritten by VACUUM gets a new
-- row number and its old stream is deleted: a fetch of the old TID must
-- find nothing, although this backend's hint still names the old stream.
CREATE TABLE hint_col (id int, v text) USING colcompress
	WITH (stripe_row_limit = 1000, chunk_group_row_limit = 1000);
CREATE TABLE hint_row (id int, v text) USING rowcompress WITH (batch_size = 100);
INSERT INTO hint_col SELECT g, 'v' || g FROM generate_series(1, 5000) g;
INSERT INTO hint_row SELECT g, 'v' || g FROM generate_series(1, 1000) g;
CREATE INDEX ON hint_col (id);
CREATE INDEX ON hint_row (id);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT ctid AS col_old_tid FROM hint_col WHERE id = 1995 \gset
SELECT ctid AS row_old_tid FROM hint_row WHERE id = 195 \gset
SELECT v AS col_by_old_tid FROM hint_col WHERE ctid = :'col_old_tid';
SELECT v AS row_by_old_tid FROM hint_row WHERE ctid = :'row_old_tid';
DELETE FROM hint_col WHERE id BETWEEN 1001 AND 1990;
DELETE FROM hint_row WHERE id BETWEEN 101 AND 190;
VACUUM hint_col;
VACUUM hint_row;
SELECT ctid <> :'col_old_tid' AS col_moved, v FROM hint_col WHERE id = 1995;
SELECT ctid <> :'row_old_tid' AS row_moved, v FROM hint_row WHERE id = 195;
SELECT count(*) AS col_rows_at_old_tid FROM hint_col WHERE ctid = :'col_old_tid';
SELECT count(*) AS row_rows_at_old_tid FROM hint_row WHERE ctid = :'row_old_tid';
SELECT count(*) AS col_rows, sum(id) AS col_sum FROM hint_col WHERE id BETWEEN 900 AND 2100;
SELECT count(*) AS row_rows, sum(id) AS row_sum FROM hint_row WHERE id BETWEEN 90 AND 210;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE hint_col, hint_row;

-- Fetches keep the frames they decompressed (storage_engine.frame_cache_size)
-- and copy them from there when they meet them again: the same rows as
-- heap the first time, from the cache, and with it off.
CREATE TABLE fc_heap (id int, v text, w text, k int);
INSERT INTO fc_heap SELECT g, repeat('value ' || g % 7, 10),
	   'w' || g || repeat('y', g % 17), (g * 7919) % 3001
  FROM generate_series(1, 3000) g;
CREATE TABLE fc_col (LIKE fc_heap) USING colcompress
	WITH (stripe_row_limit = 1000, chunk_group_row_limit = 1000);
CREATE TABLE fc_row (LIKE fc_heap) USING rowcompress WITH (batch_size = 1000);
INSERT INTO fc_col SELECT * FROM fc_heap;
INSERT INTO fc_row SELECT * FROM fc_heap;
CREATE INDEX ON fc_col (id);
CREATE INDEX ON fc_row (id);
CREATE INDEX ON fc_col (k);
-- the frames fetched are compressed: those are the ones kept
SELECT bool_and(stored_length < raw_length) AS col_compressed
  FROM engine.chunk WHERE storage_id = engine.storage_id('fc_col') AND attr_num IN (2, 3);
SELECT bool_and(data_length < raw_length) AS row_compressed
  FROM engine.batch WHERE storage_id = engine.storage_id('fc_row');
SHOW storage_engine.frame_cache_size;
SELECT same_as_heap('SELECT * FROM fc_col WHERE id % 97 = 3 AND id < 2500', 'index') AS col_first,
	   same_as_heap('SELECT * FROM fc_col WHERE id % 97 = 3 AND id < 2500', 'index') AS col_cached,
	   same_as_heap('SELECT * FROM fc_row WHERE id % 97 = 3 AND id < 2500', 'index') AS row_first,
	   same_as_heap('SELECT * FROM fc_row WHERE id % 97 = 3 AND id < 2500', 'index') AS row_cached;
-- rows in key order, not the table's: most are the first asked of their
-- frame since the one before, and decoded in the cache; w's values are
-- found from the marks kept beside its frames
SELECT encoding FROM engine.chunk
 WHERE storage_id = engine.storage_id('fc_col') AND attr_num = 3 LIMIT 1;
SELECT same_as_heap('SELECT * FROM fc_col WHERE k < 600', 'index') AS col_key_order,
	   same_as_heap('SELECT * FROM fc_col WHERE k < 600', 'index') AS col_key_order_cached;
SET storage_engine.frame_cache_size = 0;
SELECT same_as_heap('SELECT * FROM fc_col WHERE id % 97 = 3 AND id < 2500', 'index') AS col_uncached,
	   same_as_heap('SELECT * FROM fc_row WHERE id % 97 = 3 AND id < 2500', 'index') AS row_uncached;
RESET storage_engine.frame_cache_size;

-- A frame is named by its checksums, not only by where it lies: blocks
-- VACUUM frees are written again, here with other values in the same
-- places, and the rows fetched there are the new ones.
SELECT same_as_heap('SELECT * FROM fc_col WHERE id BETWEEN 2001 AND 3000', 'index') AS col_before,
	   same_as_heap('SELECT * FROM fc_row WHERE id BETWEEN 2001 AND 3000', 'index') AS row_before;
SELECT first_block AS col_block FROM engine.stripe
 WHERE storage_id = engine.storage_id('fc_col') ORDER BY stripe_num DESC LIMIT 1 \gset
SELECT first_block AS row_block FROM engine.batch
 WHERE storage_id = engine.storage_id('fc_row') ORDER BY batch_num DESC LIMIT 1 \gset
DELETE FROM fc_heap WHERE id > 2000;
DELETE FROM fc_col WHERE id > 2000;
DELETE FROM fc_row WHERE id > 2000;
VACUUM fc_col;
VACUUM fc_row;
VACUUM fc_col;
VACUUM fc_row;
INSERT INTO fc_heap SELECT g, repeat('other ' || g % 5, 10), 'x' || g % 100, g
  FROM generate_series(2001, 3000) g;
INSERT INTO fc_col SELECT * FROM fc_heap WHERE id > 2000;
INSERT INTO fc_row SELECT * FROM fc_heap WHERE id > 2000;
SELECT first_block = :col_block AS col_same_blocks FROM engine.stripe
 WHERE storage_id = engine.storage_id('fc_col') ORDER BY stripe_num DESC LIMIT 1;
SELECT first_block = :row_block AS row_same_blocks FROM engine.batch
 WHERE storage_id = engine.storage_id('fc_row') ORDER BY batch_num DESC LIMIT 1;
SELECT same_as_heap('SELECT * FROM fc_col WHERE id BETWEEN 2001 AND 3000', 'index') AS col_after,
	   same_as_heap('SELECT * FROM fc_row WHERE id BETWEEN 2001 AND 3000', 'index') AS row_after;
DROP TABLE fc_heap, fc_col, fc_row;

-- Frames stored raw are kept too, for the fetches that decode a row where
-- its frame lies: f (random floats, NULLs among them, plain), h (random
-- integers, packed) and s (hex digests, packed characters) are stored raw;
-- their rows are read one by one until a frame is met again, which is then
-- read whole and kept.  p's frames are delta-encoded and kept with the
-- deltas undone; n's are packed decimals, made into numerics when read.
CREATE TABLE fr_heap (id int, f float8, h int, p int, s text, n numeric(12, 2));
INSERT INTO fr_heap SELECT g, CASE WHEN g % 11 = 0 THEN NULL ELSE sin(g) * 1e6 END,
	   hashint4(g), (g * 7919) % 3001, md5(g::text),
	   CASE WHEN g % 13 = 0 THEN NULL ELSE ((g * 7919) % 100003) / 100.0 END
  FROM generate_series(1, 3000) g;
CREATE TABLE fr_col (LIKE fr_heap) USING colcompress
	WITH (stripe_row_limit = 1000, chunk_group_row_limit = 1000);
INSERT INTO fr_col SELECT * FROM fr_heap;
CREATE INDEX ON fr_col (id);
CREATE INDEX ON fr_col (p);
SELECT attr_num, encoding, stored_length > raw_length AS stored_raw
  FROM engine.chunk WHERE storage_id = engine.storage_id('fr_col') AND stripe_num = 1
 ORDER BY attr_num;
-- rows 37 apart, a few of each frame, in TID order; then in p's order
SELECT same_as_heap('SELECT * FROM fr_col WHERE id = ANY (ARRAY(SELECT g * 37 FROM generate_series(1, 80) g))', 'index') AS first,
	   same_as_heap('SELECT * FROM fr_col WHERE id = ANY (ARRAY(SELECT g * 37 FROM generate_series(1, 80) g))', 'index') AS met_again,
	   same_as_heap('SELECT * FROM fr_col WHERE id = ANY (ARRAY(SELECT g * 37 FROM generate_series(1, 80) g))', 'index') AS cached,
	   same_as_heap('SELECT * FROM fr_col WHERE id = ANY (ARRAY(SELECT g * 37 FROM generate_series(1, 80) g))', 'bitmap') AS cached_bitmap,
	   same_as_heap('SELECT * FROM fr_col WHERE p < 90', 'index') AS key_order,
	   same_as_heap('SELECT * FROM fr_col WHERE p < 90', 'index') AS key_order_cached;
-- the raw columns' rows come from the cache, not from their pages
CREATE FUNCTION blocks_touched(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	p json;
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	PERFORM set_config('storage_engine.enable_custom_scan', 'off', true);
	EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ' || q INTO p;
	RETURN (p -> 0 -> 'Plan' ->> 'Shared Hit Blocks')::bigint +
		   (p -> 0 -> 'Plan' ->> 'Shared Read Blocks')::bigint;
END $$;
SELECT blocks_touched('SELECT id, f, h, s FROM fr_col WHERE id = ANY (ARRAY(SELECT g * 37 FROM generate_series(1, 80) g))') AS cached_blocks \gset
SET storage_engine.frame_cache_size = 0;
SELECT blocks_touched('SELECT id, f, h, s FROM fr_col WHERE id = ANY (ARRAY(SELECT g * 37 FROM generate_series(1, 80) g))') AS uncached_blocks \gset
SELECT same_as_heap('SELECT * FROM fr_col WHERE id = ANY (ARRAY(SELECT g * 37 FROM generate_series(1, 80) g))', 'index') AS uncached;
-- In a cache too small for the raw frames of s (16 kB, over a sixteenth
-- of 128 kB), what lookups read of them row by row is kept instead: the
-- same 80 rows met again read at least 40 pages fewer than with the cache
-- off (two a row, the frame's start and the row's bytes, less the pages
-- shared; the index's pages are read either way).
SET storage_engine.frame_cache_size = '128kB';
SELECT blocks_touched('SELECT s FROM fr_col WHERE id = ANY (ARRAY(SELECT g * 37 FROM generate_series(1, 80) g))') AS rows_first_blocks \gset
SELECT blocks_touched('SELECT s FROM fr_col WHERE id = ANY (ARRAY(SELECT g * 37 FROM generate_series(1, 80) g))') AS rows_kept_blocks \gset
SELECT same_as_heap('SELECT * FROM fr_col WHERE id = ANY (ARRAY(SELECT g * 37 FROM generate_series(1, 80) g))', 'index') AS rows_kept,
	   same_as_heap('SELECT * FROM fr_col WHERE id = ANY (ARRAY(SELECT g * 37 FROM generate_series(1, 80) g))', 'bitmap') AS rows_kept_bitmap;
SET storage_engine.frame_cache_size = 0;
SELECT blocks_touched('SELECT s FROM fr_col WHERE id = ANY (ARRAY(SELECT g * 37 FROM generate_series(1, 80) g))') AS rows_off_blocks \gset
SELECT :rows_off_blocks - :rows_kept_blocks >= 40 AS kept_rows_from_cache;
RESET storage_engine.frame_cache_size;
SELECT :cached_blocks < :uncached_blocks AS raw_rows_from_cache;
DROP TABLE fr_heap, fr_col;

-- A row met again is kept whole beside the frames (format/row_cache.c): a
-- lookup finding its rows there reads no page of the table's data, only
-- its metadata, as a lookup reading no column does.  In a cache of 128 kB
-- no frame of v or x is kept (16 kB and more, over a sixteenth of it): the
-- rows are.  Rows 37 apart, a few of each chunk group; the bitmap heap
-- scan's own pages (the index's are its child's).
CREATE TABLE rc_heap (id int, v text, w int, x text);
INSERT INTO rc_heap SELECT g, repeat('value ' || g % 7, 10), (g * 7919) % 3001,
	   CASE WHEN g % 5 = 0 THEN NULL ELSE md5(g::text) END
  FROM generate_series(1, 3000) g;
CREATE TABLE rc_col (LIKE rc_heap) USING colcompress
	WITH (stripe_row_limit = 1000, chunk_group_row_limit = 1000);
INSERT INTO rc_col SELECT * FROM rc_heap;
CREATE INDEX ON rc_col (id);
CREATE TABLE rc_row (LIKE rc_heap) USING rowcompress WITH (batch_size = 1000);
INSERT INTO rc_row SELECT * FROM rc_heap;
CREATE INDEX ON rc_row (id);
CREATE FUNCTION table_blocks(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	p json;
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('storage_engine.enable_custom_scan', 'off', true);
	EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ' || q INTO p;
	RETURN (p -> 0 -> 'Plan' ->> 'Shared Hit Blocks')::bigint +
		   (p -> 0 -> 'Plan' ->> 'Shared Read Blocks')::bigint -
		   (p -> 0 -> 'Plan' -> 'Plans' -> 0 ->> 'Shared Hit Blocks')::bigint -
		   (p -> 0 -> 'Plan' -> 'Plans' -> 0 ->> 'Shared Read Blocks')::bigint;
END $$;
\set rc_few 'SELECT * FROM rc_col WHERE id = ANY (ARRAY(SELECT g * 37 FROM generate_series(1, 80) g))'
\set rc_none 'SELECT count(*) FROM rc_col WHERE id = ANY (ARRAY(SELECT g * 37 FROM generate_series(1, 80) g))'
SET storage_engine.frame_cache_size = '128kB';
SELECT table_blocks(:'rc_none') AS no_columns \gset
SELECT table_blocks(:'rc_none') AS no_columns \gset
SELECT table_blocks(:'rc_few') AS first_reads \gset
SELECT table_blocks(:'rc_few') AS met_again_reads \gset
SELECT table_blocks(:'rc_few') AS kept_reads \gset
SELECT :first_reads > :no_columns AS first_reads_data,
	   :met_again_reads > :no_columns AS met_again_reads_data,
	   :kept_reads = :no_columns AS kept_reads_none;
SELECT same_as_heap(:'rc_few', 'bitmap') AS kept_bitmap,
	   same_as_heap(:'rc_few', 'index') AS kept_index;
-- rowcompress keeps its rows too, as stored, for its index scans (its
-- bitmap heap scans read each batch once): 6 kB frames of rows, of which
-- the 128 kB cache holds a few, not the 60 these rows are in
\set rr_few 'SELECT * FROM rc_row WHERE id = ANY (ARRAY(SELECT g * 37 FROM generate_series(1, 80) g))'
SELECT blocks_touched(:'rr_few') AS row_first_reads \gset
SELECT blocks_touched(:'rr_few') AS row_met_again_reads \gset
SELECT blocks_touched(:'rr_few') AS row_kept_reads \gset
SELECT :row_kept_reads < :row_met_again_reads AS row_kept_reads_fewer;
SELECT same_as_heap(:'rr_few', 'bitmap') AS row_kept_bitmap,
	   same_as_heap(:'rr_few', 'index') AS row_kept_index;
-- A bitmap scan whose rows would not fit in the rows' room (half of the
-- cache), at the density it meets them, keeps none past its first
-- sixteenth of that room: a third of rc_row's rows, 130 kB, run again and
-- again, leaves the rows rr_few keeps in place.
ANALYZE rc_row;
\set rr_many 'SELECT * FROM rc_row WHERE id = ANY (ARRAY(SELECT g * 3 FROM generate_series(1, 1000) g))'
SELECT table_blocks(:'rr_many') > 0 AS many_first,
	   table_blocks(:'rr_many') > 0 AS many_met_again,
	   table_blocks(:'rr_many') > 0 AS many_again;
SELECT blocks_touched(:'rr_few') = :row_kept_reads AS row_still_kept;
SELECT same_as_heap(:'rr_many', 'bitmap') AS many_bitmap;
-- rows kept of a fetch of two columns lack the others: a fetch of them
-- decodes the rows again, then keeps them whole.  (A size of 0 empties
-- the cache at the next fetch.)
SET storage_engine.frame_cache_size = 0;
SELECT same_as_heap(:'rc_few', 'bitmap') AS uncached;
SET storage_engine.frame_cache_size = '128kB';
SET enable_seqscan = off;
SET enable_indexscan = off;
SET storage_engine.enable_custom_scan = off;
SELECT array_agg(g * 37)::text AS rc_ids FROM generate_series(1, 80) g \gset
\set rc_two 'SELECT count(*) || '' '' || sum(hashtext(id || '':'' || w)) FROM rc_col WHERE id = ANY (' :'rc_ids' '::int[])'
EXPLAIN (COSTS OFF) :rc_two;
SELECT (:rc_two) = (SELECT count(*) || ' ' || sum(hashtext(id || ':' || w)) FROM rc_heap WHERE id % 37 = 0 AND id <= 2960) AS two_first;
SELECT (:rc_two) = (SELECT count(*) || ' ' || sum(hashtext(id || ':' || w)) FROM rc_heap WHERE id % 37 = 0 AND id <= 2960) AS two_met_again;
SELECT (:rc_two) = (SELECT count(*) || ' ' || sum(hashtext(id || ':' || w)) FROM rc_heap WHERE id % 37 = 0 AND id <= 2960) AS two_kept;
RESET enable_seqscan;
RESET enable_indexscan;
RESET storage_engine.enable_custom_scan;
SELECT table_blocks(:'rc_few') > :no_columns AS lacking_reads;
SELECT same_as_heap(:'rc_few', 'bitmap') AS lacking_rows;
SELECT table_blocks(:'rc_few') = :no_columns AS whole_kept_reads_none;
-- kept rows after columns are added and dropped, rows updated and deleted
ALTER TABLE rc_heap ADD COLUMN y int DEFAULT 7, DROP COLUMN v;
ALTER TABLE rc_col ADD COLUMN y int DEFAULT 7, DROP COLUMN v;
ALTER TABLE rc_row ADD COLUMN y int DEFAULT 7, DROP COLUMN v;
UPDATE rc_heap SET w = -w WHERE id % 74 = 0;
UPDATE rc_col SET w = -w WHERE id % 74 = 0;
UPDATE rc_row SET w = -w WHERE id % 74 = 0;
DELETE FROM rc_heap WHERE id % 111 = 0;
DELETE FROM rc_col WHERE id % 111 = 0;
DELETE FROM rc_row WHERE id % 111 = 0;
SELECT same_as_heap(:'rc_few', 'bitmap') AS altered_bitmap,
	   same_as_heap(:'rc_few', 'index') AS altered_index,
	   same_as_heap(:'rr_few', 'bitmap') AS row_altered_bitmap,
	   same_as_heap(:'rr_few', 'index') AS row_altered_index;
RESET storage_engine.frame_cache_size;
DROP FUNCTION table_blocks(text);
DROP FUNCTION blocks_touched(text);
DROP TABLE rc_heap, rc_col, rc_row;

DROP FUNCTION runs_match(regclass);
DROP FUNCTION same_as_heap(text, text);
