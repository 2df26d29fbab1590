-- The RowcompressScan custom scan: batches whose zone maps (each column's
-- bounds and NULL count, kept per batch) exclude the filter are not read;
-- a query that needs no column reads no batch.  Results are always the
-- same with the custom scan on and off and as on heap.

CREATE TABLE rs_row (
	id int, i8 bigint, f8 float8, num numeric, d date, ts timestamptz,
	t text, tc text COLLATE "C", b bool, maybe int, tags text[]
) USING rowcompress WITH (batch_size = 1000);

-- ordered by id, so every column's zone maps are tight
INSERT INTO rs_row
SELECT g, g * 10, g / 8.0, g * 1.5, '2024-01-01'::date + g / 100,
	   '2024-01-01 00:00+00'::timestamptz + g * interval '1 min',
	   lpad(g::text, 6, '0'), lpad(g::text, 6, '0'), g > 10000,
	   CASE WHEN g > 15000 THEN g END, ARRAY['x' || g % 3]
  FROM generate_series(1, 20000) g;
CREATE TABLE rs_heap AS SELECT * FROM rs_row;

SELECT count(*) AS batches FROM engine.rowcompress_batches WHERE relation = 'rs_row'::regclass;

-- runs q with the custom scan, without it, and on heap; says whether all agree
CREATE FUNCTION check_query(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	fast text;
	slow text;
	heap text;
	wrap text := 'SELECT md5(coalesce(string_agg(r::text, ''|'' ORDER BY r::text), '''')) '
				 || '|| '', '' || count(*) || '' rows'' FROM (%s) r';
BEGIN
	PERFORM set_config('storage_engine.enable_custom_scan', 'on', true);
	EXECUTE format(wrap, q) INTO fast;
	PERFORM set_config('storage_engine.enable_custom_scan', 'off', true);
	EXECUTE format(wrap, q) INTO slow;
	PERFORM set_config('storage_engine.enable_custom_scan', 'on', true);
	EXECUTE format(wrap, replace(q, 'rs_row', 'rs_heap')) INTO heap;
	IF fast = slow AND fast = heap THEN
		RETURN 'same, ' || split_part(fast, ', ', 2);
	END IF;
	RETURN 'DIFFERENT: ' || fast || ' / ' || slow || ' / ' || heap;
END $$;

-- the batches a query reads and prunes
CREATE FUNCTION pruning(q text, workers int DEFAULT NULL) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	result text := '';
BEGIN
	IF workers IS NOT NULL THEN
		PERFORM set_config('max_parallel_workers_per_gather', workers::text, true);
	END IF;
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || q LOOP
		IF line ~ 'Batches (Read|Pruned)' THEN
			result := result || trim(line) || '; ';
		END IF;
	END LOOP;
	RETURN result;
END $$;

SET max_parallel_workers_per_gather = 0;
SELECT q, check_query(q), pruning(q) FROM (VALUES
	('SELECT id FROM rs_row WHERE id = 4321'),
	('SELECT id FROM rs_row WHERE id <> 4321'),
	('SELECT id FROM rs_row WHERE id < 1500'),
	('SELECT id FROM rs_row WHERE id >= 19001'),
	('SELECT id FROM rs_row WHERE id BETWEEN 7100 AND 7200'),
	('SELECT id FROM rs_row WHERE id IN (5, 12345, 19999)'),
	('SELECT id FROM rs_row WHERE id = 5 OR id = 19999'),
	('SELECT id FROM rs_row WHERE (id < 100 OR id > 19900) AND i8 > 0'),
	('SELECT id FROM rs_row WHERE id < 300 AND t LIKE ''%1%'''),
	('SELECT id FROM rs_row WHERE maybe IS NULL'),
	('SELECT id FROM rs_row WHERE maybe IS NOT NULL'),
	('SELECT id FROM rs_row WHERE maybe > 19000'),
	('SELECT id FROM rs_row WHERE f8 > 2400'),
	('SELECT id FROM rs_row WHERE num < 2.5'),
	('SELECT id FROM rs_row WHERE d = ''2024-03-01'''),
	('SELECT id FROM rs_row WHERE ts < ''2024-01-01 05:00+00'''),
	('SELECT id FROM rs_row WHERE t = ''012345'''),
	('SELECT id FROM rs_row WHERE tc BETWEEN ''003000'' AND ''003010'''),
	('SELECT id FROM rs_row WHERE t COLLATE "C" > ''019990'''),
	('SELECT id FROM rs_row WHERE b = false'),
	('SELECT count(*) FROM rs_row WHERE id > 18500'),
	('SELECT count(*) FROM rs_row WHERE tags @> ARRAY[''x1'']')
) v(q);

-- the plan: the filter stays, the prunable part is tested on zone maps
EXPLAIN (COSTS OFF) SELECT * FROM rs_row WHERE id BETWEEN 100 AND 200 AND t LIKE '%5%';
SET storage_engine.enable_pruning = off;
EXPLAIN (COSTS OFF) SELECT * FROM rs_row WHERE id BETWEEN 100 AND 200;
RESET storage_engine.enable_pruning;

-- parameters of a generic plan and of a nested loop take their values at
-- execution, on every rescan
PREPARE p(int, int) AS SELECT count(*), sum(i8) FROM rs_row WHERE id BETWEEN $1 AND $2;
SET plan_cache_mode = force_generic_plan;
EXECUTE p(1, 1000);
EXECUTE p(15000, 15500);
SELECT pruning('EXECUTE p(15000, 15500)');
RESET plan_cache_mode;
CREATE TABLE rs_keys AS SELECT g * 3000 AS k FROM generate_series(1, 5) g;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT check_query('SELECT k, (SELECT count(*) FROM rs_row WHERE id BETWEEN k AND k + 10) FROM rs_keys');
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- in parallel the participants claim batches in turn, each testing the
-- zone maps of those it claims; the leader adds up what they read and
-- pruned, and the totals are the serial scan's
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT count(*), sum(i8) FROM rs_row WHERE id > 12000;
EXPLAIN (COSTS OFF) SELECT count(*) FROM rs_row;
SELECT q, check_query(q), pruning(q) FROM (VALUES
	('SELECT count(*), sum(i8) FROM rs_row WHERE id > 12000'),
	('SELECT count(*) FROM rs_row'),
	('SELECT count(*), min(t) FROM rs_row WHERE id BETWEEN 7100 AND 7200')
) v(q);
-- with the leader not scanning, every count is a worker's, and must be in
-- the leader's EXPLAIN every time
SET parallel_leader_participation = off;
SELECT count(*) AS runs, count(*) FILTER (WHERE p = pruning(q, 0)) AS as_serial
  FROM (VALUES ('SELECT count(*) FROM rs_row WHERE id BETWEEN 7100 AND 12200')) v(q),
	   LATERAL (SELECT pruning(q, 2) AS p FROM generate_series(1, 20)) r;
RESET parallel_leader_participation;
-- the table AM's own parallel scan (no prunable clause: no scan of ours
-- but the aggregation's batches) gets no more participants than
-- storage_engine.max_parallel_participants either
SET storage_engine.max_parallel_participants = 2;
EXPLAIN (COSTS OFF) SELECT sum(i8) FROM rs_row;
SELECT check_query('SELECT sum(i8), count(t) FROM rs_row');
SET storage_engine.max_parallel_participants = 1;
EXPLAIN (COSTS OFF) SELECT sum(i8) FROM rs_row;
RESET storage_engine.max_parallel_participants;
EXPLAIN (COSTS OFF) SELECT sum(i8) FROM rs_row;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- deleted rows, and this transaction's own buffered rows, which have their
-- own batch once read
BEGIN;
DELETE FROM rs_row WHERE id BETWEEN 2000 AND 2100;
DELETE FROM rs_heap WHERE id BETWEEN 2000 AND 2100;
INSERT INTO rs_row (id, t) VALUES (-1, 'own'), (-2, NULL);
INSERT INTO rs_heap (id, t) VALUES (-1, 'own'), (-2, NULL);
SELECT check_query('SELECT id, t FROM rs_row WHERE id < 2050');
SELECT check_query('SELECT id FROM rs_row WHERE t = ''own''');
ROLLBACK;

-- an empty table, a column that is all NULL, a column added later
CREATE TABLE rs_empty (a int) USING rowcompress;
SELECT count(*) FROM rs_empty WHERE a > 0;
ALTER TABLE rs_row ADD COLUMN added int;
ALTER TABLE rs_heap ADD COLUMN added int;
SELECT check_query('SELECT id FROM rs_row WHERE added IS NULL AND id < 10');
SELECT check_query('SELECT id FROM rs_row WHERE added > 0');
-- without a filter, rows go to the batch's arrays directly; rows written
-- before the column was added take the slot's way, which supplies its
-- default
ALTER TABLE rs_row ADD COLUMN filled int DEFAULT 7;
ALTER TABLE rs_heap ADD COLUMN filled int DEFAULT 7;
INSERT INTO rs_row (id, filled) VALUES (-5, 3);
INSERT INTO rs_heap (id, filled) VALUES (-5, 3);
SELECT check_query('SELECT sum(filled), count(added), sum(id), count(*) FROM rs_row');
SELECT check_query('SELECT t, sum(filled) FROM rs_row GROUP BY t');
-- the batch metadata carries a bound pair and a NULL count per column
-- (none for an array column; maybe is NULL in the first 15 batches)
SELECT batch_num, array_length(attr_min, 1) AS columns,
	   attr_min[1] IS NOT NULL AS id_bounds, attr_min[11] IS NULL AS no_tags_bounds,
	   attr_null_count[10] AS maybe_nulls
  FROM engine.batch WHERE storage_id = engine.storage_id('rs_row')
 ORDER BY batch_num LIMIT 2;

-- a column whose type changes without a rewrite (int4 to oid, binary
-- coercible, which orders the negative values last): the stored bounds
-- were computed in the old ordering and are not used any more
CREATE TABLE rs_retype (v int) USING rowcompress;
INSERT INTO rs_retype SELECT g FROM generate_series(-5, 5) g;
CREATE TABLE rs_retype_heap AS SELECT * FROM rs_retype;
SELECT relfilenode AS before FROM pg_class WHERE relname = 'rs_retype' \gset
ALTER TABLE rs_retype ALTER COLUMN v TYPE oid;
ALTER TABLE rs_retype_heap ALTER COLUMN v TYPE oid;
SELECT relfilenode = :before AS not_rewritten FROM pg_class WHERE relname = 'rs_retype';
SELECT (SELECT count(*) FROM rs_retype WHERE v > 10) AS big,
	   (SELECT count(*) FROM rs_retype_heap WHERE v > 10) AS heap_big,
	   (SELECT count(*) FROM rs_retype WHERE v < 10) AS small,
	   (SELECT count(*) FROM rs_retype_heap WHERE v < 10) AS heap_small,
	   (SELECT count(*) FROM rs_retype WHERE v >= 0) AS all_rows;
INSERT INTO rs_retype VALUES (7);
SELECT count(*) AS big_after_insert FROM rs_retype WHERE v > 10;
DROP TABLE rs_retype, rs_retype_heap;

-- costs: a scan that zone maps prune is charged for the batches it still
-- reads, by the filtered column's correlation with the order of the rows
-- (ANALYZE's; these tables are small enough that its sample keeps that
-- order).  Rows in date order take the pruned scan over a bitmap scan of
-- the same rows; shuffled rows, whose batches all span the range, the
-- index.  Without pruning the index wins again.  An IN list selects a
-- range per element, each possibly in a batch of its own.
CREATE TABLE rs_dated (d date, v int) USING rowcompress WITH (batch_size = 1000);
INSERT INTO rs_dated SELECT date '2024-01-01' + g / 100, g FROM generate_series(0, 19999) g;
CREATE TABLE rs_shuffled (d date, v int) USING rowcompress WITH (batch_size = 1000);
INSERT INTO rs_shuffled SELECT d, v FROM rs_dated ORDER BY hashint4(v);
CREATE INDEX ON rs_dated (d);
CREATE INDEX ON rs_shuffled (d);
ANALYZE rs_dated, rs_shuffled;
SELECT tablename, round(correlation::numeric, 1) AS correlation
  FROM pg_stats WHERE tablename IN ('rs_dated', 'rs_shuffled') AND attname = 'd'
 ORDER BY 1;
EXPLAIN (COSTS OFF) SELECT sum(v) FROM rs_dated WHERE d BETWEEN '2024-02-01' AND '2024-02-20';
EXPLAIN (COSTS OFF) SELECT sum(v) FROM rs_shuffled WHERE d BETWEEN '2024-02-01' AND '2024-02-20';
-- one date in each batch: every batch is read, pruned or not
EXPLAIN (COSTS OFF) SELECT sum(v) FROM rs_dated
 WHERE d IN ('2024-01-01', '2024-01-11', '2024-01-21', '2024-01-31', '2024-02-10', '2024-02-20', '2024-03-01', '2024-03-11', '2024-03-21', '2024-03-31', '2024-04-10', '2024-04-20', '2024-04-30', '2024-05-10', '2024-05-20', '2024-05-30', '2024-06-09', '2024-06-19', '2024-06-29', '2024-07-09');
SELECT (SELECT sum(v) FROM rs_dated WHERE d BETWEEN '2024-02-01' AND '2024-02-20') =
	   (SELECT sum(v) FROM rs_shuffled WHERE d BETWEEN '2024-02-01' AND '2024-02-20') AS same_sum;
SET storage_engine.enable_pruning = off;
EXPLAIN (COSTS OFF) SELECT sum(v) FROM rs_dated WHERE d BETWEEN '2024-02-01' AND '2024-02-20';
RESET storage_engine.enable_pruning;
DROP TABLE rs_dated, rs_shuffled;

-- a scan keeps every batch it lists until it ends, and reads a batch's zone
-- map only to test it (1,000 one-row batches of 40 columns: 0.3 MB; they
-- took 1.6 MB holding every zone map)
CREATE TABLE rs_many (id int, v text, t timestamptz) USING rowcompress
	WITH (autovacuum_enabled = false);
DO $$ BEGIN
	FOR i IN 1..37 LOOP
		EXECUTE format('ALTER TABLE rs_many ADD COLUMN c%s int', i);
	END LOOP;
END $$;
CREATE PROCEDURE rs_insert_each(n int) LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1..n LOOP
		INSERT INTO rs_many (id, v, t, c1, c37) VALUES (i, 'v' || i, '2026-01-01', i, -i);
		COMMIT;
	END LOOP;
END $$;
CALL rs_insert_each(1000);
-- planning a query of the table, not analyzed yet, counts its rows without
-- keeping the list it counted them from (EXPLAIN shows planning memory
-- from PostgreSQL 17 on)
DO $$
DECLARE
	line text;
	used int := 0;
BEGIN
	IF current_setting('server_version_num')::int >= 170000 THEN
		FOR line IN EXECUTE 'EXPLAIN (MEMORY, COSTS OFF) SELECT * FROM rs_many' LOOP
			IF line ~ 'Memory: used=' THEN
				used := substring(line from 'used=([0-9]+)kB')::int;
			END IF;
		END LOOP;
	END IF;
	RAISE NOTICE 'planning memory under 100 kB: %', used < 100;
END $$;
SELECT count(*) AS batches FROM engine.rowcompress_batches
 WHERE relation = 'rs_many'::regclass;
BEGIN;
DECLARE rs_cur CURSOR FOR SELECT id, c37 FROM rs_many WHERE t < now() AND c1 > 0;
FETCH 1 FROM rs_cur;
SELECT sum(used_bytes) < 1024 * 1024 AS scan_memory_bounded
  FROM pg_backend_memory_contexts WHERE name = 'rowcompress reader';
FETCH ALL FROM rs_cur \g /dev/null
FETCH BACKWARD 2 FROM rs_cur;
COMMIT;
SELECT pruning('SELECT count(*) FROM rs_many WHERE c1 BETWEEN 10 AND 19');
SELECT count(*), sum(c37) FROM rs_many WHERE c1 BETWEEN 10 AND 19;
ANALYZE rs_many;
DROP TABLE rs_many;
DROP PROCEDURE rs_insert_each(int);

DROP TABLE rs_row, rs_heap, rs_keys, rs_empty;
DROP FUNCTION check_query(text);
DROP FUNCTION pruning(text, int);
