-- Table-level operations on rowcompress: TRUNCATE, DROP, rewrites, access
-- method changes, CTAS, materialized views, partitions, temporary and
-- unlogged tables, VACUUM, ANALYZE, sizes and the metadata they leave.

CREATE FUNCTION batch_rows(rel regclass) RETURNS bigint LANGUAGE sql AS
$$ SELECT count(*) FROM engine.batch WHERE storage_id = engine.storage_id(rel) $$;
CREATE FUNCTION all_batch_rows() RETURNS bigint LANGUAGE sql AS
$$ SELECT count(*) FROM engine.batch $$;

SELECT all_batch_rows() AS batches_before \gset

-- several batches (default batch_size is 10000)
CREATE TABLE big (id int, grp int, label text) USING rowcompress;
INSERT INTO big SELECT g, g % 7, 'label ' || (g % 100) FROM generate_series(1, 320000) g;
SELECT batch_num, row_count, first_row_number, last_row_number, codec
  FROM engine.rowcompress_batches
 WHERE relation = 'big'::regclass ORDER BY batch_num LIMIT 3;
SELECT count(*), sum(row_count), bool_and(compression_ratio > 2) AS compressed
  FROM engine.rowcompress_batches WHERE relation = 'big'::regclass;
SELECT count(*), sum(id), count(DISTINCT label) FROM big;
SELECT grp, count(*) FROM big GROUP BY grp ORDER BY grp;

-- sizes are the relation's pages
SELECT pg_relation_size('big') > 0 AS has_size,
	   pg_relation_size('big') = pg_total_relation_size('big') AS no_toast_or_index,
	   pg_relation_size('big') < pg_relation_size('big') * 0 + 8192 * 400 AS compressed;

-- ANALYZE samples real rows
ANALYZE big;
SELECT reltuples BETWEEN 300000 AND 340000 AS reltuples_ok FROM pg_class WHERE oid = 'big'::regclass;
SELECT attname, n_distinct FROM pg_stats WHERE tablename = 'big' AND attname = 'grp';
-- in table order, so a column stored in its own order has correlation 1
-- (ANALYZE keeps a random tenth of the rows the scan hands over and sorts
-- them back by TID); with a smaller statistics target, a smaller sample
SELECT attname, round(correlation::numeric, 2) AS correlation
  FROM pg_stats WHERE tablename = 'big' AND attname = 'id';
ALTER TABLE big ALTER COLUMN id SET STATISTICS 10, ALTER COLUMN grp SET STATISTICS 10,
	ALTER COLUMN label SET STATISTICS 10;
ANALYZE big;
SELECT attname, round(correlation::numeric, 2) AS correlation
  FROM pg_stats WHERE tablename = 'big' AND attname = 'id';
ALTER TABLE big ALTER COLUMN id SET STATISTICS -1, ALTER COLUMN grp SET STATISTICS -1,
	ALTER COLUMN label SET STATISTICS -1;
ANALYZE big;
EXPLAIN (COSTS OFF) SELECT * FROM big WHERE grp = 3;

-- the planner's row estimate (test/sql/common/estimate.psql, run from test/sql)
\set am rowcompress
\getenv abs_srcdir PG_ABS_SRCDIR
\cd :abs_srcdir/sql
\i common/estimate.psql

-- VACUUM advances relfrozenxid (the data holds no xids)
CREATE TABLE frozen_probe (a int) USING rowcompress;
INSERT INTO frozen_probe VALUES (1);
SELECT relfrozenxid AS xid_before FROM pg_class WHERE oid = 'frozen_probe'::regclass \gset
SELECT txid_current() IS NOT NULL AS burn;
SELECT txid_current() IS NOT NULL AS burn;
VACUUM frozen_probe;
SELECT age(relfrozenxid) < age(:'xid_before'::xid) AS relfrozenxid_advanced
  FROM pg_class WHERE oid = 'frozen_probe'::regclass;
VACUUM (FREEZE) frozen_probe;
SELECT count(*) FROM frozen_probe;

-- TRUNCATE drops the metadata; inside a rolled back transaction it does not
BEGIN;
TRUNCATE big;
SELECT count(*) AS truncated FROM big;
ROLLBACK;
SELECT count(*) AS restored FROM big;
SELECT batch_rows('big') AS batches_kept;
TRUNCATE big;
SELECT count(*) AS truncated FROM big, batch_rows('big') AS s;
INSERT INTO big SELECT g, g % 7, 'x' FROM generate_series(1, 1000) g;
SELECT count(*) AS reloaded FROM big;

-- create and truncate in one transaction (non-transactional truncate)
BEGIN;
CREATE TABLE fresh (a int) USING rowcompress;
INSERT INTO fresh VALUES (1), (2);
TRUNCATE fresh;
INSERT INTO fresh VALUES (3);
SELECT * FROM fresh;
COMMIT;
SELECT * FROM fresh;

-- VACUUM FULL rewrites into new storage and keeps every row
CREATE TABLE vf AS SELECT * FROM big;
VACUUM FULL big;
SELECT (SELECT count(*) FROM (SELECT * FROM big EXCEPT ALL SELECT * FROM vf) d) AS differ,
	   (SELECT count(*) FROM big) AS rows;
SELECT count(*) AS problems FROM engine.rowcompress_verify('big');

-- ALTER COLUMN TYPE and DROP COLUMN
ALTER TABLE big ALTER COLUMN grp TYPE bigint;
ALTER TABLE big DROP COLUMN label;
ALTER TABLE big ADD COLUMN note text;
INSERT INTO big VALUES (-1, 99, 'note');
SELECT id, grp, note FROM big WHERE id IN (-1, 1, 2) ORDER BY id;
SELECT pg_typeof(grp) FROM big LIMIT 1;
-- a column added with a volatile default rewrites the table: ALTER TABLE
-- reads the rows with the layout from before (one column fewer), which
-- colcompress once refused ("scan ... asked for 3 columns, the table has 4")
ALTER TABLE big ADD COLUMN added int DEFAULT (random() * 0)::int + 5,
	ALTER COLUMN grp TYPE int;
SELECT count(*), sum(added), pg_typeof(min(grp)) FROM big;
SELECT count(*) AS problems FROM engine.rowcompress_verify('big');

-- heap -> rowcompress -> heap
CREATE TABLE amswitch AS SELECT g AS a, md5(g::text) AS b FROM generate_series(1, 5000) g;
ALTER TABLE amswitch SET ACCESS METHOD rowcompress;
SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'amswitch';
SELECT count(*), count(DISTINCT b) FROM amswitch;
SELECT batch_rows('amswitch') > 0 AS has_batches;
ALTER TABLE amswitch SET ACCESS METHOD heap;
SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'amswitch';
SELECT count(*), count(DISTINCT b) FROM amswitch;

-- CREATE TABLE AS, SELECT INTO, materialized views
CREATE TABLE ctas USING rowcompress AS SELECT g AS a FROM generate_series(1, 1000) g;
SELECT count(*), sum(a) FROM ctas;
SET default_table_access_method = rowcompress;
SELECT g AS a INTO selinto FROM generate_series(1, 10) g;
RESET default_table_access_method;
SELECT amname, count(*) FROM selinto, pg_class c JOIN pg_am a ON a.oid = c.relam
 WHERE c.relname = 'selinto' GROUP BY amname;
CREATE MATERIALIZED VIEW mv USING rowcompress AS SELECT a % 10 AS k, count(*) AS n FROM ctas GROUP BY 1;
SELECT * FROM mv ORDER BY k LIMIT 3;
INSERT INTO ctas SELECT 5 FROM generate_series(1, 5);
REFRESH MATERIALIZED VIEW mv;
SELECT n FROM mv WHERE k = 5;

-- partitions
CREATE TABLE rc_parted (d date, v int) PARTITION BY RANGE (d);
CREATE TABLE rc_parted_2023 PARTITION OF rc_parted FOR VALUES FROM ('2023-01-01') TO ('2024-01-01') USING rowcompress;
CREATE TABLE rc_parted_2024 PARTITION OF rc_parted FOR VALUES FROM ('2024-01-01') TO ('2025-01-01') USING rowcompress;
INSERT INTO rc_parted SELECT '2023-06-01'::date + g, g FROM generate_series(1, 400) g;
SELECT tableoid::regclass, count(*), sum(v) FROM rc_parted GROUP BY 1 ORDER BY 1;

-- temporary and unlogged tables
CREATE TEMP TABLE tmp_col (a int) USING rowcompress;
INSERT INTO tmp_col SELECT generate_series(1, 100);
SELECT count(*) FROM tmp_col;
CREATE UNLOGGED TABLE unl_col (a int) USING rowcompress;
INSERT INTO unl_col SELECT generate_series(1, 100);
SELECT count(*) FROM unl_col;

-- persistence changes rewrite the table; a tablespace change copies its
-- pages, metapage and storage id included
CREATE TABLE moved (a int, b text) USING rowcompress;
INSERT INTO moved SELECT g, md5(g::text) FROM generate_series(1, 25000) g;
ALTER TABLE moved SET UNLOGGED;
SELECT relpersistence, (SELECT count(*) FROM moved) FROM pg_class WHERE relname = 'moved';
ALTER TABLE moved SET LOGGED;
SELECT relpersistence, (SELECT sum(a) FROM moved) FROM pg_class WHERE relname = 'moved';
SET allow_in_place_tablespaces = true;
CREATE TABLESPACE regress_rc_space LOCATION '';
RESET allow_in_place_tablespaces;
SELECT engine.storage_id('moved') AS id_before \gset
ALTER TABLE moved SET TABLESPACE regress_rc_space;
SELECT count(*), sum(a), count(DISTINCT b), engine.storage_id('moved') = :id_before AS same_storage FROM moved;
SELECT count(*) AS problems FROM engine.rowcompress_verify('moved');
ALTER TABLE moved SET TABLESPACE pg_default;
DROP TABLE moved;
DROP TABLESPACE regress_rc_space;

-- a table in a publication refuses writes instead of dropping them from
-- the change stream
CREATE TABLE published (a int) USING rowcompress;
SET client_min_messages = error;  -- wal_level warnings differ by version
CREATE PUBLICATION pub_col FOR TABLE published;
RESET client_min_messages;
INSERT INTO published VALUES (1);
DROP PUBLICATION pub_col;
INSERT INTO published VALUES (1);
SELECT count(*) FROM published;

-- DELETE and UPDATE of a published table are refused as well
SET client_min_messages = error;
CREATE PUBLICATION pub_col FOR TABLE published;
RESET client_min_messages;
DELETE FROM published;
UPDATE published SET a = 2;
DROP PUBLICATION pub_col;
SELECT count(*) FROM published;

-- TABLESAMPLE (more in common/dml.psql)
SELECT * FROM published TABLESAMPLE SYSTEM (100);

-- damage is an ERROR naming the table and the batch, and verify reports it
-- (here the metadata is made to disagree with the stored bytes)
CREATE TABLE hurt (a int, b text) USING rowcompress;
INSERT INTO hurt SELECT g, md5(g::text) FROM generate_series(1, 25000) g;
CREATE FUNCTION hurt_batch(sql text) RETURNS void LANGUAGE plpgsql AS
$$ BEGIN EXECUTE 'UPDATE engine.batch SET ' || sql ||
   ' WHERE storage_id = engine.storage_id(''hurt'') AND batch_num = 2'; END $$;
SELECT hurt_batch('checksum = checksum # 1');
SELECT count(b) FROM hurt;
SELECT * FROM engine.rowcompress_verify('hurt');
SELECT hurt_batch('checksum = checksum # 1, raw_length = raw_length - 8');
SELECT count(b) FROM hurt;
SELECT hurt_batch('raw_length = raw_length + 8, row_count = row_count - 1');
SELECT count(b) FROM hurt;
SELECT * FROM engine.rowcompress_verify('hurt');
SELECT hurt_batch('row_count = row_count + 1, codec = 42');
SELECT count(b) FROM hurt;
-- blocks outside the relation, or another batch's blocks (block counts
-- depend on the compression library's version: replaced by N)
SELECT first_block AS good_block FROM engine.batch
 WHERE storage_id = engine.storage_id('hurt') AND batch_num = 2 \gset
SELECT hurt_batch('codec = 3, first_block = 100000');
SELECT batch_num, regexp_replace(problem, '[0-9]{2,}', 'N', 'g') AS problem
  FROM engine.rowcompress_verify('hurt');
SELECT hurt_batch('first_block = 1');
SELECT * FROM engine.rowcompress_verify('hurt');
SELECT hurt_batch('first_block = ' || :good_block);
SELECT count(*), sum(a) FROM hurt;
SELECT count(*) AS problems FROM engine.rowcompress_verify('hurt');
SELECT * FROM engine.rowcompress_verify('published');
SELECT * FROM engine.rowcompress_verify('pg_class');
DROP FUNCTION hurt_batch(text);

-- DROP removes the metadata
DROP TABLE big, vf, amswitch, ctas, selinto, rc_parted, tmp_col, unl_col, published, fresh, frozen_probe, hurt CASCADE;
SELECT all_batch_rows() - :batches_before AS batches_left_after_drop;
DROP FUNCTION batch_rows(regclass), all_batch_rows();
