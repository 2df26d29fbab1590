-- Transactions, visibility of a transaction's own rows, and plans built on
-- top of a rowcompress sequential scan, compared with heap.

CREATE TABLE tx (id int, v text) USING rowcompress;

-- commit makes rows visible; rollback and failed statements leave nothing
INSERT INTO tx SELECT g, 'c' || g FROM generate_series(1, 100) g;
BEGIN;
INSERT INTO tx SELECT g, 'r' || g FROM generate_series(101, 200) g;
SELECT count(*) AS own_rows_visible FROM tx;
ROLLBACK;
SELECT count(*) AS after_rollback FROM tx;
INSERT INTO tx SELECT g, CASE WHEN g = 250 THEN (1 / 0)::text END FROM generate_series(201, 300) g;
SELECT count(*) AS after_failed_insert FROM tx;

-- savepoints
BEGIN;
INSERT INTO tx VALUES (1001, 'kept');
SAVEPOINT a;
INSERT INTO tx VALUES (1002, 'rolled back');
SELECT count(*) FILTER (WHERE id > 1000) AS inside_savepoint FROM tx;
ROLLBACK TO SAVEPOINT a;
INSERT INTO tx VALUES (1003, 'kept too');
SAVEPOINT b;
INSERT INTO tx VALUES (1004, 'released');
RELEASE SAVEPOINT b;
COMMIT;
SELECT id, v FROM tx WHERE id > 1000 ORDER BY id;

-- a subtransaction that inserts and fails leaves nothing
DO $$
BEGIN
	BEGIN
		INSERT INTO tx VALUES (2001, 'gone');
		RAISE EXCEPTION 'undo';
	EXCEPTION WHEN raise_exception THEN
		NULL;
	END;
END $$;
SELECT count(*) AS gone FROM tx WHERE id = 2001;

-- reading rows buffered outside an EXCEPTION block is refused, not wrong
BEGIN;
INSERT INTO tx VALUES (3001, 'buffered');
DO $$
BEGIN
	BEGIN
		PERFORM count(*) FROM tx;
	EXCEPTION WHEN feature_not_supported THEN
		RAISE NOTICE 'refused: %', SQLERRM;
	END;
END $$;
SELECT count(*) FROM tx WHERE id = 3001;
ROLLBACK;

-- INSERT ... SELECT from the same table sees only the rows from before it
BEGIN;
INSERT INTO tx SELECT id + 10000, v FROM tx;
SELECT count(*) AS doubled FROM tx;
INSERT INTO tx SELECT id + 100000, v FROM tx WHERE id > 10000;
SELECT count(*) AS plus_copies FROM tx;
ROLLBACK;

-- the same rows in heap, for plan comparisons
CREATE TABLE tx_heap AS SELECT * FROM tx;

-- joins, sorts, aggregates, CTEs, window functions, subqueries
SELECT count(*) FROM tx a JOIN tx_heap b USING (id) WHERE a.v = b.v;
SELECT v, count(*) FROM tx GROUP BY v ORDER BY v LIMIT 5;
WITH w AS (SELECT id, v, row_number() OVER (ORDER BY id DESC) AS rn FROM tx)
SELECT id, v, rn FROM w WHERE rn <= 3 ORDER BY rn;
SELECT count(*) FROM tx WHERE id IN (SELECT id FROM tx_heap WHERE id % 10 = 0);
SELECT (SELECT count(*) FROM (SELECT * FROM tx EXCEPT ALL SELECT * FROM tx_heap) d) AS differ;

-- scrollable cursors
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT id FROM tx ORDER BY id;
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
FETCH LAST FROM c;
FETCH ABSOLUTE 50 FROM c;
CLOSE c;
DECLARE raw SCROLL CURSOR FOR SELECT id FROM tx;
FETCH FORWARD 2 FROM raw;
FETCH BACKWARD 1 FROM raw;
MOVE LAST IN raw;
FETCH BACKWARD 2 FROM raw;
FETCH FIRST FROM raw;
COMMIT;

-- rescans: the inner side of a nested loop is scanned many times
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
SELECT count(*) FROM (SELECT id FROM tx_heap WHERE id <= 20) a JOIN tx b ON a.id = b.id;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- prepared statements
PREPARE q(int) AS SELECT count(*) FROM tx WHERE id <= $1;
EXECUTE q(10);
EXECUTE q(1000);
INSERT INTO tx VALUES (5000, 'new');
EXECUTE q(10000);
DEALLOCATE q;

-- a column added while rows are buffered keeps its values
BEGIN;
INSERT INTO tx VALUES (6000, 'before add');
ALTER TABLE tx ADD COLUMN extra int DEFAULT 42;
INSERT INTO tx VALUES (6001, 'after add', 7);
SELECT id, v, extra FROM tx WHERE id >= 6000 ORDER BY id;
COMMIT;
SELECT id, v, extra FROM tx WHERE id >= 5000 ORDER BY id;

-- row identity: every row has a distinct, valid TID
SELECT count(DISTINCT ctid) = count(*) AS tids_unique,
	   bool_and((ctid::text::point)[1] BETWEEN 1 AND 291) AS offsets_valid
  FROM tx;

SELECT count(*) AS problems FROM engine.rowcompress_verify('tx');
DROP TABLE tx, tx_heap;

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
