-- Table-level operations on colcompress: TRUNCATE, DROP, rewrites, access
-- method changes, CTAS, materialized views, partitions, temporary and
-- unlogged tables, VACUUM, ANALYZE, sizes and the metadata they leave.

CREATE FUNCTION unit_rows(rel regclass) RETURNS bigint LANGUAGE sql AS
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

-- what both access methods share (test/sql/common/ddl.psql)
\set verify colcompress_verify
\i common/ddl.psql

-- DROP removes the metadata
DROP TABLE big, vf, amswitch, ctas, selinto, ddl_parted, tmp_col, unl_col, published, fresh, frozen_probe CASCADE;
SELECT all_stripe_rows() AS stripes_after_drop;
SELECT count(*) AS chunk_groups_left FROM engine.chunk_group;
SELECT count(*) AS chunks_left FROM engine.chunk;
DROP FUNCTION unit_rows(regclass), all_stripe_rows();
