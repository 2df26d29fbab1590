-- The ColcompressScan custom scan: projection, zone-map pruning of stripes
-- and chunk groups for every pushdown shape on the ordered built-in types,
-- parameters and stable expressions, collations, parallel plans; results
-- are always the same with the custom scan on and off and as on heap.

CREATE TABLE sc_col (
	id int, i2 smallint, i8 bigint, f4 real, f8 float8, num numeric,
	d date, ts timestamp, tstz timestamptz, t text, tc text COLLATE "C",
	bp char(4), b bool, u uuid, maybe int
) USING colcompress WITH (stripe_row_limit = 5000, chunk_group_row_limit = 1000);

-- ordered by id, so every column's zone maps are tight
INSERT INTO sc_col
SELECT g, (g % 30000)::smallint, g * 10::bigint, g / 4.0, g / 8.0, g * 1.5,
	   '2024-01-01'::date + g / 100, '2024-01-01'::timestamp + g * interval '1 min',
	   '2024-01-01 00:00+00'::timestamptz + g * interval '1 min',
	   lpad(g::text, 6, '0'), lpad(g::text, 6, '0'), lpad((g / 1000)::text, 4, '0'),
	   g > 10000, ('00000000-0000-0000-0000-' || lpad(g::text, 12, '0'))::uuid,
	   CASE WHEN g > 15000 THEN g END
  FROM generate_series(1, 20000) g;
CREATE TABLE sc_heap AS SELECT * FROM sc_col;

SELECT count(*) AS stripes, sum(chunk_group_count) AS chunk_groups
  FROM engine.colcompress_stripes WHERE relation = 'sc_col'::regclass;

-- runs q with the custom scan, without it, and on heap; says whether all agree
CREATE FUNCTION check_query(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	fast text;
	slow text;
	heap text;
	wrap text := 'SELECT md5(coalesce(string_agg(r::text, ''|'' ORDER BY r::text), '''')) '
				 || '|| '' '' || count(*) FROM (%s) r';
BEGIN
	PERFORM set_config('storage_engine.enable_custom_scan', 'on', true);
	EXECUTE format(wrap, q) INTO fast;
	PERFORM set_config('storage_engine.enable_custom_scan', 'off', true);
	EXECUTE format(wrap, q) INTO slow;
	PERFORM set_config('storage_engine.enable_custom_scan', 'on', true);
	EXECUTE format(wrap, replace(q, 'sc_col', 'sc_heap')) INTO heap;
	IF fast = slow AND slow = heap THEN
		RETURN 'same, ' || split_part(fast, ' ', 2) || ' rows';
	END IF;
	RETURN 'DIFFERENT: ' || fast || ' / ' || slow || ' / ' || heap;
END $$;

-- how many chunk groups a query reads and prunes (serial, or with up to
-- workers parallel workers), and how many
-- its zone maps prove to match whole (their rows skip the filter)
CREATE FUNCTION pruning(q text, workers int DEFAULT 0) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	result text := '';
BEGIN
	PERFORM set_config('max_parallel_workers_per_gather', workers::text, true);
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || q LOOP
		IF line ~ '(Stripes|Chunk Groups) (Read|Pruned|Wholly Matching)' THEN
			result := result || regexp_replace(trim(line), '^(\w+)( Groups)? ([\w ]+): ', '\1 \3 ') || '; ';
		END IF;
	END LOOP;
	PERFORM set_config('max_parallel_workers_per_gather', '2', true);
	RETURN result;
END $$;

-- EXPLAIN ANALYZE without the parts that differ between versions and runs
CREATE FUNCTION explain_analyze(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || q LOOP
		CONTINUE WHEN line ~ '^\s*(Buffers|Worker \d+):';
		RETURN NEXT regexp_replace(line, ' \(actual rows=[^)]*\)', '');
	END LOOP;
END $$;

SELECT q, check_query(q), pruning(q) FROM (VALUES
	('SELECT id FROM sc_col WHERE id = 4321'),
	('SELECT id FROM sc_col WHERE id <> 4321'),
	('SELECT id FROM sc_col WHERE id < 1500'),
	('SELECT id FROM sc_col WHERE id <= 1000'),
	('SELECT id FROM sc_col WHERE id > 18500'),
	('SELECT id FROM sc_col WHERE id >= 19001'),
	('SELECT id FROM sc_col WHERE 19001 <= id'),
	('SELECT id FROM sc_col WHERE id BETWEEN 7100 AND 7200'),
	('SELECT id FROM sc_col WHERE id IN (5, 12345, 19999)'),
	('SELECT id FROM sc_col WHERE id = ANY (ARRAY[5, 12345, NULL])'),
	('SELECT id FROM sc_col WHERE id = 5 OR id = 19999'),
	('SELECT id FROM sc_col WHERE id > 100 AND id < 200'),
	('SELECT id FROM sc_col WHERE (id < 100 OR id > 19900) AND i8 > 0'),
	('SELECT id FROM sc_col WHERE id = NULL::int'),
	('SELECT id FROM sc_col WHERE maybe IS NULL'),
	('SELECT id FROM sc_col WHERE maybe IS NOT NULL'),
	('SELECT id FROM sc_col WHERE i2 = 77'),
	('SELECT id FROM sc_col WHERE i8 BETWEEN 100000 AND 101000'),
	('SELECT id FROM sc_col WHERE i8 = 50::int'),
	('SELECT id FROM sc_col WHERE f4 < 10.5'),
	('SELECT id FROM sc_col WHERE f8 > 2400'),
	('SELECT id FROM sc_col WHERE num = 30000'),
	('SELECT id FROM sc_col WHERE num < 2.5'),
	('SELECT id FROM sc_col WHERE d = ''2024-03-01'''),
	('SELECT id FROM sc_col WHERE d < ''2024-01-05''::timestamp'),
	('SELECT id FROM sc_col WHERE ts >= ''2024-01-14 12:00'''),
	('SELECT id FROM sc_col WHERE tstz < ''2024-01-01 05:00+00'''),
	('SELECT id FROM sc_col WHERE t = ''012345'''),
	('SELECT id FROM sc_col WHERE t > ''019990'''),
	('SELECT id FROM sc_col WHERE tc BETWEEN ''003000'' AND ''003010'''),
	('SELECT id FROM sc_col WHERE bp = ''0007'''),
	('SELECT id FROM sc_col WHERE b = false'),
	('SELECT id FROM sc_col WHERE u = ''00000000-0000-0000-0000-000000000042'''),
	('SELECT id FROM sc_col WHERE t < ''000100'' COLLATE "C"'),
	('SELECT count(*) FROM sc_col'),
	('SELECT sum(num), avg(f8), min(t), max(d) FROM sc_col'),
	('SELECT * FROM sc_col WHERE id % 1000 = 0')
) v(q);

-- the filter still applies in full to the rows read: a clause that cannot
-- prune (a function of the column) combined with one that can
SELECT check_query('SELECT id FROM sc_col WHERE id < 3000 AND id % 7 = 0');

-- a comparison in another collation than the column's is not used
EXPLAIN (COSTS OFF) SELECT id FROM sc_col WHERE t < '000100' COLLATE "C";
EXPLAIN (COSTS OFF) SELECT id FROM sc_col WHERE tc < '000100';

-- parameters and stable expressions are evaluated at execution time
PREPARE p(int, int) AS SELECT count(*) FROM sc_col WHERE id BETWEEN $1 AND $2;
SET plan_cache_mode = force_generic_plan;
EXECUTE p(1, 10);
EXECUTE p(15000, 20000);
SELECT explain_analyze('EXECUTE p(15000, 15500)');
RESET plan_cache_mode;
SELECT pruning($$SELECT count(*) FROM sc_col WHERE ts > '2024-01-01'::timestamp + (now() - now()) + interval '13 days'$$);
SELECT check_query($$SELECT count(*) FROM sc_col WHERE ts > localtimestamp - (localtimestamp - '2024-01-14'::timestamp)$$);

-- values from initplans (uncorrelated subqueries), computed when the scan
-- starts; by-reference values outlive the per-row memory
SELECT check_query('SELECT count(*) FROM sc_col WHERE num > (SELECT avg(num) FROM sc_heap)');
SELECT check_query('SELECT count(*) FROM sc_col WHERE t IN (SELECT max(t) FROM sc_heap)');
SELECT pruning('SELECT count(*) FROM sc_col WHERE id > (SELECT max(id) - 500 FROM sc_heap) AND t > (SELECT min(t) FROM sc_heap)');

-- parallel plans are used and agree with serial ones, reading the same stripes
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT count(*), sum(num) FROM sc_col WHERE id > 12000;
SELECT check_query('SELECT count(*), sum(num), min(t) FROM sc_col WHERE id > 12000');
SELECT check_query('SELECT id, t FROM sc_col WHERE d BETWEEN ''2024-02-01'' AND ''2024-02-10''');
SELECT explain_analyze('SELECT count(*) FROM sc_col WHERE id BETWEEN 7100 AND 8200');
-- with the leader not scanning, every count is a worker's, and must be in
-- the leader's EXPLAIN every time (a worker published them only after the
-- leader had collected them, now and then)
SET parallel_leader_participation = off;
SELECT count(*) AS runs, count(*) FILTER (WHERE p = pruning(q)) AS as_serial
  FROM (VALUES ('SELECT count(*) FROM sc_col WHERE id BETWEEN 7100 AND 12200')) v(q),
	   LATERAL (SELECT pruning(q, 2) AS p FROM generate_series(1, 20)) r;
RESET parallel_leader_participation;
SET storage_engine.enable_parallel_execution = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sc_col WHERE id > 12000;
RESET storage_engine.enable_parallel_execution;
-- participants claim whole chunk groups: a filter one group holds (once
-- ANALYZE has seen that the rows lie in id order) gains nothing from
-- workers and stays serial; fifteen groups do not
ANALYZE sc_col;
SET parallel_setup_cost = 10;
EXPLAIN (COSTS OFF) SELECT count(*), sum(num) FROM sc_col WHERE id = 7500;
EXPLAIN (COSTS OFF) SELECT count(*), sum(num) FROM sc_col WHERE id > 5000;
RESET parallel_setup_cost;
-- a worker's start weighs four times parallel_setup_cost against our
-- costs (col_worker_start_cost): at 150, a whole table of 20 chunk groups
-- is still worth a worker, the three groups a range leaves are not (they
-- were at 150 alone)
CREATE TABLE sc_par (id int, x float8) USING colcompress
	WITH (chunk_group_row_limit = 10000, orderby = 'id');
INSERT INTO sc_par SELECT g, g * 0.5 FROM generate_series(1, 200000) g;
ANALYZE sc_par;
SET parallel_setup_cost = 150;
SET parallel_tuple_cost = 0.001;
EXPLAIN (COSTS OFF) SELECT sum(x) FROM sc_par;
EXPLAIN (COSTS OFF) SELECT sum(x) FROM sc_par WHERE id <= 30000;
SET parallel_setup_cost = 0;
EXPLAIN (COSTS OFF) SELECT sum(x) FROM sc_par WHERE id <= 30000;
SELECT sum(x) FROM sc_par WHERE id <= 30000;
SET parallel_tuple_cost = 0;
DROP TABLE sc_par;
-- no more participants than storage_engine.max_parallel_participants (0,
-- the default, the machine's cores; test/regress.conf sets 3): two leave
-- one worker beside the leader, one leaves the scan serial; a leader that
-- does not take part leaves both places to workers
SET parallel_setup_cost = 0;
SET storage_engine.max_parallel_participants = 2;
EXPLAIN (COSTS OFF) SELECT count(*), sum(num) FROM sc_col WHERE id > 5000;
SELECT check_query('SELECT count(*), sum(num), min(t) FROM sc_col WHERE id > 5000');
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(num) FROM sc_col WHERE id > 5000;
RESET parallel_leader_participation;
SET storage_engine.max_parallel_participants = 1;
EXPLAIN (COSTS OFF) SELECT count(*), sum(num) FROM sc_col WHERE id > 5000;
RESET storage_engine.max_parallel_participants;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- pruning off: same plan shape, nothing pruned
SET storage_engine.enable_pruning = off;
SELECT pruning('SELECT id FROM sc_col WHERE id = 4321');
RESET storage_engine.enable_pruning;

-- joins, sorts and rescans above the custom scan
SELECT check_query('SELECT a.id, b.t FROM sc_col a JOIN sc_col b ON a.id = b.id + 1 WHERE a.id < 50');
SELECT check_query('SELECT t FROM sc_col ORDER BY t DESC LIMIT 5');
SELECT check_query('SELECT (SELECT count(*) FROM sc_col c WHERE c.id <= h.id) FROM sc_heap h WHERE h.id IN (10, 5000, 19000)');

-- empty and all-NULL tables
CREATE TABLE sc_empty (a int) USING colcompress;
SELECT count(*), max(a) FROM sc_empty WHERE a > 5;
CREATE TABLE sc_nulls (a int, b text) USING colcompress;
INSERT INTO sc_nulls SELECT NULL, NULL FROM generate_series(1, 3000);
SELECT count(*) FROM sc_nulls WHERE a = 1;
SELECT count(*) FROM sc_nulls WHERE a IS NULL;
SELECT pruning('SELECT count(*) FROM sc_nulls WHERE b > ''x''');

-- custom scan off: the plain table scan
SET storage_engine.enable_custom_scan = off;
EXPLAIN (COSTS OFF) SELECT id FROM sc_col WHERE id = 1;
RESET storage_engine.enable_custom_scan;

-- a column whose type changes without a rewrite (int4 to oid, binary
-- coercible, which orders the negative values last): the stored bounds
-- were computed in the old ordering and are not used any more
CREATE TABLE sc_retype (v int) USING colcompress;
INSERT INTO sc_retype SELECT g FROM generate_series(-5, 5) g;
CREATE TABLE sc_retype_heap AS SELECT * FROM sc_retype;
SELECT relfilenode AS before FROM pg_class WHERE relname = 'sc_retype' \gset
ALTER TABLE sc_retype ALTER COLUMN v TYPE oid;
ALTER TABLE sc_retype_heap ALTER COLUMN v TYPE oid;
SELECT relfilenode = :before AS not_rewritten FROM pg_class WHERE relname = 'sc_retype';
SELECT (SELECT count(*) FROM sc_retype WHERE v > 10) AS big,
	   (SELECT count(*) FROM sc_retype_heap WHERE v > 10) AS heap_big,
	   (SELECT count(*) FROM sc_retype WHERE v < 10) AS small,
	   (SELECT count(*) FROM sc_retype_heap WHERE v < 10) AS heap_small,
	   (SELECT count(*) FROM sc_retype WHERE v >= 0) AS all_rows;
INSERT INTO sc_retype VALUES (7);
SELECT count(*) AS big_after_insert FROM sc_retype WHERE v > 10;
DROP TABLE sc_retype, sc_retype_heap;

-- a scan keeps every stripe it lists until it ends: each takes about 300
-- bytes, its columns' metadata decoded only while the scan is at it (1,000
-- one-row stripes of 40 columns: 0.3 MB; 3.6 MB with every stripe's
-- columns decoded, 7 MB before that as separate allocations)
CREATE TABLE sc_many (id int, v text, t timestamptz) USING colcompress
	WITH (autovacuum_enabled = false);
DO $$ BEGIN
	FOR i IN 1..37 LOOP
		EXECUTE format('ALTER TABLE sc_many ADD COLUMN c%s int', i);
	END LOOP;
END $$;
CREATE PROCEDURE sc_insert_each(n int) LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1..n LOOP
		INSERT INTO sc_many (id, v, t, c1, c37) VALUES (i, 'v' || i, '2026-01-01', i, -i);
		COMMIT;
	END LOOP;
END $$;
CALL sc_insert_each(1000);
-- planning a query of the table, not analyzed yet, counts its rows without
-- keeping the list it counted them from (EXPLAIN shows planning memory
-- from PostgreSQL 17 on)
DO $$
DECLARE
	line text;
	used int := 0;
BEGIN
	IF current_setting('server_version_num')::int >= 170000 THEN
		FOR line IN EXECUTE 'EXPLAIN (MEMORY, COSTS OFF) SELECT * FROM sc_many' LOOP
			IF line ~ 'Memory: used=' THEN
				used := substring(line from 'used=([0-9]+)kB')::int;
			END IF;
		END LOOP;
	END IF;
	RAISE NOTICE 'planning memory under 100 kB: %', used < 100;
END $$;
SELECT count(*) AS stripes FROM engine.colcompress_stripes
 WHERE relation = 'sc_many'::regclass;
BEGIN;
DECLARE sc_cur CURSOR FOR SELECT id, c37 FROM sc_many WHERE t < now() AND c1 > 0;
FETCH 1 FROM sc_cur;
SELECT sum(used_bytes) < 1024 * 1024 AS scan_memory_bounded
  FROM pg_backend_memory_contexts WHERE name = 'ExecutorState';
FETCH ALL FROM sc_cur \g /dev/null
FETCH BACKWARD 2 FROM sc_cur;
COMMIT;
-- pruning still reads each stripe's bounds
SELECT count(*), sum(id), sum(c37) FROM sc_many WHERE t < now();
SELECT pruning('SELECT count(*) FROM sc_many WHERE c1 BETWEEN 10 AND 19');
SELECT count(*), sum(c37) FROM sc_many WHERE c1 BETWEEN 10 AND 19;
ANALYZE sc_many;
DROP TABLE sc_many;
DROP PROCEDURE sc_insert_each(int);

DROP TABLE sc_col, sc_heap, sc_empty, sc_nulls;
DROP FUNCTION check_query(text), pruning(text, int), explain_analyze(text);
