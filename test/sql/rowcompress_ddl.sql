-- Table-level operations on rowcompress: TRUNCATE, DROP, rewrites, access
-- method changes, CTAS, materialized views, partitions, temporary and
-- unlogged tables, VACUUM, ANALYZE, sizes and the metadata they leave.

CREATE FUNCTION unit_rows(rel regclass) RETURNS bigint LANGUAGE sql AS
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

-- what both access methods share (test/sql/common/ddl.psql)
\set verify rowcompress_verify
\i common/ddl.psql

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
DROP TABLE big, vf, amswitch, ctas, selinto, ddl_parted, tmp_col, unl_col, published, fresh, frozen_probe, hurt CASCADE;
SELECT all_batch_rows() - :batches_before AS batches_left_after_drop;
DROP FUNCTION unit_rows(regclass), all_batch_rows();
