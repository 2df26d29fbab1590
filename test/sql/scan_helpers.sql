--
-- Scan helpers (storage_engine.scan_helpers): the session's helper
-- processes take part in parallel aggregations over our scans in place of
-- parallel workers.  Results must equal the serial plan's and the plan
-- with parallel workers; where a helper could see something else than the
-- leader, the Gather runs with parallel workers instead.
--
CREATE TABLE sh_col (g int, i int, n numeric(12,3), f float8, t text, d date)
	USING colcompress WITH (stripe_row_limit = 4000, chunk_group_row_limit = 1000);
INSERT INTO sh_col SELECT x % 7, x, (x % 997) / 8.0, x % 100, 'k' || (x % 5),
						   '2024-01-01'::date + x % 40
  FROM generate_series(1, 40000) x;
CREATE TABLE sh_row (g int, i int, n numeric(12,3), f float8, t text, d date)
	USING rowcompress WITH (batch_size = 1000);
INSERT INTO sh_row SELECT * FROM sh_col;
CREATE TABLE sh_heap AS SELECT * FROM sh_col;
ANALYZE sh_col, sh_row, sh_heap;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET storage_engine.scan_helpers = 2;

-- the node above the Gather, for our scans only
EXPLAIN (COSTS OFF) SELECT count(*), sum(n) FROM sh_col;
EXPLAIN (COSTS OFF) SELECT g, count(*), avg(f) FROM sh_row GROUP BY g;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sh_heap;
-- with PostgreSQL's partial aggregation (vectorized aggregation off)
SET storage_engine.enable_vectorized_aggregation = off;
EXPLAIN (COSTS OFF) SELECT g, count(*) FROM sh_col GROUP BY g;
RESET storage_engine.enable_vectorized_aggregation;
-- off: PostgreSQL's plan
SET storage_engine.scan_helpers = 0;
EXPLAIN (COSTS OFF) SELECT count(*), sum(n) FROM sh_col;
SET storage_engine.scan_helpers = 2;

-- How many helpers joined a run of q (EXPLAIN ANALYZE).  Without leader
-- participation the leader waits for its helpers, even one the session is
-- starting, and does the work itself only when none takes part.
CREATE FUNCTION helpers_joined(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	SET LOCAL parallel_leader_participation = off;
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || q INTO plan;
	RETURN jsonb_path_query_first(plan::jsonb, '$.**."Helpers Joined"')::int;
END
$$;
-- What one run of q launched (helpers handed the task).
CREATE FUNCTION helpers_launched(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || q INTO plan;
	RETURN jsonb_path_query_first(plan::jsonb, '$.**."Helpers Launched"')::int;
END
$$;
SELECT helpers_joined('SELECT count(*), sum(n) FROM sh_col') > 0 AS col_joined;
SELECT helpers_joined('SELECT count(*), avg(f) FROM sh_row') > 0 AS row_joined;
-- the helpers are the session's, named after it
SELECT count(*) > 0 AS helpers_running FROM pg_stat_activity
 WHERE backend_type = 'storage_engine scan helper'
   AND application_name = 'storage_engine scan helper for PID ' || pg_backend_pid();

-- Results: with helpers, with parallel workers, serially, and heap's.
-- The helpers' run leaves the leader out, so that they do the work: a
-- setting they did not have would show.  Float sums depend on the order of
-- additions: compared rounded.
CREATE FUNCTION helper_results(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r_helpers text;
	r_workers text;
	r_serial text;
	r_heap text;
	sorted text := 'SELECT string_agg(r::text, '';'' ORDER BY r::text) FROM (' ;
BEGIN
	SET LOCAL storage_engine.scan_helpers = 2;
	SET LOCAL max_parallel_workers_per_gather = 2;
	SET LOCAL parallel_leader_participation = off;
	EXECUTE sorted || q || ') r' INTO r_helpers;
	SET LOCAL parallel_leader_participation = on;
	SET LOCAL storage_engine.scan_helpers = 0;
	EXECUTE sorted || q || ') r' INTO r_workers;
	SET LOCAL max_parallel_workers_per_gather = 0;
	EXECUTE sorted || q || ') r' INTO r_serial;
	EXECUTE sorted || replace(replace(q, 'sh_col', 'sh_heap'), 'sh_row', 'sh_heap') || ') r' INTO r_heap;
	RETURN CASE WHEN r_helpers = r_workers AND r_helpers = r_serial AND r_helpers = r_heap
				THEN 'same' ELSE 'DIFFERENT: ' || r_helpers || ' / ' || r_serial || ' / ' || r_heap END;
END
$$;
SELECT q, helper_results(q) FROM unnest(ARRAY[
	'SELECT count(*), sum(i), sum(n), avg(n), min(d), max(t), round(sum(f)) FROM sh_col',
	'SELECT g, count(*), sum(n), round(avg(f)::numeric, 6) FROM sh_col GROUP BY g',
	'SELECT t, count(DISTINCT g), sum(i) FROM sh_col GROUP BY t',
	'SELECT count(*), sum(n) FROM sh_col WHERE d BETWEEN ''2024-01-05'' AND ''2024-01-09''',
	'SELECT count(*), sum(i), sum(n), avg(n), min(d), max(t), round(sum(f)) FROM sh_row',
	'SELECT g, count(*), sum(n), round(avg(f)::numeric, 6) FROM sh_row GROUP BY g',
	'SELECT count(*), sum(n) FROM sh_row WHERE i % 3 = 1'
]) AS q;
-- and with the leader taking part
SET parallel_leader_participation = on;
SELECT count(*), sum(i), sum(n), avg(n), min(d), max(t) FROM sh_col;
SELECT count(*), sum(i), sum(n), avg(n), min(d), max(t) FROM sh_row;
-- a Gather that computes an expression of its input's rows: one the
-- participants may not (parallel restricted)
CREATE FUNCTION sh_twice(x int) RETURNS int LANGUAGE plpgsql PARALLEL RESTRICTED
	AS 'BEGIN RETURN x * 2; END';
SET enable_gathermerge = off;
EXPLAIN (COSTS OFF)
SELECT md5(string_agg(s::text, ',')) FROM
  (SELECT i FROM sh_col WHERE g = 3 ORDER BY sh_twice(i) DESC, i LIMIT 50) s;
SELECT q, helper_results(q) FROM unnest(ARRAY[
	'SELECT md5(string_agg(s::text, '','')) FROM (SELECT i FROM sh_col WHERE g = 3 ORDER BY sh_twice(i) DESC, i LIMIT 50) s',
	'SELECT md5(string_agg(s::text, '','')) FROM (SELECT i FROM sh_row WHERE g = 3 ORDER BY sh_twice(i) DESC, i LIMIT 50) s'
]) AS q;
RESET enable_gathermerge;
-- PostgreSQL's own partial aggregation under the node
SET storage_engine.enable_vectorized_aggregation = off;
SELECT q, helper_results(q) FROM unnest(ARRAY[
	'SELECT g, count(*), sum(n), max(t) FROM sh_col GROUP BY g',
	'SELECT g, count(*), sum(n), max(t) FROM sh_row GROUP BY g'
]) AS q;
RESET storage_engine.enable_vectorized_aggregation;

-- The session's settings reach the helpers: a custom setting read in the
-- filter (an unknown one would fail there), and extra_float_digits in a
-- float's text.
SET sh.bound = '20000';
SELECT q, helper_results(q) FROM unnest(ARRAY[
	'SELECT count(*) FROM sh_col WHERE i <= current_setting(''sh.bound'')::int',
	'SELECT max((f / 3)::text) FROM sh_col'
]) AS q;
SET extra_float_digits = -3;
SELECT q, helper_results(q) FROM unnest(ARRAY[
	'SELECT max((f / 3)::text) FROM sh_col'
]) AS q;
RESET extra_float_digits;

-- The current user reaches them: current_user in a filter.
CREATE ROLE regress_sh_reader;
GRANT SELECT ON sh_col, sh_heap TO regress_sh_reader;
SET ROLE regress_sh_reader;
SELECT q, helper_results(q) FROM unnest(ARRAY[
	'SELECT count(*) FROM sh_col WHERE current_user = ''regress_sh_reader'' AND g = 3'
]) AS q;
RESET ROLE;

-- Errors in a helper are the query's error (the helpers do the work).
SET parallel_leader_participation = off;
SELECT sum(1 / (i - 30000)) FROM sh_col;
SELECT sum(1 / (i - 30000)) FROM sh_row;
RESET parallel_leader_participation;
-- and the session goes on, with its helpers
SELECT helpers_joined('SELECT count(*), sum(n) FROM sh_col') > 0 AS joined_again;

-- Where a helper could see something else, the Gather runs: a transaction
-- that wrote, a serializable one, parameters.
BEGIN;
INSERT INTO sh_heap VALUES (0, 0);
SELECT helpers_launched('SELECT count(*), sum(n) FROM sh_col') AS launched_after_write;
SELECT count(*), sum(n) FROM sh_col;
ROLLBACK;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT helpers_launched('SELECT count(*), sum(n) FROM sh_col') AS launched_serializable;
COMMIT;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*), sum(n) FROM sh_col;
SELECT count(*), sum(n) FROM sh_row;
COMMIT;
SET plan_cache_mode = force_generic_plan;
PREPARE sh_p(int) AS SELECT count(*), sum(n) FROM sh_col WHERE i > $1;
EXECUTE sh_p(100);
RESET plan_cache_mode;
DEALLOCATE sh_p;

-- A limit met before the helpers are done: they are told to stop.
SELECT g FROM (SELECT g, count(*) FROM sh_col GROUP BY g) s ORDER BY g LIMIT 1;

REVOKE SELECT ON sh_col, sh_heap FROM regress_sh_reader;
DROP ROLE regress_sh_reader;
