-- Transactions and visibility: the shared body (test/sql/common/txn.psql),
-- run for rowcompress from test/sql, so that psql names the file the same on
-- every machine
\set am rowcompress
\set verify engine.rowcompress_verify
\getenv abs_srcdir PG_ABS_SRCDIR
\cd :abs_srcdir/sql
\i common/txn.psql

-- Many batches: scans, cursors and rescans across batch boundaries, and
-- parallel scans, compared with heap.
CREATE TABLE many (id int, grp int, v text) USING rowcompress;
INSERT INTO many SELECT g, g % 10, md5(g::text) FROM generate_series(1, 45000) g;
CREATE TABLE many_heap AS SELECT * FROM many;
SELECT count(*) AS batches FROM engine.rowcompress_batches WHERE relation = 'many'::regclass;

BEGIN;
DECLARE m SCROLL CURSOR FOR SELECT id FROM many;
MOVE FORWARD 9998 IN m;
FETCH FORWARD 4 FROM m;
FETCH BACKWARD 4 FROM m;
MOVE LAST IN m;
FETCH BACKWARD 3 FROM m;
MOVE ABSOLUTE 30001 IN m;
FETCH BACKWARD 2 FROM m;
FETCH ABSOLUTE -1 FROM m;
FETCH NEXT FROM m;
FETCH PRIOR FROM m;
COMMIT;

-- a rescan starts from the first batch again
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT count(*), sum(b.id) FROM (VALUES (1), (2), (3)) a(k) JOIN many b ON b.grp = a.k;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- parallel scans: workers claim batches, every row is seen once
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT count(*), sum(id) FROM many;
SELECT grp, count(*), sum(id), count(DISTINCT v) FROM many GROUP BY grp ORDER BY grp;
SELECT (SELECT count(*) FROM (SELECT * FROM many EXCEPT ALL SELECT * FROM many_heap) d) AS differ;
-- rows of this transaction, written before the parallel plan starts
BEGIN;
INSERT INTO many SELECT g, 99, 'own' FROM generate_series(1, 15000) g;
SELECT grp, count(*) FROM many WHERE grp = 99 GROUP BY grp;
ROLLBACK;
RESET parallel_leader_participation;
SELECT count(*) FILTER (WHERE grp = 99) AS rolled_back, count(*) FROM many;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- each command of a transaction sees the rows of the earlier ones
BEGIN;
CREATE TABLE steps (n int) USING rowcompress;
INSERT INTO steps VALUES (1);
INSERT INTO steps SELECT n + 1 FROM steps;
INSERT INTO steps SELECT n + 10 FROM steps;
SELECT array_agg(n ORDER BY n) FROM steps;
SELECT count(*) AS batches FROM engine.rowcompress_batches WHERE relation = 'steps'::regclass;
COMMIT;
SELECT count(*) AS batches FROM engine.rowcompress_batches WHERE relation = 'steps'::regclass;

-- a cursor does not see rows its transaction inserts after it was opened
BEGIN;
CREATE TABLE later (n int) USING rowcompress;
INSERT INTO later VALUES (1);
INSERT INTO later VALUES (2);
DECLARE lc CURSOR FOR SELECT n FROM later ORDER BY n;
INSERT INTO later VALUES (3);
FETCH ALL FROM lc;
SELECT array_agg(n ORDER BY n) AS now_visible FROM later;
COMMIT;

SELECT count(*) AS problems FROM engine.rowcompress_verify('many');
DROP TABLE many, many_heap, steps, later;
