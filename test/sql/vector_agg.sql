-- Vectorized aggregation (ColcompressVectorAgg): every kernel on every type
-- it covers, grouped by nothing and by each key type, with NULLs, deleted
-- rows, filters, parameters and rescans; results are always those of
-- PostgreSQL's Aggregate (the GUC off) and of the same query on heap, and
-- values the kernels do not compute exactly hand the query to the Aggregate.

CREATE TABLE va_col (
	id int, i2 smallint, i4 int, i8 bigint, f4 real, f8 float8, num numeric,
	num2 numeric(12,2), d date, ts timestamp, tstz timestamptz, t text,
	tc text COLLATE "C", vc varchar(10), bp char(4), b bool, maybe int
) USING colcompress WITH (stripe_row_limit = 5000, chunk_group_row_limit = 1000);

INSERT INTO va_col
SELECT g, (g % 300 - 150)::smallint, g % 1000 - 500, g::bigint * 1000003,
	   (g % 97) / 8.0, g / 7.0, (g % 1000) * 1.25 + g / 1000.0,
	   (g % 500) / 4.0, '2024-01-01'::date + g / 100,
	   '2024-01-01'::timestamp + g * interval '1 min',
	   '2024-01-01 00:00+00'::timestamptz + g * interval '1 min',
	   'k' || (g % 7), 'c' || (g % 5), 'v' || (g % 3),
	   CASE WHEN g % 4 = 0 THEN 'ab' WHEN g % 4 = 1 THEN 'ab  ' ELSE 'xyz' END,
	   g % 3 = 0, CASE WHEN g % 5 <> 0 THEN g % 11 END
  FROM generate_series(1, 12000) g;
-- NULLs in every column
INSERT INTO va_col (id) SELECT g FROM generate_series(12001, 12100) g;
CREATE TABLE va_heap AS SELECT * FROM va_col;

-- the shared comparison (test/sql/common/compare.psql), from test/sql
\getenv abs_srcdir PG_ABS_SRCDIR
\cd :abs_srcdir/sql
\i common/compare.psql
CREATE FUNCTION check_agg(q text) RETURNS text LANGUAGE sql AS $$
	SELECT compare_paths(q, 'storage_engine.enable_vectorized_aggregation', 'va_col', 'va_heap')
$$;

-- how the query ran: vectorized, handed to the Aggregate (and why), or
-- not vectorized at all
CREATE FUNCTION agg_path(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	vectorized bool := false;
	partial text := '';
	handed text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF line ~ '(Colcompress|Rowcompress)VectorAgg' THEN
			vectorized := true;
		ELSIF line LIKE '%Mode: partial%' THEN
			partial := ' (partial)';
		ELSIF line LIKE '%Handed To Aggregate:%' THEN
			handed := trim(split_part(line, 'Handed To Aggregate:', 2));
		END IF;
	END LOOP;
	IF NOT vectorized THEN
		RETURN 'not vectorized';
	ELSIF handed IS NOT NULL THEN
		RETURN 'handed to Aggregate' || partial || ': ' || handed;
	END IF;
	RETURN 'vectorized' || partial;
END $$;

SET max_parallel_workers_per_gather = 0;

EXPLAIN (COSTS OFF)
SELECT count(*), sum(i4), avg(f8) FROM va_col;
EXPLAIN (COSTS OFF, VERBOSE)
SELECT t, count(*), max(ts) FROM va_col WHERE i4 > 0 GROUP BY t;

-- every kernel, no grouping (the list serves the rowcompress table too)
CREATE TABLE va_kernels AS SELECT n, agg FROM unnest(ARRAY[
	'count(*)', 'count(maybe)', 'count(t)',
	'sum(i2)', 'sum(i4)', 'sum(i8)', 'sum(f4)', 'sum(f8)', 'sum(num)', 'sum(num2)',
	'avg(i2)', 'avg(i4)', 'avg(i8)', 'avg(f4)', 'avg(f8)', 'avg(num)', 'avg(num2)',
	'min(i2)', 'max(i2)', 'min(i4)', 'max(i4)', 'min(i8)', 'max(i8)',
	'min(f4)', 'max(f4)', 'min(f8)', 'max(f8)', 'min(d)', 'max(d)',
	'min(ts)', 'max(ts)', 'min(tstz)', 'max(tstz)',
	'sum(maybe)', 'avg(maybe)', 'min(maybe)', 'max(maybe)',
	'min(num)', 'max(num)', 'min(num2)', 'max(num2)',
	'count(DISTINCT i4)', 'count(DISTINCT d)', 'count(DISTINCT b)', 'count(DISTINCT maybe)'])
	WITH ORDINALITY AS k(agg, n);
SELECT agg, check_agg(format('SELECT %s FROM va_col', agg)) AS result,
	   agg_path(format('SELECT %s FROM va_col', agg)) AS path
  FROM va_kernels ORDER BY n;

-- the results themselves, once
SELECT count(*), count(maybe), sum(i2), sum(i4), sum(i8), sum(f4), sum(f8),
	   sum(num), sum(num2), avg(i4), avg(i8), avg(f4), avg(num), avg(num2)
  FROM va_col;

-- grouped by each key type (NULL keys form one group)
SELECT key, check_agg(format(
		'SELECT %s, count(*), sum(i4), avg(num), min(f8), max(d) FROM va_col GROUP BY %s',
		key, key)) AS result,
	   agg_path(format('SELECT %s, count(*) FROM va_col GROUP BY %s', key, key)) AS path
  FROM unnest(ARRAY['i2', 'i4', 'maybe', 'd', 'ts', 'tstz', 'b', 't', 'tc', 'vc', 'bp']) AS key;

-- bpchar groups ignore trailing blanks and keep the first value seen
SELECT bp, length(bp), octet_length(bp::text), count(*) FROM va_col GROUP BY bp ORDER BY 1;

-- the key need not be in the output; an aggregate twice
SELECT check_agg('SELECT count(*), sum(i4), sum(i4) FROM va_col GROUP BY t');

-- filters: rows tested one by one, and chunk groups the zone map proves
SELECT check_agg('SELECT t, count(*), sum(num) FROM va_col WHERE i4 % 3 = 0 GROUP BY t');
SELECT check_agg('SELECT count(*), sum(f8) FROM va_col WHERE id BETWEEN 2500 AND 7300');
SELECT check_agg('SELECT count(*), sum(f8) FROM va_col WHERE id < 0');
SELECT check_agg('SELECT t, count(*) FROM va_col WHERE id < 0 GROUP BY t');
SELECT agg_path('SELECT count(*), sum(f8) FROM va_col WHERE id BETWEEN 2500 AND 7300');

-- empty table, all-NULL column
CREATE TABLE va_empty (x int, y numeric, g text) USING colcompress;
SELECT count(*), sum(x), avg(y), min(x) FROM va_empty;
SELECT g, count(*) FROM va_empty GROUP BY g;
INSERT INTO va_empty SELECT NULL, NULL, 'a' FROM generate_series(1, 10);
SELECT count(*), count(x), sum(x), avg(y), min(x), max(y) FROM va_empty;
SELECT agg_path('SELECT count(*), sum(x), avg(y) FROM va_empty');

-- GroupAggregate (a Sort of the scan below it): the node returns the groups
-- in the Sort's order
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT t, count(*) FROM va_col GROUP BY t;
SELECT t, count(*), sum(i4) FROM va_col GROUP BY t;
SELECT tc, count(*) FROM va_col GROUP BY tc ORDER BY tc DESC NULLS LAST;
SELECT bp, count(*) FROM va_col GROUP BY bp ORDER BY bp NULLS FIRST;
SELECT d, count(*) FROM va_col WHERE id < 500 GROUP BY d;
SELECT b, bp, count(*) FROM va_col GROUP BY b, bp ORDER BY b DESC, bp;
SELECT agg_path('SELECT t, count(*), sum(i4) FROM va_col GROUP BY t');
SELECT key, check_agg(format('SELECT %s, count(*), sum(num), max(ts) FROM va_col GROUP BY %s', key, key)) AS result
  FROM unnest(ARRAY['i2', 'maybe', 'd', 'b', 't', 'vc', 'bp']) AS key;
-- a DISTINCT aggregate makes PostgreSQL sort by its argument too
SELECT q, check_agg(q) AS result, agg_path(q) AS path FROM unnest(ARRAY[
	'SELECT t, b, count(DISTINCT i4), sum(num), min(num2), max(d) FROM va_col GROUP BY t, b',
	'SELECT count(DISTINCT maybe), avg(i8) FROM va_col',
	-- which of equal values (1.0, 1.00) max keeps depends on the order of
	-- the rows, the Sort's: not vectorized
	'SELECT t, max(num) FROM va_col GROUP BY t'
]) AS q;
-- float sums are added in the scan's order, as a HashAggregate adds them
-- (the GroupAggregate adds them in its Sort's order, which may round
-- differently)
SELECT agg_path('SELECT t, sum(f8), avg(f4) FROM va_col GROUP BY t');
CREATE TEMP TABLE va_float_sums AS SELECT t, sum(f8) AS s, avg(f4) AS a FROM va_col GROUP BY t;
SET enable_hashagg = on;
SET storage_engine.enable_vectorized_aggregation = off;
EXPLAIN (COSTS OFF) SELECT t, sum(f8), avg(f4) FROM va_col GROUP BY t;
SELECT count(*) AS groups,
	   count(*) FILTER (WHERE h.s IS NOT DISTINCT FROM v.s AND h.a IS NOT DISTINCT FROM v.a) AS equal
  FROM (SELECT t, sum(f8) AS s, avg(f4) AS a FROM va_col GROUP BY t) h
  JOIN va_float_sums v ON h.t IS NOT DISTINCT FROM v.t;
RESET storage_engine.enable_vectorized_aggregation;
RESET enable_hashagg;

-- percentile_disc over integers, dates and timestamps, both orders
SELECT q, check_agg(q) AS result, agg_path(q) AS path FROM unnest(ARRAY[
	'SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY i4) FROM va_col',
	'SELECT t, percentile_disc(0.95) WITHIN GROUP (ORDER BY i4), count(*) FROM va_col GROUP BY t',
	'SELECT t, percentile_disc(0) WITHIN GROUP (ORDER BY d), percentile_disc(1) WITHIN GROUP (ORDER BY ts DESC) FROM va_col GROUP BY t',
	'SELECT b, percentile_disc(0.3) WITHIN GROUP (ORDER BY maybe DESC), percentile_disc(0.7) WITHIN GROUP (ORDER BY i8) FROM va_col GROUP BY b',
	'SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY maybe) FROM va_col WHERE id > 12000',
	'SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY f8) FROM va_col',
	'SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY t) FROM va_col',
	'SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY i4) FROM va_col'
]) AS q;
SELECT t, percentile_disc(0.95) WITHIN GROUP (ORDER BY i4) FROM va_col GROUP BY t ORDER BY t;

-- values the kernels hand back: NaN and infinities, numerics beyond 64 bits
CREATE TABLE va_odd (g int, f float8, r real, n numeric) USING colcompress;
INSERT INTO va_odd SELECT g % 3, g, g, g FROM generate_series(1, 3000) g;
SELECT agg_path('SELECT sum(f), avg(r), sum(n) FROM va_odd');
INSERT INTO va_odd VALUES (1, 'NaN', 'NaN', 'NaN');
SELECT agg_path('SELECT sum(f) FROM va_odd');
SELECT agg_path('SELECT g, max(r) FROM va_odd GROUP BY g');
SELECT agg_path('SELECT avg(n) FROM va_odd');
SELECT sum(f), avg(r), max(r), sum(n) FROM va_odd;
DELETE FROM va_odd WHERE f = 'NaN';
INSERT INTO va_odd VALUES (2, 'Infinity', '-Infinity', 123456789012345678901234.5);
SELECT agg_path('SELECT sum(n), avg(n) FROM va_odd');
INSERT INTO va_odd VALUES (1, 0, 0, 1.5e40);
SELECT agg_path('SELECT sum(n) FROM va_odd');
SELECT g, sum(f), avg(r), sum(n), avg(n) FROM va_odd GROUP BY g ORDER BY g;
DELETE FROM va_odd WHERE f = 'Infinity' OR n = 1.5e40;
-- mixed scales, negative values, zero
INSERT INTO va_odd VALUES (0, 0, 0, -0.000001), (0, 0, 0, 17.5), (0, 0, 0, 0.0);
SELECT agg_path('SELECT g, sum(n), avg(n) FROM va_odd GROUP BY g');
SELECT g, sum(n), avg(n), count(*) FROM va_odd GROUP BY g ORDER BY g;
SET storage_engine.enable_vectorized_aggregation = off;
SELECT g, sum(n), avg(n), count(*) FROM va_odd GROUP BY g ORDER BY g;
RESET storage_engine.enable_vectorized_aggregation;
-- the sum of -0s is -0: PostgreSQL's float sums start from the first
-- value, not from 0 (0 + -0 is 0)
CREATE TABLE va_zero (g int, f float8, r real) USING colcompress
	WITH (chunk_group_row_limit = 1000);
INSERT INTO va_zero SELECT g % 2, CASE WHEN g % 2 = 0 THEN '-0'::float8 END,
						   CASE WHEN g % 3 = 0 THEN '-0'::real END
  FROM generate_series(1, 3000) g;
SELECT agg_path('SELECT g, sum(f), sum(r) FROM va_zero GROUP BY g');
SELECT sum(f), sum(r) FROM va_zero;
SELECT g, sum(f), sum(r) FROM va_zero GROUP BY g ORDER BY g;
SET storage_engine.enable_vectorized_aggregation = off;
SELECT sum(f), sum(r) FROM va_zero;
SELECT g, sum(f), sum(r) FROM va_zero GROUP BY g ORDER BY g;
RESET storage_engine.enable_vectorized_aggregation;
-- an overflow raises PostgreSQL's error either way
CREATE TABLE va_big (f float8) USING colcompress;
INSERT INTO va_big VALUES (1e308), (1e308);
SELECT sum(f) FROM va_big;
SET storage_engine.enable_vectorized_aggregation = off;
SELECT sum(f) FROM va_big;
RESET storage_engine.enable_vectorized_aggregation;

-- more groups than hash_mem holds: PostgreSQL's Aggregate (it can spill)
SET work_mem = '64kB';
SELECT agg_path('SELECT id, count(*) FROM va_col GROUP BY id');
SELECT check_agg('SELECT id, count(*), sum(f8) FROM va_col GROUP BY id');
RESET work_mem;

-- expressions as arguments and keys (computed row by row), several keys
SELECT q, check_agg(q) AS result, agg_path(q) AS path FROM unnest(ARRAY[
	'SELECT sum(i4 + 1), avg(f8 * i2), max(d + 1) FROM va_col',
	'SELECT t, b, count(*), sum(num) FROM va_col GROUP BY t, b',
	'SELECT b, t, maybe, count(*) FROM va_col GROUP BY b, t, maybe',
	'SELECT upper(t), count(*), sum(CASE WHEN b THEN num END) FROM va_col GROUP BY upper(t)',
	'SELECT i4 % 7, d, sum(i8) FROM va_col GROUP BY i4 % 7, d',
	'SELECT vc || bp, count(*) FROM va_col WHERE i4 > 0 GROUP BY vc || bp'
]) AS q;

-- the same with expressions compiled by JIT, where the server has it: they
-- deform the scan's rows, whose slot type and descriptor they must know
SET jit = on;
SET jit_above_cost = 0;
SET jit_optimize_above_cost = 0;
SET jit_inline_above_cost = 0;
SELECT check_agg('SELECT upper(t), b, count(*), sum(i4 * 2), avg(f8 + i2) FROM va_col GROUP BY upper(t), b');
RESET jit_above_cost;
RESET jit_optimize_above_cost;
RESET jit_inline_above_cost;
RESET jit;

-- not vectorized: DISTINCT of text, FILTER, HAVING, a float key, a volatile argument
SELECT agg_path('SELECT count(DISTINCT t) FROM va_col');
SELECT agg_path('SELECT count(*) FILTER (WHERE i4 > 0) FROM va_col');
SELECT agg_path('SELECT t, count(*) FROM va_col GROUP BY t HAVING count(*) > 1');
SELECT agg_path('SELECT f4, count(*) FROM va_col GROUP BY f4');
SELECT agg_path('SELECT sum(i4 + (random() * 0)::int) FROM va_col');

-- deleted rows, this transaction's own rows, rollback
BEGIN;
DELETE FROM va_col WHERE id % 10 = 0;
DELETE FROM va_heap WHERE id % 10 = 0;
INSERT INTO va_col (id, i4, t, num) VALUES (99999, 7, 'new', 1.5);
INSERT INTO va_heap (id, i4, t, num) VALUES (99999, 7, 'new', 1.5);
SELECT check_agg('SELECT t, count(*), sum(i4), avg(num) FROM va_col GROUP BY t');
SELECT check_agg('SELECT count(*), sum(i8), max(id) FROM va_col');
ROLLBACK;
SELECT check_agg('SELECT count(*), sum(i8), max(id) FROM va_col');

-- parameters and rescans: a correlated subquery runs the node per row
SELECT o.k, (SELECT sum(i4) FROM va_col WHERE t = o.k) AS col,
	   (SELECT sum(i4) FROM va_heap WHERE t = o.k) AS heap
  FROM (VALUES ('k1'), ('k3'), ('none')) o(k) ORDER BY 1;
SELECT o.lim, (SELECT count(*) FROM va_col WHERE id < o.lim) AS col
  FROM generate_series(0, 12000, 4000) o(lim) ORDER BY 1;
PREPARE va_q(int) AS SELECT t, count(*), sum(f8) FROM va_col WHERE i4 > $1 GROUP BY t ORDER BY t;
EXECUTE va_q(0);
EXECUTE va_q(400);
SET plan_cache_mode = force_generic_plan;
EXECUTE va_q(400);
-- switched off after planning: the cached plan's Aggregate runs
SET storage_engine.enable_vectorized_aggregation = off;
EXECUTE va_q(400);
RESET storage_engine.enable_vectorized_aggregation;
RESET plan_cache_mode;
DEALLOCATE va_q;

-- a scrollable cursor over the aggregation
BEGIN;
DECLARE va_c SCROLL CURSOR FOR SELECT t, count(*) FROM va_col GROUP BY t;
FETCH 2 FROM va_c;
FETCH BACKWARD 1 FROM va_c;
FETCH ALL FROM va_c;
CLOSE va_c;
COMMIT;

-- in a parallel worker (the plan under a Gather; the plan node travels to
-- the worker as text)
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
					   THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END,
				  'on', false) AS single_copy_gather;
SELECT check_agg('SELECT t, count(*), sum(num), avg(f4) FROM va_col GROUP BY t');
SELECT agg_path('SELECT t, count(*), sum(num), avg(f4) FROM va_col GROUP BY t');
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
					   THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END,
				  'off', false) AS single_copy_gather;

-- the partial half of a parallel aggregation: PostgreSQL's partial states
-- from the kernels, combined by its Finalize Aggregate
CREATE TABLE va_par (g int, i4 int, i8 bigint, n numeric(12,3), nu numeric,
					 f8 float8, d date) USING colcompress
	WITH (stripe_row_limit = 2000, chunk_group_row_limit = 1000);
INSERT INTO va_par SELECT g % 13, g % 1000, g::bigint * 7, (g % 997) / 8.0, g / 3.0,
						  g % 100, '2024-01-01'::date + g % 50
  FROM generate_series(1, 20000) g;
CREATE TABLE va_par_heap AS SELECT * FROM va_par;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF)
SELECT g, count(*), sum(n), avg(i8) FROM va_par GROUP BY g;
-- partial sums of -0s, combined: -0
SELECT agg_path('SELECT sum(f), sum(r) FROM va_zero');
SELECT sum(f), sum(r) FROM va_zero;
-- float sums are added in another order by a parallel plan: compared
-- rounded
CREATE FUNCTION check_par(q text) RETURNS text LANGUAGE sql AS $$
	SELECT compare_paths(q, 'storage_engine.enable_vectorized_aggregation', 'va_par', 'va_par_heap')
$$;
SELECT q, check_par(q) AS result, agg_path(q) AS path FROM unnest(ARRAY[
	'SELECT count(*), sum(i4), avg(i4), sum(i8), avg(i8), sum(n), avg(n), min(d), max(f8) FROM va_par',
	'SELECT g, count(*), sum(i4), avg(i4), sum(i8), avg(i8), sum(n), avg(n) FROM va_par GROUP BY g',
	'SELECT d, count(*), round(sum(f8)), round(avg(f8)::numeric, 6) FROM va_par GROUP BY d',
	'SELECT count(*), sum(n) FROM va_par WHERE i4 % 7 = 1',
	'SELECT g, count(*) FROM va_par WHERE g < 0 GROUP BY g',
	'SELECT count(*), sum(i4) FROM va_par WHERE g < 0',
	-- an unconstrained numeric: no bound on its digits, so PostgreSQL aggregates
	'SELECT g, sum(nu) FROM va_par GROUP BY g'
]) AS q;
-- aggregates over expressions: bounded from their columns' zone maps
-- (float and int8 as ranges, numeric as digits and scale), else left to
-- PostgreSQL: n * n has 24 digits, nu no typmod, f8 * 2^340 passes the
-- float kernels' bound (integers times a power of two: sums exact in any order)
SELECT q, check_par(q) AS result, agg_path(q) AS path FROM unnest(ARRAY[
	'SELECT g, sum(f8 * i4), avg(i4 * 2.5::float8), sum(-f8) FROM va_par GROUP BY g',
	'SELECT g, sum(CASE WHEN i4 < 500 THEN n END), sum(n * 2), avg(n + i4), sum(-n) FROM va_par GROUP BY g',
	'SELECT g, sum(coalesce(n, 0) - 1.25), sum(i4::numeric * n) FROM va_par GROUP BY g',
	'SELECT sum(i8 * 2), avg(i8 - i4) FROM va_par',
	'SELECT g, sum(n * n) FROM va_par GROUP BY g',
	'SELECT g, sum(nu * 2) FROM va_par GROUP BY g',
	'SELECT g, sum(f8 * ''2.2397447421778042e102''::float8) FROM va_par GROUP BY g'
]) AS q;
-- aggregates keeping the same state over the same input share it (sum and
-- avg of a column or an expression; one aggregate twice), also in the
-- participants of the node's own parallel aggregation (count(DISTINCT))
SELECT q, check_par(q) AS result, agg_path(q) AS path FROM unnest(ARRAY[
	'SELECT g, sum(n * 2), avg(n * 2), sum(n * 3), avg(i8), sum(i8), count(*), count(*) FROM va_par GROUP BY g',
	'SELECT g, count(DISTINCT i4), sum(n), avg(n), sum(i4), avg(i4), sum(i4) FROM va_par GROUP BY g'
]) AS q;
-- a NaN in the zone maps: every participant leaves its share to PostgreSQL
INSERT INTO va_par VALUES (1, 1, 1, 'NaN', 1, 'NaN', '2024-01-01');
INSERT INTO va_par_heap VALUES (1, 1, 1, 'NaN', 1, 'NaN', '2024-01-01');
SELECT q, check_par(q) AS result, agg_path(q) AS path FROM unnest(ARRAY[
	'SELECT g, count(*), sum(n) FROM va_par GROUP BY g',
	'SELECT g, count(*), sum(i4) FROM va_par GROUP BY g'
]) AS q;
-- serially, the kernels reading n (converted once per batch for all of
-- them) meet the NaN and hand the query to the Aggregate
SET max_parallel_workers_per_gather = 0;
SELECT check_par('SELECT g, sum(n), avg(n), min(n), max(n) FROM va_par GROUP BY g') AS result,
	   agg_path('SELECT g, sum(n), avg(n), min(n), max(n) FROM va_par GROUP BY g') AS path;
SELECT check_par('SELECT g, sum(n), avg(n), max(n) FROM va_par WHERE n <> ''NaN'' GROUP BY g') AS result,
	   agg_path('SELECT g, sum(n), avg(n), max(n) FROM va_par WHERE n <> ''NaN'' GROUP BY g') AS path;
SET max_parallel_workers_per_gather = 2;
-- groups beyond hash_mem are emitted and started again
SET work_mem = '64kB';
SELECT check_par('SELECT i8, count(*), sum(i4) FROM va_par GROUP BY i8');
SELECT agg_path('SELECT i8, count(*), sum(i4) FROM va_par GROUP BY i8');
RESET work_mem;

-- what PostgreSQL aggregates serially (a DISTINCT), the nodes aggregate
-- in parallel themselves: each participant exports its groups' states and
-- the node above the Gather combines them.  Its Gather ships groups, not
-- rows: where shipping rows costs much, PostgreSQL keeps the aggregation
-- serial and the nodes make it parallel.
SET parallel_tuple_cost = 1;
DELETE FROM va_par WHERE n = 'NaN';
DELETE FROM va_par_heap WHERE n = 'NaN';
EXPLAIN (COSTS OFF)
SELECT g, count(DISTINCT i4), sum(n), min(n), sum(f8) FROM va_par GROUP BY g;
SELECT q, check_par(q) AS result, agg_path(q) AS path FROM unnest(ARRAY[
	'SELECT g, count(DISTINCT i4), sum(n), min(n), max(n), avg(i8), sum(f8), min(d) FROM va_par GROUP BY g',
	'SELECT count(DISTINCT d), count(DISTINCT i4), count(*), sum(i8), avg(n), sum(f8), avg(f8) FROM va_par',
	'SELECT d, count(DISTINCT g), min(i8), max(d), sum(i4 % 7) FROM va_par GROUP BY d',
	'SELECT count(DISTINCT i4) FROM va_par WHERE g < 0',
	'SELECT g, count(DISTINCT i4) FROM va_par WHERE g < 0 GROUP BY g'
]) AS q;
-- over a Sort (GroupAggregate), the groups come out in its order
SET enable_hashagg = off;
EXPLAIN (COSTS OFF)
SELECT g, count(DISTINCT i4), sum(n) FROM va_par GROUP BY g ORDER BY g DESC;
SELECT g, count(DISTINCT i4), sum(n) FROM va_par GROUP BY g ORDER BY g DESC;
RESET enable_hashagg;
-- a participant meeting a value the kernels cannot take (NaN) says so, and
-- the node lets the Aggregate compute the query with a scan of its own
INSERT INTO va_par VALUES (1, 1, 1, 'NaN', 1, 'NaN', '2024-01-01');
INSERT INTO va_par_heap VALUES (1, 1, 1, 'NaN', 1, 'NaN', '2024-01-01');
SELECT q, check_par(q) AS result, agg_path(q) AS path FROM unnest(ARRAY[
	'SELECT g, count(DISTINCT i4), sum(n) FROM va_par GROUP BY g',
	'SELECT g, count(DISTINCT i4), sum(i8) FROM va_par GROUP BY g'
]) AS q;
-- so does the node when the combined groups outgrow hash_mem
SET work_mem = '64kB';
SELECT check_par('SELECT i8, count(DISTINCT i4) FROM va_par GROUP BY i8');
SELECT agg_path('SELECT i8, count(DISTINCT i4) FROM va_par GROUP BY i8');
RESET work_mem;
-- DISTINCT sets go from participant to leader as bitmaps where their
-- values are dense, else as arrays: dense, dense far apart (the leader's
-- bitmap would be mostly empty), sparse, negative, near the ends of int8,
-- fewer than a bitmap is worth, and every mix of them in one group
CREATE TABLE va_dist (g int, v bigint) USING colcompress
	WITH (stripe_row_limit = 10000, chunk_group_row_limit = 1000);
INSERT INTO va_dist
SELECT k, CASE k
		WHEN 0 THEN i % 5000
		WHEN 1 THEN CASE WHEN i < 20000 THEN i % 3000 ELSE 1000000000 + i % 3000 END
		WHEN 2 THEN (hashint4(i)::bigint << 20) + i
		WHEN 3 THEN -(i % 4000) - 1
		WHEN 4 THEN 9223372036854775807 - i % 100
		WHEN 5 THEN -9223372036854775807 - 1 + i % 100
		WHEN 6 THEN i % 40
		ELSE CASE WHEN i % 2 = 0 THEN i % 6000 ELSE (hashint4(i)::bigint << 24) END
	END
  FROM generate_series(0, 39999) i, generate_series(0, 7) k;
CREATE TABLE va_dist_heap AS SELECT * FROM va_dist;
EXPLAIN (COSTS OFF) SELECT g, count(DISTINCT v) FROM va_dist GROUP BY g;
SELECT compare_paths('SELECT g, count(DISTINCT v), count(*) FROM va_dist GROUP BY g',
					 'storage_engine.enable_vectorized_aggregation', 'va_dist', 'va_dist_heap')
	   AS result;
SELECT g, count(DISTINCT v) FROM va_dist GROUP BY g ORDER BY g;
SELECT compare_paths('SELECT count(DISTINCT v) FROM va_dist',
					 'storage_engine.enable_vectorized_aggregation', 'va_dist', 'va_dist_heap')
	   AS result;
DROP TABLE va_dist, va_dist_heap;
-- a rowcompress table the same way
CREATE TABLE va_par_row USING rowcompress WITH (batch_size = 1000)
	AS SELECT * FROM va_par_heap;
CREATE FUNCTION check_par_row(q text) RETURNS text LANGUAGE sql AS $$
	SELECT compare_paths(q, 'storage_engine.enable_vectorized_aggregation', 'va_par_row', 'va_par_heap')
$$;
EXPLAIN (COSTS OFF)
SELECT g, count(DISTINCT i4), count(*) FROM va_par_row GROUP BY g;
SELECT q, check_par_row(q) AS result, agg_path(q) AS path FROM unnest(ARRAY[
	'SELECT g, count(DISTINCT i4), count(*), sum(i8), min(d) FROM va_par_row GROUP BY g',
	'SELECT g, count(DISTINCT i4), sum(n) FROM va_par_row GROUP BY g'
]) AS q;
-- rows the transaction inserted, still buffered, are written before the
-- participants start, and they see them
BEGIN;
INSERT INTO va_par SELECT 50, g, g, 1, 1, 1, '2024-03-01' FROM generate_series(1, 500) g;
INSERT INTO va_par_heap SELECT 50, g, g, 1, 1, 1, '2024-03-01' FROM generate_series(1, 500) g;
SELECT check_par('SELECT g, count(DISTINCT i4), sum(i8) FROM va_par GROUP BY g') AS result,
	   agg_path('SELECT g, count(DISTINCT i4), sum(i8) FROM va_par GROUP BY g') AS path;
ROLLBACK;
-- and off with storage_engine.enable_parallel_execution
SET storage_engine.enable_parallel_execution = off;
EXPLAIN (COSTS OFF)
SELECT g, count(DISTINCT i4) FROM va_par GROUP BY g;
RESET storage_engine.enable_parallel_execution;
-- where PostgreSQL makes only the scan and the sort parallel (a Gather
-- Merge below a GroupAggregate), the nodes take the Gather's place
-- (the plans' nodes only: PostgreSQL 16 on sorts by the DISTINCT argument too)
CREATE FUNCTION plan_nodes(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF line !~ '^\s*(Sort Key|Columns|Group Key|Workers Planned|Mode):' THEN
			RETURN NEXT line;
		END IF;
	END LOOP;
END $$;
SET parallel_tuple_cost = 0;
SET storage_engine.enable_vectorized_aggregation = off;
SELECT plan_nodes('SELECT g, count(DISTINCT i4), sum(i8) FROM va_par GROUP BY g');
RESET storage_engine.enable_vectorized_aggregation;
EXPLAIN (COSTS OFF)
SELECT g, count(DISTINCT i4), sum(i8) FROM va_par GROUP BY g;
SELECT q, check_par(q) AS result, agg_path(q) AS path FROM unnest(ARRAY[
	'SELECT g, count(DISTINCT i4), sum(i8) FROM va_par GROUP BY g',
	'SELECT g, count(DISTINCT i4), sum(n) FROM va_par GROUP BY g'
]) AS q;
EXPLAIN (COSTS OFF)
SELECT g, count(DISTINCT i4), count(*) FROM va_par_row GROUP BY g;
SELECT check_par_row('SELECT g, count(DISTINCT i4), count(*) FROM va_par_row GROUP BY g');
-- an Agg the node does not take keeps PostgreSQL's plan, Gather Merge and all
SELECT plan_nodes('SELECT g, count(DISTINCT i4), max(f8) FROM va_par GROUP BY g');
SELECT check_par('SELECT g, count(DISTINCT i4), max(f8) FROM va_par GROUP BY g');
SET parallel_tuple_cost = 1;
DROP FUNCTION plan_nodes(text);
DROP TABLE va_par_row;
DROP FUNCTION check_par_row(text);
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
DROP TABLE va_par, va_par_heap;
DROP FUNCTION check_par(text);

-- partitions of a partitioned table get the ColcompressScan, and
-- partitionwise aggregation is vectorized per partition
CREATE TABLE va_part (k int, g text, v numeric(10,2)) PARTITION BY RANGE (k);
CREATE TABLE va_part1 PARTITION OF va_part FOR VALUES FROM (0) TO (5000) USING colcompress;
CREATE TABLE va_part2 PARTITION OF va_part FOR VALUES FROM (5000) TO (10000) USING colcompress;
INSERT INTO va_part SELECT g, 'g' || g % 5, g / 10.0 FROM generate_series(0, 9999) g;
CREATE TABLE va_part_heap AS SELECT * FROM va_part;
SET enable_partitionwise_aggregate = on;
EXPLAIN (COSTS OFF) SELECT g, count(*), sum(v) FROM va_part WHERE k > 100 GROUP BY g;
SELECT compare_paths('SELECT g, count(*), sum(v) FROM va_part WHERE k > 100 GROUP BY g',
					 'storage_engine.enable_vectorized_aggregation', 'va_part', 'va_part_heap');
RESET enable_partitionwise_aggregate;
SELECT compare_paths('SELECT g, count(*), sum(v) FROM va_part WHERE k > 100 GROUP BY g',
					 'storage_engine.enable_vectorized_aggregation', 'va_part', 'va_part_heap');
DROP TABLE va_part, va_part_heap;

-- count(*) of a rowcompress table whose scan reads no column and has no
-- filter: whole batches are counted (RowcompressVectorAgg), serially and
-- as the partial half of a parallel count; with a filter or a column, rows
-- are read (below, va_rowc)
CREATE TABLE va_row (k int, t text) USING rowcompress WITH (batch_size = 1000);
INSERT INTO va_row SELECT g, 't' || g FROM generate_series(1, 20000) g;
DELETE FROM va_row WHERE k % 10 = 0;
CREATE TABLE va_row_heap AS SELECT * FROM va_row;
EXPLAIN (COSTS OFF) SELECT count(*) FROM va_row;
CREATE FUNCTION check_row(q text) RETURNS text LANGUAGE sql AS $$
	SELECT compare_paths(q, 'storage_engine.enable_vectorized_aggregation', 'va_row', 'va_row_heap')
$$;
SELECT q, check_row(q) AS result, agg_path(q) AS path FROM unnest(ARRAY[
	'SELECT count(*) FROM va_row',
	'SELECT count(*), count(*) FROM va_row',
	'SELECT count(*) FROM va_row WHERE k > 15000',
	'SELECT count(k) FROM va_row',
	'SELECT count(*) FILTER (WHERE random() >= 0) FROM va_row',
	'SELECT count(*) FROM va_row HAVING count(*) > 0'
]) AS q;
BEGIN;
INSERT INTO va_row SELECT g, 'own' FROM generate_series(1, 500) g;
INSERT INTO va_row_heap SELECT g, 'own' FROM generate_series(1, 500) g;
DELETE FROM va_row WHERE k % 10 = 1;
DELETE FROM va_row_heap WHERE k % 10 = 1;
SELECT check_row('SELECT count(*) FROM va_row');
ROLLBACK;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT count(*) FROM va_row;
SELECT check_row('SELECT count(*) FROM va_row');
SELECT agg_path('SELECT count(*) FROM va_row');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
DROP TABLE va_row, va_row_heap;
DROP FUNCTION check_row(text);

-- the seed's aggregation shapes
SELECT check_agg('SELECT sum(num), avg(num), sum(f8), avg(f8) FROM va_col');
SELECT check_agg('SELECT bp, count(*), avg(f4) FROM va_col GROUP BY bp ORDER BY count(*) DESC');
SELECT check_agg('SELECT d, count(*), sum(num), avg(f8) FROM va_col WHERE d BETWEEN ''2024-01-10'' AND ''2024-01-20'' GROUP BY d ORDER BY d');

-- a rowcompress table read by columns: the RowcompressScan (in place of the
-- sequential scan) hands over its batches, each row passing the filter
-- deformed once into the columns the aggregation reads.  The same data as
-- va_col, compared with the Aggregate and with heap.
CREATE TABLE va_rowc (LIKE va_col) USING rowcompress WITH (batch_size = 1000);
INSERT INTO va_rowc SELECT * FROM va_col;
CREATE FUNCTION check_rowc(q text) RETURNS text LANGUAGE sql AS $$
	SELECT compare_paths(q, 'storage_engine.enable_vectorized_aggregation', 'va_rowc', 'va_heap')
$$;
EXPLAIN (COSTS OFF) SELECT t, count(*), sum(i4) FROM va_rowc GROUP BY t;
EXPLAIN (COSTS OFF) SELECT count(*), sum(num) FROM va_rowc WHERE i4 % 3 = 0;
SET storage_engine.enable_vectorized_aggregation = off;
EXPLAIN (COSTS OFF) SELECT t, count(*), sum(i4) FROM va_rowc GROUP BY t;
RESET storage_engine.enable_vectorized_aggregation;
-- every kernel, no grouping
SELECT agg, check_rowc(format('SELECT %s FROM va_rowc', agg)) AS result,
	   agg_path(format('SELECT %s FROM va_rowc', agg)) AS path
  FROM va_kernels ORDER BY n;
-- each key type, filters (row by row; the zone maps' batch pruning),
-- expressions, percentile_disc
SELECT key, check_rowc(format(
		'SELECT %s, count(*), sum(i4), avg(num), min(f8), max(d) FROM va_rowc GROUP BY %s',
		key, key)) AS result,
	   agg_path(format('SELECT %s, count(*) FROM va_rowc GROUP BY %s', key, key)) AS path
  FROM unnest(ARRAY['i2', 'i4', 'maybe', 'd', 'ts', 'tstz', 'b', 't', 'tc', 'vc', 'bp']) AS key;
SELECT q, check_rowc(q) AS result, agg_path(q) AS path FROM unnest(ARRAY[
	'SELECT t, count(*), sum(num) FROM va_rowc WHERE i4 % 3 = 0 GROUP BY t',
	'SELECT count(*), sum(f8) FROM va_rowc WHERE id BETWEEN 2500 AND 7300',
	'SELECT t, count(*) FROM va_rowc WHERE id < 0 GROUP BY t',
	'SELECT upper(t), count(*), sum(CASE WHEN b THEN num END) FROM va_rowc GROUP BY upper(t)',
	'SELECT i4 % 7, d, sum(i8) FROM va_rowc GROUP BY i4 % 7, d',
	'SELECT t, percentile_disc(0.95) WITHIN GROUP (ORDER BY i4), count(*) FROM va_rowc GROUP BY t',
	'SELECT t, count(*) FILTER (WHERE i4 > 0) FROM va_rowc GROUP BY t'
]) AS q;
EXPLAIN (COSTS OFF) SELECT count(*), sum(f8) FROM va_rowc WHERE id BETWEEN 2500 AND 7300;
-- GroupAggregate: the Sort of the RowcompressScan
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT t, b, count(DISTINCT i4) FROM va_rowc GROUP BY t, b;
SELECT q, check_rowc(q) AS result, agg_path(q) AS path FROM unnest(ARRAY[
	'SELECT t, b, count(DISTINCT i4), sum(num), min(num2), max(d) FROM va_rowc GROUP BY t, b',
	'SELECT t, count(*), sum(i4) FROM va_rowc GROUP BY t'
]) AS q;
SELECT t, count(*), sum(i4) FROM va_rowc GROUP BY t;
RESET enable_hashagg;
-- with expressions compiled by JIT, where the server has it
SET jit = on;
SET jit_above_cost = 0;
SELECT check_rowc('SELECT upper(t), b, count(*), sum(i4 * 2), avg(f8 + i2) FROM va_rowc GROUP BY upper(t), b');
RESET jit_above_cost;
RESET jit;
-- a value the kernels hand back: the scan is read again by the Aggregate;
-- deleted rows and this transaction's own
BEGIN;
INSERT INTO va_rowc (id, f8) VALUES (0, 'NaN');
INSERT INTO va_heap (id, f8) VALUES (0, 'NaN');
SELECT check_rowc('SELECT t, count(*), sum(f8), sum(i4) FROM va_rowc GROUP BY t');
SELECT agg_path('SELECT t, count(*), sum(f8), sum(i4) FROM va_rowc GROUP BY t');
ROLLBACK;
BEGIN;
DELETE FROM va_rowc WHERE id % 10 = 0;
DELETE FROM va_heap WHERE id % 10 = 0;
INSERT INTO va_rowc (id, i4, t, num) VALUES (99999, 7, 'new', 1.5);
INSERT INTO va_heap (id, i4, t, num) VALUES (99999, 7, 'new', 1.5);
SELECT check_rowc('SELECT t, count(*), sum(i4), avg(num) FROM va_rowc GROUP BY t');
ROLLBACK;
-- rows written before a column was added (its default comes from the
-- catalog) or dropped
BEGIN;
ALTER TABLE va_rowc ADD COLUMN extra int DEFAULT 5, DROP COLUMN i2;
ALTER TABLE va_heap ADD COLUMN extra int DEFAULT 5, DROP COLUMN i2;
INSERT INTO va_rowc (id, t, extra) VALUES (99998, 'k1', 7);
INSERT INTO va_heap (id, t, extra) VALUES (99998, 'k1', 7);
SELECT check_rowc('SELECT t, count(*), sum(extra), sum(i4), max(ts) FROM va_rowc GROUP BY t');
SELECT agg_path('SELECT t, count(*), sum(extra), sum(i4), max(ts) FROM va_rowc GROUP BY t');
ROLLBACK;
-- rescans with parameters: a correlated subquery runs the node per row
SELECT o.k, (SELECT sum(i4) FROM va_rowc WHERE t = o.k) AS rowc,
	   (SELECT sum(i4) FROM va_heap WHERE t = o.k) AS heap
  FROM (VALUES ('k1'), ('k3'), ('none')) o(k) ORDER BY 1;
-- a scrollable cursor over the aggregation
BEGIN;
DECLARE va_rc SCROLL CURSOR FOR SELECT t, count(*) FROM va_rowc GROUP BY t ORDER BY t;
FETCH 2 FROM va_rc;
FETCH BACKWARD 1 FROM va_rc;
FETCH ALL FROM va_rc;
CLOSE va_rc;
COMMIT;
-- the partial half of a parallel aggregation over a parallel
-- RowcompressScan; an unconstrained numeric has no bound in the batches'
-- zone maps, so every participant leaves its share to PostgreSQL
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT t, count(*), sum(i4) FROM va_rowc GROUP BY t;
SELECT q, check_rowc(q) AS result, agg_path(q) AS path FROM unnest(ARRAY[
	'SELECT t, count(*), sum(i4), avg(i8), sum(num2), min(d) FROM va_rowc GROUP BY t',
	'SELECT count(*), sum(num2), max(ts) FROM va_rowc WHERE i4 > 0',
	'SELECT t, sum(num) FROM va_rowc GROUP BY t'
]) AS q;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
DROP TABLE va_rowc;
DROP FUNCTION check_rowc(text);

-- Packed decimals (num2) that only sum, avg, min and max read stay scaled
-- integers in the batches, no numeric written but a new minimum's or
-- maximum's; whatever else reads the column gets its values written: a
-- filter on it (vectorized or row by row), a key, an expression; with
-- deleted rows and this transaction's own rows
SELECT array_agg(DISTINCT c.encoding) AS num2_encodings FROM engine.chunk c
 WHERE c.storage_id = engine.storage_id('va_col') AND c.attr_num = 8;
SELECT q, check_agg(q) AS result, agg_path(q) AS path FROM unnest(ARRAY[
	'SELECT sum(num2), avg(num2), count(num2) FROM va_col',
	'SELECT t, sum(num2), avg(num2) FROM va_col GROUP BY t',
	'SELECT sum(num2) FROM va_col WHERE num2 > 60',
	'SELECT avg(num2) FROM va_col WHERE num2::text LIKE ''1%''',
	'SELECT sum(num2), min(num2), max(num2) FROM va_col',
	'SELECT t, min(num2), max(num2) FROM va_col GROUP BY t',
	'SELECT num2, count(*), sum(num2) FROM va_col GROUP BY num2',
	'SELECT sum(num2 * 2), sum(num2) FROM va_col',
	'SELECT sum(num2) FROM va_col WHERE i4 > 100 AND num2 < 50'
]) AS q;
BEGIN;
DELETE FROM va_col WHERE id % 3 = 0;
DELETE FROM va_heap WHERE id % 3 = 0;
INSERT INTO va_col (id, t, num2) VALUES (99998, 'k1', 12.34), (99999, 'k2', NULL);
INSERT INTO va_heap (id, t, num2) VALUES (99998, 'k1', 12.34), (99999, 'k2', NULL);
SELECT check_agg('SELECT t, sum(num2), avg(num2) FROM va_col GROUP BY t');
SELECT check_agg('SELECT sum(num2) FROM va_col WHERE num2 < 100');
ROLLBACK;

DROP TABLE va_col, va_heap, va_empty, va_odd, va_big, va_kernels;
DROP FUNCTION check_agg(text);
DROP FUNCTION agg_path(text);
\i common/compare_end.psql
