-- storage_engine.shared_frame_cache_size (test/regress.conf) keeps the frames
-- sessions decompressed for every session: a later session's fetches copy
-- them from shared memory instead of reading and decompressing their pages.
-- The same rows as heap either way, and a session with its own cache off
-- (storage_engine.frame_cache_size = 0) keeps and finds nothing there.
SHOW storage_engine.shared_frame_cache_size;

CREATE TABLE sf_heap (id int, v text, k int);
INSERT INTO sf_heap
SELECT g, 'value ' || g % 97 || ' of ' || repeat(chr(65 + g % 26), 20) || g, g % 50
  FROM generate_series(1, 20000) g;
CREATE TABLE sf_col (LIKE sf_heap) USING colcompress
	WITH (stripe_row_limit = 5000, chunk_group_row_limit = 1000);
CREATE TABLE sf_row (LIKE sf_heap) USING rowcompress WITH (batch_size = 1000);
-- read only by a scan of half its rows
CREATE TABLE sf_dense (LIKE sf_heap) USING colcompress
	WITH (stripe_row_limit = 5000, chunk_group_row_limit = 1000);
INSERT INTO sf_col SELECT * FROM sf_heap;
INSERT INTO sf_dense SELECT * FROM sf_heap;
INSERT INTO sf_row SELECT * FROM sf_heap;
CREATE INDEX ON sf_heap (k);
CREATE INDEX ON sf_col (k);
CREATE INDEX ON sf_row (k);
CREATE INDEX ON sf_dense (k);
ANALYZE sf_heap, sf_col, sf_row, sf_dense;

-- a query's result through a bitmap heap scan or a scan (plan), then the
-- blocks a second run of it touched in shared buffers (by then this session
-- has read the table's metadata)
CREATE FUNCTION plan_run(q text, plan text, OUT result text, OUT blocks bigint)
LANGUAGE plpgsql AS $$
DECLARE
	plan_json json;
BEGIN
	PERFORM set_config('enable_indexscan', 'off', true);
	IF plan = 'bitmap' THEN
		PERFORM set_config('enable_seqscan', 'off', true);
		PERFORM set_config('storage_engine.enable_custom_scan', 'off', true);
	ELSE
		PERFORM set_config('enable_bitmapscan', 'off', true);
	END IF;
	EXECUTE q INTO result;
	EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, FORMAT JSON) ' || q INTO plan_json;
	blocks := (plan_json -> 0 -> 'Plan' ->> 'Shared Hit Blocks')::bigint +
		(plan_json -> 0 -> 'Plan' ->> 'Shared Read Blocks')::bigint;
END $$;

\set q_heap 'SELECT count(*) || '' '' || sum(id) || '' '' || md5(string_agg(v, '''' ORDER BY id)) FROM sf_heap WHERE k IN (3, 17, 41)'
\set q_col 'SELECT count(*) || '' '' || sum(id) || '' '' || md5(string_agg(v, '''' ORDER BY id)) FROM sf_col WHERE k IN (3, 17, 41)'
-- half the rows of each frame: a scan, whose frames go to the shared cache only
\set q_dense_heap 'SELECT count(*) || '' '' || sum(id) || '' '' || md5(string_agg(v, '''' ORDER BY id)) FROM sf_heap WHERE k < 25'
\set q_dense_col 'SELECT count(*) || '' '' || sum(id) || '' '' || md5(string_agg(v, '''' ORDER BY id)) FROM sf_dense WHERE k < 25'
\set q_row 'SELECT count(*) || '' '' || sum(id) || '' '' || md5(string_agg(v, '''' ORDER BY id)) FROM sf_row WHERE k IN (3, 17, 41)'

-- this session meets every frame twice (plan_run runs each query twice):
-- the second time, it keeps them, in its own cache and the shared one
SELECT result AS heap_result FROM plan_run(:'q_heap', 'bitmap') \gset
SELECT result = :'heap_result' AS col_same, blocks AS col_blocks_first
  FROM plan_run(:'q_col', 'bitmap') \gset
SELECT result = :'heap_result' AS row_same, blocks AS row_blocks_first
  FROM plan_run(:'q_row', 'bitmap') \gset
SELECT :'col_same'::bool AS col_same, :'row_same'::bool AS row_same;
SELECT result AS dense_result FROM plan_run(:'q_dense_heap', 'bitmap') \gset
SELECT result = :'dense_result' AS dense_same FROM plan_run(:'q_dense_col', 'bitmap');

-- a new session: its own cache is empty, the shared one has the frames, and
-- it reads none of their pages
\c
SELECT result AS heap_result FROM plan_run(:'q_heap', 'bitmap') \gset
SELECT result = :'heap_result' AS col_same, blocks AS col_blocks_shared
  FROM plan_run(:'q_col', 'bitmap') \gset
SELECT result = :'heap_result' AS row_same, blocks AS row_blocks_shared
  FROM plan_run(:'q_row', 'bitmap') \gset
SELECT :'col_same'::bool AS col_same, :'row_same'::bool AS row_same;
SELECT result = :'dense_result' AS dense_same, blocks AS dense_blocks_shared
  FROM plan_run(:'q_dense_col', 'bitmap') \gset
SELECT :'dense_same'::bool AS dense_same;

-- with its own cache off, the session reads every frame from its pages
SET storage_engine.frame_cache_size = 0;
SELECT result = :'heap_result' AS col_same, blocks AS col_blocks_off
  FROM plan_run(:'q_col', 'bitmap') \gset
SELECT result = :'heap_result' AS row_same, blocks AS row_blocks_off
  FROM plan_run(:'q_row', 'bitmap') \gset
SELECT :'col_same'::bool AS col_same, :'row_same'::bool AS row_same;
SELECT result = :'dense_result' AS dense_same, blocks AS dense_blocks_off
  FROM plan_run(:'q_dense_col', 'bitmap') \gset
SELECT :'dense_same'::bool AS dense_same;
SELECT :col_blocks_shared < :col_blocks_off AS col_frames_from_shared_cache,
	   :row_blocks_shared < :row_blocks_off AS row_frames_from_shared_cache,
	   :dense_blocks_shared < :dense_blocks_off AS dense_frames_from_shared_cache;
RESET storage_engine.frame_cache_size;

-- A rowcompress scan keeps the batches it meets a second time, whole, rows
-- decoded and checked, when the table's rows take at most half the cache.
\set s_heap 'SELECT count(*) || '' '' || sum(id) || '' '' || md5(string_agg(v, '''' ORDER BY id)) FROM sf_heap WHERE id % 7 = 1'
\set s_row 'SELECT count(*) || '' '' || sum(id) || '' '' || md5(string_agg(v, '''' ORDER BY id)) FROM sf_row WHERE id % 7 = 1'
SELECT result AS scan_result FROM plan_run(:'s_heap', 'scan') \gset
SELECT result = :'scan_result' AS scan_same FROM plan_run(:'s_row', 'scan');
\c
SELECT result AS scan_result FROM plan_run(:'s_heap', 'scan') \gset
SELECT result = :'scan_result' AS scan_same, blocks AS scan_blocks_shared
  FROM plan_run(:'s_row', 'scan') \gset
SELECT :'scan_same'::bool AS scan_same;
SET storage_engine.frame_cache_size = 0;
SELECT result = :'scan_result' AS scan_same, blocks AS scan_blocks_off
  FROM plan_run(:'s_row', 'scan') \gset
SELECT :'scan_same'::bool AS scan_same,
	   :scan_blocks_shared < :scan_blocks_off AS scan_batches_from_shared_cache;
RESET storage_engine.frame_cache_size;

-- rows changed: new frames, found by their new checksums; the old ones are
-- never mistaken for them
UPDATE sf_heap SET v = upper(v) WHERE k = 17;
UPDATE sf_col SET v = upper(v) WHERE k = 17;
UPDATE sf_row SET v = upper(v) WHERE k = 17;
VACUUM sf_col, sf_row;
SELECT result AS heap_result FROM plan_run(:'q_heap', 'bitmap') \gset
SELECT result = :'heap_result' AS col_same FROM plan_run(:'q_col', 'bitmap');
SELECT result = :'heap_result' AS row_same FROM plan_run(:'q_row', 'bitmap');
\c
SELECT result AS heap_result FROM plan_run(:'q_heap', 'bitmap') \gset
SELECT result = :'heap_result' AS col_same FROM plan_run(:'q_col', 'bitmap');
SELECT result = :'heap_result' AS row_same FROM plan_run(:'q_row', 'bitmap');

-- a table rewritten in place of another (same file name in another
-- database would differ by the database in the key; here TRUNCATE gives a
-- new file): the new rows, not the frames kept of the old
TRUNCATE sf_col, sf_row;
INSERT INTO sf_col SELECT id, reverse(v), k FROM sf_heap;
INSERT INTO sf_row SELECT id, reverse(v), k FROM sf_heap;
UPDATE sf_heap SET v = reverse(v);
SELECT result AS heap_result FROM plan_run(:'q_heap', 'bitmap') \gset
SELECT result = :'heap_result' AS col_same FROM plan_run(:'q_col', 'bitmap');
SELECT result = :'heap_result' AS row_same FROM plan_run(:'q_row', 'bitmap');

-- the rows' layout changes without a rewrite: batches kept before are not
-- taken for those checked against the new layout
SELECT result AS scan_result FROM plan_run(:'s_heap', 'scan') \gset
SELECT result = :'scan_result' AS scan_same FROM plan_run(:'s_row', 'scan');
SELECT result = :'scan_result' AS scan_same FROM plan_run(:'s_row', 'scan');
ALTER TABLE sf_heap ADD COLUMN w int DEFAULT 7;
ALTER TABLE sf_row ADD COLUMN w int DEFAULT 7;
ALTER TABLE sf_heap DROP COLUMN k;
ALTER TABLE sf_row DROP COLUMN k;
\set s_heap 'SELECT count(*) || '' '' || sum(id + w) || '' '' || md5(string_agg(v, '''' ORDER BY id)) FROM sf_heap WHERE id % 7 = 1'
\set s_row 'SELECT count(*) || '' '' || sum(id + w) || '' '' || md5(string_agg(v, '''' ORDER BY id)) FROM sf_row WHERE id % 7 = 1'
SELECT result AS scan_result FROM plan_run(:'s_heap', 'scan') \gset
SELECT result = :'scan_result' AS scan_same FROM plan_run(:'s_row', 'scan');
SELECT result = :'scan_result' AS scan_same FROM plan_run(:'s_row', 'scan');
SELECT (SELECT string_agg(r::text, '|' ORDER BY id) FROM (SELECT * FROM sf_heap WHERE id % 997 = 0) r) =
	   (SELECT string_agg(r::text, '|' ORDER BY id) FROM (SELECT * FROM sf_row WHERE id % 997 = 0) r)
	   AS whole_rows_same;

-- engine.shared_frame_cache: the cache's size, what it holds, its counts
SELECT size_bytes = 32 * 1024 * 1024 AS sized_by_setting,
	   frames > 0 AND used_bytes > 0 AND used_bytes <= size_bytes AS holds_frames,
	   hits > 0 AND misses > 0 AND stored >= frames AS counted
  FROM engine.shared_frame_cache;

-- A scan reads kept batches in place, each pinned while the scan is in it.
-- Whether every pin is gone: other sessions (autovacuum's ANALYZE) may
-- hold one for a moment, a pin left behind stays.
CREATE FUNCTION pins_released() RETURNS bool LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1..1000 LOOP
		IF (SELECT pinned_frames FROM engine.shared_frame_cache) = 0 THEN
			RETURN true;
		END IF;
		PERFORM pg_sleep(0.01);
	END LOOP;
	RETURN false;
END $$;
SELECT pins_released();
-- a cursor inside a batch holds its pin until it is closed
BEGIN;
DECLARE sf_cursor CURSOR FOR SELECT id, v FROM sf_row;
FETCH 2 FROM sf_cursor;
SELECT pinned_frames > 0 AS cursor_pins FROM engine.shared_frame_cache;
CLOSE sf_cursor;
COMMIT;
SELECT pins_released();
-- a statement failing in the middle of a scan, and a transaction failing
-- with a cursor inside a batch, leave none
SELECT sum(1 / (id - 15000)) FROM sf_row;
SELECT pins_released();
BEGIN;
DECLARE sf_cursor CURSOR FOR SELECT id, v FROM sf_row;
FETCH 2 FROM sf_cursor;
SELECT 1 / 0;
ROLLBACK;
SELECT pins_released();
-- the rows read in place are those of heap
SELECT (SELECT string_agg(r::text, '|' ORDER BY id) FROM sf_heap r) =
	   (SELECT string_agg(r::text, '|' ORDER BY id) FROM sf_row r) AS scan_rows_same;

DROP TABLE sf_heap, sf_col, sf_row, sf_dense;
DROP FUNCTION plan_run(text, text);
DROP FUNCTION pins_released();
