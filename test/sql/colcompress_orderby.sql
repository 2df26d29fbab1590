-- The orderby option sorts each stripe on write; colcompress_merge rewrites
-- the table globally sorted.  Both tighten zone maps without changing
-- results.

CREATE FUNCTION groups_read(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	result text := '';
BEGIN
	PERFORM set_config('max_parallel_workers_per_gather', '0', true);
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || q LOOP
		IF line ~ '(Stripes|Chunk Groups) Read' THEN
			result := result || trim(line) || '; ';
		END IF;
	END LOOP;
	RETURN result;
END $$;

-- the same shuffled rows, without and with orderby
CREATE TABLE unsorted (k int, v text) USING colcompress
	WITH (stripe_row_limit = 10000, chunk_group_row_limit = 1000);
CREATE TABLE sorted (k int, v text) USING colcompress
	WITH (stripe_row_limit = 10000, chunk_group_row_limit = 1000, orderby = 'k ASC');
INSERT INTO unsorted SELECT (g * 7919) % 20000, 'v' || g FROM generate_series(1, 20000) g;
INSERT INTO sorted SELECT * FROM unsorted;

SELECT groups_read('SELECT count(*) FROM unsorted WHERE k BETWEEN 5000 AND 5100');
SELECT groups_read('SELECT count(*) FROM sorted WHERE k BETWEEN 5000 AND 5100');
SELECT count(*), sum(k) FROM sorted WHERE k BETWEEN 5000 AND 5100;
SELECT count(*), sum(k) FROM unsorted WHERE k BETWEEN 5000 AND 5100;
-- within a stripe the rows come back in key order
SELECT bool_and(k >= prev) AS stripe_sorted
  FROM (SELECT k, lag(k, 1, -1) OVER () AS prev FROM (SELECT k FROM sorted LIMIT 10000) s) t;

-- two loads give overlapping stripes; merge makes them disjoint
INSERT INTO sorted SELECT (g * 104729) % 20000, 'w' || g FROM generate_series(1, 20000) g;
SELECT groups_read('SELECT count(*) FROM sorted WHERE k BETWEEN 5000 AND 5100');
CREATE TABLE before_merge AS SELECT * FROM sorted;
SELECT engine.colcompress_merge('sorted');
SELECT groups_read('SELECT count(*) FROM sorted WHERE k BETWEEN 5000 AND 5100');
SELECT (SELECT count(*) FROM (SELECT * FROM sorted EXCEPT ALL SELECT * FROM before_merge) a) AS extra,
	   (SELECT count(*) FROM (SELECT * FROM before_merge EXCEPT ALL SELECT * FROM sorted) b) AS missing;
SELECT count(*) AS stripes FROM engine.colcompress_stripes WHERE relation = 'sorted'::regclass;
SELECT count(*) AS problems FROM engine.colcompress_verify('sorted');

-- a table loaded in key order is already merged: nothing is rewritten
CREATE TABLE in_order (k int, v text) USING colcompress
	WITH (stripe_row_limit = 1000, chunk_group_row_limit = 1000, orderby = 'k');
INSERT INTO in_order SELECT g, 'x' FROM generate_series(1, 5000) g;
SELECT array_agg(stripe_num ORDER BY stripe_num) AS before FROM engine.colcompress_stripes WHERE relation = 'in_order'::regclass;
SELECT engine.colcompress_merge('in_order');
SELECT array_agg(stripe_num ORDER BY stripe_num) AS after FROM engine.colcompress_stripes WHERE relation = 'in_order'::regclass;
-- equal keys on both sides of a stripe boundary are in order too
CREATE TABLE touching (k int) USING colcompress
	WITH (stripe_row_limit = 1000, chunk_group_row_limit = 1000, orderby = 'k');
INSERT INTO touching SELECT g / 7 FROM generate_series(1, 5000) g;
SELECT engine.colcompress_merge('touching');
DROP TABLE touching;
-- one row out of order: the merge rewrites
INSERT INTO in_order VALUES (2500, 'late');
SELECT engine.colcompress_merge('in_order');
SELECT count(*) AS stripes, sum(row_count) AS rows FROM engine.colcompress_stripes WHERE relation = 'in_order'::regclass;
SELECT groups_read('SELECT count(*) FROM in_order WHERE k = 2500');
DROP TABLE in_order;

-- a merge that rolls back leaves the table as it was
BEGIN;
INSERT INTO sorted VALUES (-1, 'in the merge');
SELECT engine.colcompress_merge('sorted');
SELECT count(*) FROM sorted;
ROLLBACK;
SELECT count(*) FROM sorted;

-- descending keys, NULLs
CREATE TABLE desc_nulls (k int, v text) USING colcompress WITH (orderby = 'k DESC NULLS LAST');
INSERT INTO desc_nulls VALUES (1, 'a'), (NULL, 'n'), (3, 'c'), (2, 'b');
SELECT k, v FROM desc_nulls;
SELECT engine.colcompress_merge('desc_nulls');
SELECT k, v FROM desc_nulls;

-- errors
CREATE TABLE no_orderby (k int) USING colcompress;
SELECT engine.colcompress_merge('no_orderby');
CREATE TABLE heap_t (k int);
SELECT engine.colcompress_merge('heap_t');
CREATE ROLE regress_merge_stranger;
SET ROLE regress_merge_stranger;
SELECT engine.colcompress_merge('sorted');
RESET ROLE;
DROP ROLE regress_merge_stranger;

DROP TABLE unsorted, sorted, before_merge, desc_nulls, no_orderby, heap_t;
DROP FUNCTION groups_read(text);

-- merge with indexes and deleted rows: the index finds the rewritten rows,
-- deleted rows stay gone
CREATE TABLE mi (id int PRIMARY KEY, d int) USING colcompress
	WITH (orderby = 'd ASC', stripe_row_limit = 1000, chunk_group_row_limit = 1000);
INSERT INTO mi SELECT g, (g * 7919) % 5000 FROM generate_series(1, 5000) g;
DELETE FROM mi WHERE id % 5 = 0;
SELECT engine.colcompress_merge('mi');
SELECT count(*), sum(id), sum(d) FROM mi;
SET enable_seqscan = off;
SET storage_engine.enable_custom_scan = off;
SELECT count(*), sum(id), sum(d) FROM mi WHERE id > 0;
SELECT id, d FROM mi WHERE id IN (4321, 4320);
RESET enable_seqscan;
RESET storage_engine.enable_custom_scan;
DROP TABLE mi;
