-- Inserted rows wait in a write buffer per table until a stripe or batch
-- is full.  storage_engine.write_buffer_memory bounds what the buffers of a
-- transaction hold together: loading many partitions at once writes the
-- largest buffer early (a shorter stripe or batch) instead of holding a
-- stripe for each.  Rows, row numbers and transactions are unaffected.

CREATE TABLE load_src AS
SELECT g AS id, g % 8 AS part, md5(g::text) || md5((g + 1)::text) AS payload
  FROM generate_series(1, 60000) g;

CREATE TABLE parts_col (id int, part int, payload text) PARTITION BY LIST (part);
CREATE TABLE parts_row (id int, part int, payload text) PARTITION BY LIST (part);
DO $$
BEGIN
	FOR i IN 0..7 LOOP
		EXECUTE format('CREATE TABLE parts_col_%s PARTITION OF parts_col FOR VALUES IN (%s) USING colcompress', i, i);
		EXECUTE format('CREATE TABLE parts_row_%s PARTITION OF parts_row FOR VALUES IN (%s) USING rowcompress WITH (batch_size = 100000)', i, i);
	END LOOP;
END $$;

-- the memory the write buffers of this session hold now
CREATE FUNCTION buffered_kb() RETURNS bigint LANGUAGE sql AS $$
	SELECT coalesce(sum(total_bytes), 0) / 1024 FROM pg_backend_memory_contexts
	 WHERE name IN ('colcompress write buffer', 'colcompress write arrays',
					'rowcompress write buffer')
$$;

-- with the default budget every partition holds its rows until commit:
-- one stripe, one batch each
BEGIN;
INSERT INTO parts_col SELECT * FROM load_src;
INSERT INTO parts_row SELECT * FROM load_src;
SELECT buffered_kb() > 2048 AS holds_all;
COMMIT;
SELECT count(*) AS stripes, min(row_count), max(row_count)
  FROM engine.colcompress_stripes WHERE relation::text LIKE 'parts_col_%';
SELECT count(*) AS batches, min(row_count), max(row_count)
  FROM engine.rowcompress_batches WHERE relation::text LIKE 'parts_row_%';

-- with 1 MB the largest buffer is written whenever they pass it together
TRUNCATE parts_col, parts_row;
SET storage_engine.write_buffer_memory = '1MB';
BEGIN;
INSERT INTO parts_col SELECT * FROM load_src;
SELECT buffered_kb() < 1024 + 512 AS col_within_budget;
INSERT INTO parts_row SELECT * FROM load_src;
SELECT buffered_kb() < 1024 + 512 AS within_budget;
-- the transaction reads its own rows, written or still buffered
SELECT count(*), sum(id) FROM parts_col;
SELECT count(*), sum(id) FROM parts_row;
COMMIT;
SELECT count(*) > 8 AS more_stripes, max(row_count) < 7500 AS shorter, sum(row_count)
  FROM engine.colcompress_stripes WHERE relation::text LIKE 'parts_col_%';
SELECT count(*) > 8 AS more_batches, max(row_count) < 7500 AS shorter, sum(row_count)
  FROM engine.rowcompress_batches WHERE relation::text LIKE 'parts_row_%';
SELECT (SELECT count(*) FROM (SELECT * FROM parts_col EXCEPT ALL SELECT id, part, payload FROM load_src) d) AS col_extra,
	   (SELECT count(*) FROM (SELECT id, part, payload FROM load_src EXCEPT ALL SELECT * FROM parts_col) d) AS col_missing,
	   (SELECT count(*) FROM (SELECT * FROM parts_row EXCEPT ALL SELECT id, part, payload FROM load_src) d) AS row_extra,
	   (SELECT count(*) FROM (SELECT id, part, payload FROM load_src EXCEPT ALL SELECT * FROM parts_row) d) AS row_missing;

-- rows written early by a transaction that rolls back stay invisible
TRUNCATE parts_col, parts_row;
BEGIN;
INSERT INTO parts_col SELECT * FROM load_src;
INSERT INTO parts_row SELECT * FROM load_src;
ROLLBACK;
SELECT (SELECT count(*) FROM parts_col) AS col_rows, (SELECT count(*) FROM parts_row) AS row_rows;

-- a savepoint rolled back takes its rows, written early or not; rows of
-- the outer level stay, also those buffered when the subtransaction began
BEGIN;
INSERT INTO parts_col SELECT * FROM load_src WHERE id <= 1000;
SAVEPOINT s;
INSERT INTO parts_col SELECT * FROM load_src WHERE id > 1000;
ROLLBACK TO SAVEPOINT s;
INSERT INTO parts_col SELECT * FROM load_src WHERE id > 59000;
COMMIT;
SELECT count(*), sum(id) FROM parts_col;

-- a PL/pgSQL block's subtransaction may not write the outer level's
-- buffers, which hold most of the budget: the block's own are written once
-- they hold half of it, not at every row (10,030 stripes instead of 54)
TRUNCATE parts_col;
BEGIN;
INSERT INTO parts_col SELECT * FROM load_src WHERE id <= 30000;
SELECT buffered_kb() > 512 AS outer_level_holds_most;
DO $$
BEGIN
	INSERT INTO parts_col SELECT * FROM load_src WHERE id > 30000;
	RAISE EXCEPTION 'undo the block';
EXCEPTION WHEN raise_exception THEN
	NULL;
END $$;
DO $$
BEGIN
	INSERT INTO parts_col SELECT * FROM load_src WHERE id > 50000;
EXCEPTION WHEN raise_exception THEN
	NULL;
END $$;
COMMIT;
SELECT count(*), sum(id) FROM parts_col;
SELECT count(*) < 100 AS few_stripes, sum(row_count)
  FROM engine.colcompress_stripes WHERE relation::text LIKE 'parts_col_%';

-- UPDATE moving rows between partitions, under the budget
UPDATE parts_col SET part = (part + 1) % 8, payload = upper(payload) WHERE id % 3 = 0;
SELECT part, count(*), count(*) FILTER (WHERE payload = upper(payload)) AS updated
  FROM parts_col GROUP BY part ORDER BY part;
RESET storage_engine.write_buffer_memory;

-- COPY lets go of the buffers of all but 32 partitions it loads (and of
-- all, at a partition with a BEFORE ROW trigger); their rows still wait
-- for the commit: a stripe or batch per partition, not one every few rows
CREATE TABLE copied (id int, part int, payload text) PARTITION BY LIST (part);
DO $$
BEGIN
	FOR i IN 0..39 LOOP
		EXECUTE format('CREATE TABLE copied_%s PARTITION OF copied FOR VALUES IN (%s) USING %s',
					   i, i, CASE WHEN i % 2 = 0 THEN 'colcompress' ELSE 'rowcompress' END);
	END LOOP;
END $$;
CREATE FUNCTION copied_log() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.payload := NEW.payload || '!';
	RETURN NEW;
END $$;
CREATE TRIGGER copied_7 BEFORE INSERT ON copied_7 FOR EACH ROW EXECUTE FUNCTION copied_log();
COPY (SELECT g, g % 40, md5(g::text) FROM generate_series(1, 40000) g) TO '/tmp/storage_engine_copied.data';
COPY copied FROM '/tmp/storage_engine_copied.data';
SELECT count(*), sum(id), count(*) FILTER (WHERE payload LIKE '%!') AS triggered FROM copied;
SELECT (SELECT count(*) FROM engine.colcompress_stripes WHERE relation::text LIKE 'copied_%') AS stripes,
	   (SELECT count(*) FROM engine.rowcompress_batches WHERE relation::text LIKE 'copied_%') AS batches;
DROP TABLE copied;
DROP FUNCTION copied_log();

-- PL/pgSQL blocks with EXCEPTION clauses, nested, that insert, read rows
-- the levels around them buffer, check unique keys, update, delete and
-- fail at random (the same choices for every table): each access method
-- ends as heap does, with the write buffers' budget at its default and at
-- its least (which writes the blocks' own rows early)
CREATE FUNCTION nested_blocks(tbl text, seed float8) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE n bigint := 0; k int; acc bigint := 0;
BEGIN
	PERFORM setseed(seed);
	EXECUTE format('SELECT coalesce(max(id), 0) FROM %I', tbl) INTO k;
	FOR i IN 1..150 LOOP
		EXECUTE format('INSERT INTO %I SELECT g, g FROM generate_series(%s, %s) g', tbl, k + 1, k + 50);
		k := k + 50;
		BEGIN
			IF random() < 0.5 THEN
				EXECUTE format('SELECT count(*) + coalesce(sum(v), 0) FROM %I', tbl) INTO n;
				acc := acc + n;
			END IF;
			EXECUTE format('INSERT INTO %I SELECT g, -g FROM generate_series(%s, %s) g', tbl, k + 1, k + 10);
			k := k + 10;
			BEGIN
				IF random() < 0.5 THEN
					EXECUTE format('SELECT count(*) FROM %I WHERE id > %s', tbl, k - 30) INTO n;
					acc := acc + n;
				END IF;
				IF random() < 0.3 THEN
					EXECUTE format('INSERT INTO %I VALUES (%s, 0)', tbl, k - 40);
				END IF;
				IF random() < 0.3 THEN
					RAISE EXCEPTION 'inner';
				END IF;
			EXCEPTION WHEN raise_exception OR unique_violation THEN
				acc := acc + 1;
			END;
			IF random() < 0.3 THEN
				EXECUTE format('UPDATE %I SET v = v + 1 WHERE id = %s', tbl, k - 5);
			END IF;
			IF random() < 0.2 THEN
				EXECUTE format('DELETE FROM %I WHERE id = %s', tbl, k - 55);
			END IF;
			IF random() < 0.3 THEN
				RAISE EXCEPTION 'outer';
			END IF;
		EXCEPTION WHEN raise_exception THEN
			acc := acc + 1000;
		END;
	END LOOP;
	EXECUTE format('SELECT count(*) + sum(v) FROM %I', tbl) INTO n;
	RETURN acc * 1000003 + n;
END $$;
CREATE TABLE nb_heap (id int PRIMARY KEY, v int);
CREATE TABLE nb_col (id int PRIMARY KEY, v int) USING colcompress;
CREATE TABLE nb_row (id int PRIMARY KEY, v int) USING rowcompress;
WITH runs AS MATERIALIZED (
	SELECT seed, nested_blocks('nb_heap', seed) AS h, nested_blocks('nb_col', seed) AS c,
		   nested_blocks('nb_row', seed) AS r
	  FROM (VALUES (0.1), (0.2), (0.3)) s(seed))
SELECT seed, h = c AS col_as_heap, h = r AS row_as_heap FROM runs ORDER BY seed;
SET storage_engine.write_buffer_memory = '1MB';
WITH runs AS MATERIALIZED (
	SELECT seed, nested_blocks('nb_heap', seed) AS h, nested_blocks('nb_col', seed) AS c,
		   nested_blocks('nb_row', seed) AS r
	  FROM (VALUES (0.4), (0.5)) s(seed))
SELECT seed, h = c AS col_as_heap, h = r AS row_as_heap FROM runs ORDER BY seed;
RESET storage_engine.write_buffer_memory;
SELECT (SELECT count(*) FROM ((TABLE nb_heap EXCEPT ALL TABLE nb_col)
			UNION ALL (TABLE nb_col EXCEPT ALL TABLE nb_heap)) d) AS col_differs,
	   (SELECT count(*) FROM ((TABLE nb_heap EXCEPT ALL TABLE nb_row)
			UNION ALL (TABLE nb_row EXCEPT ALL TABLE nb_heap)) d) AS row_differs,
	   (SELECT count(*) FROM nb_heap) AS rows;
DROP TABLE nb_heap, nb_col, nb_row;
DROP FUNCTION nested_blocks(text, float8);

-- a loop of PL/pgSQL blocks with EXCEPTION clauses (a subtransaction
-- each) inserting a row each: a block's buffer is written as it commits
-- when the enclosing level has one for the table, not handed up beside it,
-- so the buffers do not grow with the blocks (they took 22 kB a block)
CREATE TABLE sb_col (id int PRIMARY KEY, v text) USING colcompress;
CREATE TABLE sb_row (id int PRIMARY KEY, v text) USING rowcompress;
CREATE FUNCTION sub_blocks(t regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE kb bigint;
BEGIN
	FOR i IN 1..3000 LOOP
		BEGIN
			EXECUTE format('INSERT INTO %s VALUES ($1, $2)', t) USING i, 'v' || i;
			IF i % 3 = 0 THEN
				RAISE EXCEPTION 'undo';
			END IF;
		EXCEPTION WHEN raise_exception THEN
			NULL;
		END;
	END LOOP;
	SELECT coalesce(sum(total_bytes), 0) / 1024 INTO kb
	  FROM pg_backend_memory_contexts
	 WHERE name IN ('pending writes', 'colcompress write buffer',
					'colcompress write arrays', 'rowcompress write buffer');
	RETURN CASE WHEN kb < 4096 THEN 'bounded' ELSE kb || ' kB' END;
END $$;
SELECT sub_blocks('sb_col') AS col, sub_blocks('sb_row') AS row;
SELECT (SELECT count(*) || ' ' || sum(id) FROM sb_col) AS col,
	   (SELECT count(*) || ' ' || sum(id) FROM sb_row) AS row;
DROP TABLE sb_col, sb_row;
DROP FUNCTION sub_blocks(regclass);

-- the setting: at least 1 MB
SELECT setting, unit, min_val, context FROM pg_settings
 WHERE name = 'storage_engine.write_buffer_memory';

DROP TABLE parts_col, parts_row, load_src;
DROP FUNCTION buffered_kb();
