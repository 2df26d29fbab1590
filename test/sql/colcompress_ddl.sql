-- Table-level operations on colcompress: TRUNCATE, DROP, rewrites, access
-- method changes, CTAS, materialized views, partitions, temporary and
-- unlogged tables, VACUUM, ANALYZE, sizes and the metadata they leave.

CREATE FUNCTION stripe_rows(rel regclass) RETURNS bigint LANGUAGE sql AS
$$ SELECT count(*) FROM engine.stripe WHERE storage_id = engine.storage_id(rel) $$;
CREATE FUNCTION all_stripe_rows() RETURNS bigint LANGUAGE sql AS
$$ SELECT count(*) FROM engine.stripe $$;

SELECT all_stripe_rows() AS stripes_before;

-- several stripes (default stripe_row_limit is 150000)
CREATE TABLE big (id int, grp int, label text) USING colcompress;
INSERT INTO big SELECT g, g % 7, 'label ' || (g % 100) FROM generate_series(1, 320000) g;
SELECT stripe_num, row_count, chunk_group_count FROM engine.colcompress_stripes
 WHERE relation = 'big'::regclass ORDER BY stripe_num;
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
-- in table order: its copies of the sampled rows keep their TIDs, which it
-- sorts them by, so a column stored in its own order has correlation 1
-- (the sample is a tenth of the rows, so it is reordered)
SELECT attname, round(correlation::numeric, 2) AS correlation
  FROM pg_stats WHERE tablename = 'big' AND attname = 'id';
EXPLAIN (COSTS OFF) SELECT * FROM big WHERE grp = 3;

-- the planner's row estimate (test/sql/common/estimate.psql, run from test/sql)
\set am colcompress
\getenv abs_srcdir PG_ABS_SRCDIR
\cd :abs_srcdir/sql
\i common/estimate.psql

-- VACUUM advances relfrozenxid (the data holds no xids)
CREATE TABLE frozen_probe (a int) USING colcompress;
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
SELECT stripe_rows('big') AS stripes_kept;
TRUNCATE big;
SELECT count(*) AS truncated FROM big, stripe_rows('big') AS s;
INSERT INTO big SELECT g, g % 7, 'x' FROM generate_series(1, 1000) g;
SELECT count(*) AS reloaded FROM big;

-- create and truncate in one transaction (non-transactional truncate)
BEGIN;
CREATE TABLE fresh (a int) USING colcompress;
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
SELECT count(*) AS problems FROM engine.colcompress_verify('big');

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
SELECT count(*) AS problems FROM engine.colcompress_verify('big');

-- heap -> colcompress -> heap
CREATE TABLE amswitch AS SELECT g AS a, md5(g::text) AS b FROM generate_series(1, 5000) g;
ALTER TABLE amswitch SET ACCESS METHOD colcompress;
SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'amswitch';
SELECT count(*), count(DISTINCT b) FROM amswitch;
SELECT stripe_rows('amswitch') > 0 AS has_stripes;
ALTER TABLE amswitch SET ACCESS METHOD heap;
SELECT amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname = 'amswitch';
SELECT count(*), count(DISTINCT b) FROM amswitch;

-- CREATE TABLE AS, SELECT INTO, materialized views
CREATE TABLE ctas USING colcompress AS SELECT g AS a FROM generate_series(1, 1000) g;
SELECT count(*), sum(a) FROM ctas;
SET default_table_access_method = colcompress;
SELECT g AS a INTO selinto FROM generate_series(1, 10) g;
RESET default_table_access_method;
SELECT amname, count(*) FROM selinto, pg_class c JOIN pg_am a ON a.oid = c.relam
 WHERE c.relname = 'selinto' GROUP BY amname;
CREATE MATERIALIZED VIEW mv USING colcompress AS SELECT a % 10 AS k, count(*) AS n FROM ctas GROUP BY 1;
SELECT * FROM mv ORDER BY k LIMIT 3;
INSERT INTO ctas SELECT 5 FROM generate_series(1, 5);
REFRESH MATERIALIZED VIEW mv;
SELECT n FROM mv WHERE k = 5;

-- partitions
CREATE TABLE parted (d date, v int) PARTITION BY RANGE (d);
CREATE TABLE parted_2023 PARTITION OF parted FOR VALUES FROM ('2023-01-01') TO ('2024-01-01') USING colcompress;
CREATE TABLE parted_2024 PARTITION OF parted FOR VALUES FROM ('2024-01-01') TO ('2025-01-01') USING colcompress;
INSERT INTO parted SELECT '2023-06-01'::date + g, g FROM generate_series(1, 400) g;
SELECT tableoid::regclass, count(*), sum(v) FROM parted GROUP BY 1 ORDER BY 1;

-- temporary and unlogged tables
CREATE TEMP TABLE tmp_col (a int) USING colcompress;
INSERT INTO tmp_col SELECT generate_series(1, 100);
SELECT count(*) FROM tmp_col;
CREATE UNLOGGED TABLE unl_col (a int) USING colcompress;
INSERT INTO unl_col SELECT generate_series(1, 100);
SELECT count(*) FROM unl_col;

-- a table in a publication refuses writes instead of dropping them from
-- the change stream
CREATE TABLE published (a int) USING colcompress;
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

-- DROP removes the metadata
DROP TABLE big, vf, amswitch, ctas, selinto, parted, tmp_col, unl_col, published, fresh, frozen_probe CASCADE;
SELECT all_stripe_rows() AS stripes_after_drop;
SELECT count(*) AS chunk_groups_left FROM engine.chunk_group;
SELECT count(*) AS chunks_left FROM engine.chunk;
DROP FUNCTION stripe_rows(regclass), all_stripe_rows();
