-- Vectorized filters: filter clauses evaluated on the decoded column arrays
-- of a ColcompressScan, or of a RowcompressScan's batch below a vectorized
-- aggregation (integer, date and timestamp comparisons, LIKE 'prefix%',
-- IS [NOT] NULL, leakproof comparisons), the others row by row on the rows
-- that pass; results are always those with the filter evaluated row by row
-- (the GUC off) and of heap.

CREATE TABLE vf_col (
	id int, i2 smallint, i8 bigint, d date, ts timestamp, tstz timestamptz,
	t text, vc varchar(20), bp char(6), f8 float8, num numeric, maybe int,
	tags text[], b bool
) USING colcompress WITH (stripe_row_limit = 5000, chunk_group_row_limit = 1000);
INSERT INTO vf_col
SELECT g, (g % 500 - 250)::smallint, g::bigint * 3, '2024-01-01'::date + g / 50,
	   '2024-01-01'::timestamp + g * interval '7 min',
	   '2024-01-01 00:00+00'::timestamptz + g * interval '7 min',
	   '/page/' || (g % 1000), 'v' || (g % 37), 'b' || (g % 9), g / 3.0, g % 100 * 1.5,
	   CASE WHEN g % 6 <> 0 THEN g % 13 END, ARRAY['x' || (g % 4)],
	   CASE WHEN g % 7 <> 0 THEN g % 3 = 0 END
  FROM generate_series(1, 12000) g;
INSERT INTO vf_col (id) SELECT g FROM generate_series(12001, 12050) g;
CREATE TABLE vf_heap AS SELECT * FROM vf_col;

-- the shared comparison (test/sql/common/compare.psql), from test/sql
\getenv abs_srcdir PG_ABS_SRCDIR
\cd :abs_srcdir/sql
\i common/compare.psql
CREATE FUNCTION check_filter(q text) RETURNS text LANGUAGE sql AS $$
	SELECT compare_paths(q, 'storage_engine.enable_vectorized_filter', 'vf_col', 'vf_heap')
$$;

-- which clauses the scan evaluated on column arrays
CREATE FUNCTION vectorized(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF line LIKE '%Vectorized Filter:%' THEN
			RETURN trim(split_part(line, 'Vectorized Filter:', 2));
		END IF;
	END LOOP;
	RETURN 'none';
END $$;

SET max_parallel_workers_per_gather = 0;

SELECT w, check_filter('SELECT id, t FROM vf_col WHERE ' || w) AS result,
	   vectorized('SELECT id, t FROM vf_col WHERE ' || w) AS vectorized
  FROM unnest(ARRAY[
	'id < 100', 'id <= 100', 'id = 4242', 'id >= 11990', 'id > 11990', 'id <> 5',
	'5000 > id', 'i2 = -3', 'i2 < 10::bigint', 'i8 > 35000::int', 'i8 = 3600::smallint',
	'd = ''2024-02-01''', 'd BETWEEN ''2024-01-05'' AND ''2024-01-06''',
	'ts >= ''2024-02-10''::timestamp', 'tstz < ''2024-01-02 00:00+00''::timestamptz',
	'd < ''2024-01-03''::timestamp',
	't LIKE ''/page/99%''', 't LIKE ''/page/999''', 't LIKE ''/page/9_9''',
	't LIKE ''%99''', 't LIKE ''/page/%9''', 't LIKE ''''', 't LIKE ''%''',
	'vc LIKE ''v3%''', 'bp LIKE ''b1%''', 't COLLATE "C" LIKE ''/page/1%''',
	't = ''/page/7''', 't > ''/page/995''', 'f8 > 3999.5', 'num = 3.0',
	'maybe IS NULL', 'maybe IS NOT NULL', 'maybe = 4', 'maybe <> 4',
	'tags @> ARRAY[''x1'']', 'id % 7 = 0',
	'id IN (5, 50, 500, 5000)', 'i2 IN (-3, 7, NULL)', 'i8 = ANY (ARRAY[3, 30, 300]::int[])',
	'd IN (''2024-01-05'', ''2024-02-01'')', 't IN (''/page/7'', ''/page/70'')',
	'id NOT IN (1, 2, 3)', 'id = ANY (ARRAY[]::int[])', 'maybe IN (1, 2)',
	'b', 'NOT b', 'b AND id < 100', 'b IS NULL',
	'id < 2000 AND t LIKE ''/page/1%'' AND maybe IS NOT NULL AND id % 3 = 0'
]) AS w;

-- parameters and stable values: computed at scan start and rescan
PREPARE vf_p(int, text) AS SELECT count(*) FROM vf_col WHERE id > $1 AND t LIKE $2;
EXECUTE vf_p(6000, '/page/1%');
EXECUTE vf_p(NULL, '/page/1%');
EXECUTE vf_p(6000, NULL);
SET plan_cache_mode = force_generic_plan;
EXECUTE vf_p(6000, '/page/1%');
EXECUTE vf_p(6000, '/page/1_%');
SELECT vectorized('EXECUTE vf_p(6000, ''/page/1%'')');
RESET plan_cache_mode;
DEALLOCATE vf_p;
SELECT check_filter('SELECT id FROM vf_col WHERE tstz < now() - interval ''100 years''');
SELECT check_filter('SELECT id FROM vf_col WHERE id > (SELECT max(id) - 10 FROM vf_heap)');
-- a correlated subquery: the filter's value changes with every rescan
SELECT o.k, (SELECT count(*) FROM vf_col WHERE id < o.k AND t LIKE '/page/1%') AS col,
	   (SELECT count(*) FROM vf_heap WHERE id < o.k AND t LIKE '/page/1%') AS heap
  FROM generate_series(0, 12000, 3000) o(k) ORDER BY 1;
-- a subplan in the filter: evaluated row by row, whole
SELECT check_filter('SELECT id FROM vf_col c WHERE id < 50 AND t = (SELECT max(t) FROM vf_heap h WHERE h.id = c.id)');
SELECT vectorized('SELECT id FROM vf_col c WHERE id < 50 AND t = (SELECT max(t) FROM vf_heap h WHERE h.id = c.id)');

-- deleted rows, rows of this transaction, projections
BEGIN;
DELETE FROM vf_col WHERE id % 10 = 1;
DELETE FROM vf_heap WHERE id % 10 = 1;
INSERT INTO vf_col (id, t) VALUES (20000, '/page/1x');
INSERT INTO vf_heap (id, t) VALUES (20000, '/page/1x');
SELECT check_filter('SELECT id, upper(t), id * 2 FROM vf_col WHERE t LIKE ''/page/1%''');
ROLLBACK;

-- a scrollable cursor reads rows one by one, both ways
BEGIN;
DECLARE vf_c SCROLL CURSOR FOR SELECT id FROM vf_col WHERE id > 11995 AND t LIKE '/page/99%';
FETCH ALL FROM vf_c;
FETCH BACKWARD 2 FROM vf_c;
CLOSE vf_c;
COMMIT;

-- UPDATE and DELETE find their rows through the filter
BEGIN;
UPDATE vf_col SET maybe = -1 WHERE t LIKE '/page/5%' AND id < 600;
UPDATE vf_heap SET maybe = -1 WHERE t LIKE '/page/5%' AND id < 600;
DELETE FROM vf_col WHERE i2 = 7;
DELETE FROM vf_heap WHERE i2 = 7;
SELECT check_filter('SELECT * FROM vf_col WHERE maybe = -1 OR i2 = 7');
SELECT check_filter('SELECT count(*) FROM vf_col');
ROLLBACK;

-- rowcompress: below a vectorized aggregation the same kernels run on the
-- arrays of each batch's rows (scan/row_scan_exec.c), the rest of the
-- filter row by row on the rows they pass
CREATE TABLE vf_row (LIKE vf_heap) USING rowcompress WITH (batch_size = 1000);
INSERT INTO vf_row SELECT * FROM vf_heap;
CREATE FUNCTION check_row_filter(q text) RETURNS text LANGUAGE sql AS $$
	SELECT compare_paths(q, 'storage_engine.enable_vectorized_filter', 'vf_row', 'vf_heap')
$$;
CREATE FUNCTION vectorized_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE 'EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q;
END $$;
EXPLAIN (COSTS OFF) SELECT count(*), sum(id) FROM vf_row WHERE t LIKE '/page/1%';
SELECT w, check_row_filter('SELECT count(*), sum(id), min(d) FROM vf_row WHERE ' || w) AS result,
	   vectorized('SELECT count(*), sum(id), min(d) FROM vf_row WHERE ' || w) AS vectorized
  FROM unnest(ARRAY[
	'id < 100', 'id <> 5', 'i2 = -3', 'i8 > 35000::int', 'd = ''2024-02-01''',
	'tstz < ''2024-01-02 00:00+00''::timestamptz',
	't LIKE ''/page/99%''', 't LIKE ''/page/999''', 't LIKE ''%99''', 'bp LIKE ''b1%''',
	't = ''/page/7''', 'f8 > 3999.5', 'maybe IS NULL', 'maybe IS NOT NULL',
	'maybe <> 4', 'id % 7 = 0', 'i2 IN (-3, 7, NULL)', 'id = ANY (ARRAY[]::int[])',
	'b', 'NOT b', 'b IS NULL', 'tags @> ARRAY[''x1'']',
	'id < 2000 AND t LIKE ''/page/1%'' AND maybe IS NOT NULL AND id % 3 = 0'
]) AS w;
-- rows returned as rows: the same filtered batches, rows built only for
-- the rows selected
SELECT w, check_row_filter('SELECT id, t, id * 2 FROM vf_row WHERE ' || w) AS result,
	   vectorized('SELECT id, t, id * 2 FROM vf_row WHERE ' || w) AS vectorized
  FROM unnest(ARRAY[
	'id < 100', 'i2 = -3', 'd = ''2024-02-01''', 't LIKE ''/page/99%''',
	't LIKE ''%99''', 'maybe IS NULL', 'b', 'id % 7 = 0',
	'id < 2000 AND t LIKE ''/page/1%'' AND maybe IS NOT NULL AND id % 3 = 0'
]) AS w;
-- (a filter no zone map can use leaves the rows to PostgreSQL's Seq Scan;
-- the counts of rows differ in form between versions)
SELECT regexp_replace(line, ' \(actual rows=[^)]*\)', '') AS plan
  FROM vectorized_plan('SELECT id FROM vf_row WHERE id > 9000 AND t LIKE ''/page/99%'' AND id % 2 = 0') AS line;
SELECT id, t FROM vf_row WHERE id > 9000 AND t LIKE '/page/99%' AND id % 2 = 0;
SELECT id, t FROM vf_row WHERE t LIKE '/page/99%' AND id > 10000 LIMIT 3;
-- a scrollable cursor reads rows one by one, both ways
BEGIN;
DECLARE vf_rc SCROLL CURSOR FOR SELECT id FROM vf_row WHERE id > 11995 AND t LIKE '/page/99%';
FETCH ALL FROM vf_rc;
FETCH BACKWARD 2 FROM vf_rc;
CLOSE vf_rc;
COMMIT;
-- UPDATE and DELETE find their rows through the filter
BEGIN;
UPDATE vf_row SET maybe = -1 WHERE t LIKE '/page/5%' AND id < 600;
UPDATE vf_heap SET maybe = -1 WHERE t LIKE '/page/5%' AND id < 600;
DELETE FROM vf_row WHERE i2 = 7;
DELETE FROM vf_heap WHERE i2 = 7;
SELECT check_row_filter('SELECT * FROM vf_row WHERE maybe = -1 OR i2 = 7');
SELECT check_row_filter('SELECT id, maybe FROM vf_row WHERE maybe = -1');
SELECT check_row_filter('SELECT count(*) FROM vf_row');
ROLLBACK;
-- parameters: computed at scan start and rescan
PREPARE vf_rp(int, text) AS SELECT count(*), sum(id) FROM vf_row WHERE id > $1 AND t LIKE $2;
SET plan_cache_mode = force_generic_plan;
EXECUTE vf_rp(6000, '/page/1%');
EXECUTE vf_rp(6000, '/page/1_%');
EXECUTE vf_rp(NULL, '/page/1%');
SELECT vectorized('EXECUTE vf_rp(6000, ''/page/1%'')');
RESET plan_cache_mode;
DEALLOCATE vf_rp;
SELECT o.k, (SELECT count(*) FROM vf_row WHERE id < o.k AND t LIKE '/page/1%') AS row,
	   (SELECT count(*) FROM vf_heap WHERE id < o.k AND t LIKE '/page/1%') AS heap
  FROM generate_series(0, 12000, 3000) o(k) ORDER BY 1;
SELECT check_row_filter('SELECT count(*) FROM vf_row c WHERE id < 50 AND t = (SELECT max(t) FROM vf_heap h WHERE h.id = c.id)');
-- deleted rows, rows of this transaction, rows lacking a column added since
BEGIN;
DELETE FROM vf_row WHERE id % 10 = 1;
DELETE FROM vf_heap WHERE id % 10 = 1;
INSERT INTO vf_row (id, t) VALUES (20000, '/page/1x');
INSERT INTO vf_heap (id, t) VALUES (20000, '/page/1x');
ALTER TABLE vf_row ADD COLUMN late int DEFAULT 7;
ALTER TABLE vf_heap ADD COLUMN late int DEFAULT 7;
INSERT INTO vf_row (id, t, late) VALUES (20001, '/page/1y', 8);
INSERT INTO vf_heap (id, t, late) VALUES (20001, '/page/1y', 8);
SELECT check_row_filter('SELECT count(*), sum(id), sum(late) FROM vf_row WHERE t LIKE ''/page/1%''');
SELECT check_row_filter('SELECT count(*), sum(id) FROM vf_row WHERE late = 8');
SELECT check_row_filter('SELECT count(*), sum(id) FROM vf_row WHERE late < 8 AND id > 11000');
SELECT vectorized('SELECT count(*), sum(id) FROM vf_row WHERE late = 8');
ROLLBACK;
DROP TABLE vf_row;
DROP FUNCTION check_row_filter(text);
DROP FUNCTION vectorized_plan(text);

DROP TABLE vf_col, vf_heap;
DROP FUNCTION check_filter(text);
DROP FUNCTION vectorized(text);
\i common/compare_end.psql
