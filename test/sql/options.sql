-- Per-table options of colcompress and rowcompress (src/catalog/options*.c,
-- src/sql_api/options_api.c, docs/options.md): CREATE TABLE ... WITH,
-- ALTER TABLE ... SET/RESET, the SQL functions and views, every refusal,
-- SET ACCESS METHOD, transactions and permissions.  Tables stay empty: this
-- file tests the catalog, not the storage.

-- Options as stored in pg_class, and which access method a table uses.
CREATE FUNCTION pg_temp.opts(rel regclass)
	RETURNS TABLE (am name, reloptions text[])
	LANGUAGE sql AS
$$ SELECT a.amname, c.reloptions FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam
    WHERE c.oid = rel $$;

-- ==== defaults ====
CREATE TABLE col_plain (a int) USING colcompress;
CREATE TABLE row_plain (a int) USING rowcompress;
SELECT * FROM pg_temp.opts('col_plain');
SELECT * FROM engine.colcompress_options WHERE relation = 'col_plain'::regclass;
SELECT * FROM engine.rowcompress_options WHERE relation = 'row_plain'::regclass;

-- ==== CREATE TABLE ... WITH: values are normalized ====
CREATE TABLE col_with (id int, ts timestamptz, "Name" text, j json)
	USING colcompress
	WITH (compression = 'LZ4', compression_level = 9, stripe_row_limit = ' 050000 ',
		  chunk_group_row_limit = 5000, orderby = 'ts desc, "Name" NULLS first, id',
		  index_scan = off);
SELECT * FROM pg_temp.opts('col_with');
SELECT * FROM engine.colcompress_options WHERE relation = 'col_with'::regclass;
CREATE TABLE row_with (a int) USING rowcompress
	WITH (compression = 'deflate', compression_level = 12, batch_size = 500);
SELECT * FROM pg_temp.opts('row_with');
-- heap's generic options mix with ours
CREATE TABLE col_mixed (a int) USING colcompress
	WITH (autovacuum_enabled = false, compression = 'pglz', parallel_workers = 2);
SELECT * FROM pg_temp.opts('col_mixed');
-- IF NOT EXISTS on an existing table leaves its options alone
CREATE TABLE IF NOT EXISTS col_with (a int) USING colcompress WITH (compression = 'none');
SELECT * FROM pg_temp.opts('col_with');

-- ==== default_table_access_method (how pg_dump creates tables) ====
SET default_table_access_method = colcompress;
CREATE TABLE col_default (a int, b text) WITH (orderby = 'b', stripe_row_limit = 10000);
SET default_table_access_method = rowcompress;
CREATE TABLE row_default (a int) WITH (batch_size = 100);
RESET default_table_access_method;
SELECT * FROM pg_temp.opts('col_default');
SELECT * FROM pg_temp.opts('row_default');

-- ==== partitions ====
CREATE TABLE parted (a int, b int) PARTITION BY RANGE (a);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (10)
	USING colcompress WITH (orderby = 'b DESC', compression = 'zstd');
CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (10) TO (20)
	USING rowcompress WITH (batch_size = 1000);
SELECT * FROM pg_temp.opts('parted_1');
SELECT * FROM pg_temp.opts('parted_2');
-- a partitioned table has no storage and takes no options
CREATE TABLE parted_opts (a int) PARTITION BY RANGE (a) WITH (compression = 'zstd');
ALTER TABLE parted SET (compression = 'zstd');
ALTER TABLE parted RESET (compression);

-- ==== CREATE TABLE AS, SELECT INTO, materialized views ====
CREATE TABLE ctas_col USING colcompress WITH (orderby = 'x', compression = 'none')
	AS SELECT 1 AS x WITH NO DATA;
CREATE TABLE ctas_row USING rowcompress WITH (batch_size = 2000) AS SELECT 1 AS x;
SELECT * FROM pg_temp.opts('ctas_col');
SELECT * FROM pg_temp.opts('ctas_row');
SET default_table_access_method = colcompress;
SELECT 1 AS y INTO select_into;
RESET default_table_access_method;
SELECT * FROM pg_temp.opts('select_into');
CREATE MATERIALIZED VIEW mv_col USING colcompress WITH (orderby = 'x DESC', index_scan = false)
	AS SELECT 1 AS x WITH NO DATA;
SELECT * FROM pg_temp.opts('mv_col');
ALTER MATERIALIZED VIEW mv_col SET (compression = 'lz4'), RESET (index_scan);
SELECT * FROM pg_temp.opts('mv_col');
REFRESH MATERIALIZED VIEW mv_col;
SELECT * FROM pg_temp.opts('mv_col');
-- EXPLAIN ANALYZE creates the table too
DO $$ BEGIN
	EXECUTE 'EXPLAIN ANALYZE CREATE TABLE ctas_explain USING rowcompress WITH (batch_size = 300) AS SELECT 1 AS x';
END $$;
SELECT * FROM pg_temp.opts('ctas_explain');

-- ==== ALTER TABLE ... SET / RESET ====
ALTER TABLE col_plain SET (compression = 'zstd', compression_level = 19);
SELECT * FROM pg_temp.opts('col_plain');
-- several subcommands, ours and heap's, in one statement
ALTER TABLE col_plain SET (autovacuum_enabled = off, stripe_row_limit = 20000),
	ADD COLUMN b date, SET (orderby = 'b NULLS FIRST'), RESET (compression_level);
SELECT * FROM pg_temp.opts('col_plain');
-- PostgreSQL's own SET/RESET keep ours
ALTER TABLE col_plain SET (autovacuum_vacuum_threshold = 100);
ALTER TABLE col_plain RESET (autovacuum_enabled);
SELECT * FROM pg_temp.opts('col_plain');
-- RESET of an option that is not set, and of a heap page option, is fine
ALTER TABLE col_plain RESET (chunk_group_row_limit, fillfactor);
SELECT * FROM pg_temp.opts('col_plain');
ALTER TABLE col_plain RESET (autovacuum_vacuum_threshold, compression, stripe_row_limit, orderby);
SELECT * FROM pg_temp.opts('col_plain');
-- a level belongs to its codec: changing the codec alone resets it
ALTER TABLE row_with SET (compression = 'zstd');
SELECT * FROM pg_temp.opts('row_with');
ALTER TABLE row_with SET (compression = 'lz4', compression_level = 12);
SELECT * FROM pg_temp.opts('row_with');
-- codecs without levels take level 0 only
ALTER TABLE row_with SET (compression = 'none', compression_level = 0);
SELECT * FROM engine.rowcompress_options WHERE relation = 'row_with'::regclass;
ALTER TABLE row_with RESET (compression, compression_level);

-- ==== every refusal ====
-- unknown names, names of the other access method, heap's page options
ALTER TABLE col_with SET (no_such_option = 1);
ALTER TABLE col_with SET (batch_size = 1000);
ALTER TABLE row_with SET (stripe_row_limit = 1000);
ALTER TABLE row_with SET (orderby = 'a');
ALTER TABLE col_with SET (fillfactor = 50);
CREATE TABLE bad (a int) USING rowcompress WITH (toast_tuple_target = 256);
CREATE TABLE bad (a int) USING colcompress WITH (user_catalog_table = true);
CREATE TABLE bad (a int) USING colcompress WITH (batch_size = 1000);
-- integers: not a number, out of range, and stripe vs chunk group
ALTER TABLE col_with SET (stripe_row_limit = 'many');
ALTER TABLE col_with SET (stripe_row_limit = '20000.5');
ALTER TABLE col_with SET (stripe_row_limit = '0x10000');
ALTER TABLE col_with SET (stripe_row_limit = 99999999999);
ALTER TABLE col_with SET (stripe_row_limit = 999);
ALTER TABLE col_with SET (autovacuum_enabled = true, stripe_row_limit = 999);
ALTER TABLE col_with SET (stripe_row_limit = 10000001);
ALTER TABLE col_with SET (chunk_group_row_limit = 999);
ALTER TABLE col_with SET (chunk_group_row_limit = 100001);
ALTER TABLE col_with SET (stripe_row_limit = 4000);
CREATE TABLE bad (a int) USING colcompress WITH (chunk_group_row_limit = 20000, stripe_row_limit = 10000);
ALTER TABLE row_with SET (batch_size = 99);
ALTER TABLE row_with SET (batch_size = 1000001);
-- booleans
ALTER TABLE col_with SET (index_scan = 'sometimes');
-- codecs and levels
ALTER TABLE col_with SET (compression = 'snappy');
ALTER TABLE col_with SET (compression = '');
ALTER TABLE col_with SET (compression_level = 'high');
ALTER TABLE col_with SET (compression_level = 13);
ALTER TABLE col_with SET (compression_level = 99999999999);
ALTER TABLE col_with SET (compression = 'zstd', compression_level = 0);
ALTER TABLE col_with SET (compression = 'zstd', compression_level = 20);
ALTER TABLE col_with SET (compression = 'deflate', compression_level = 13);
ALTER TABLE col_with SET (compression = 'pglz', compression_level = 1);
ALTER TABLE col_with SET (compression = 'none', compression_level = -1);
-- orderby: syntax, columns, types
ALTER TABLE col_with SET (orderby = '');
ALTER TABLE col_with SET (orderby = 'id,');
ALTER TABLE col_with SET (orderby = ', id');
ALTER TABLE col_with SET (orderby = 'id ascending');
ALTER TABLE col_with SET (orderby = 'id DESC NULLS');
ALTER TABLE col_with SET (orderby = 'id NULLS sometimes');
ALTER TABLE col_with SET (orderby = 'id; DROP TABLE col_with');
ALTER TABLE col_with SET (orderby = '"Name');
ALTER TABLE col_with SET (orderby = 'id, ID');
ALTER TABLE col_with SET (orderby = 'name');
ALTER TABLE col_with SET (orderby = 'no_such_column');
ALTER TABLE col_with SET (orderby = 'ctid');
ALTER TABLE col_with SET (orderby = 'j');
-- RESET takes no values
ALTER TABLE col_with RESET (compression = 'zstd');
-- our options on a heap table
CREATE TABLE heap_t (a int, b int) WITH (compression = 'zstd');
CREATE TABLE heap_t (a int, b int) WITH (fillfactor = 90, autovacuum_enabled = false);
ALTER TABLE heap_t SET (orderby = 'a');
ALTER TABLE heap_t SET (batch_size = 1000);
SELECT * FROM pg_temp.opts('heap_t');
-- nothing of the failed statements stuck
SELECT * FROM pg_temp.opts('col_with');
SELECT * FROM pg_temp.opts('row_with');
SELECT count(*) AS bad_tables FROM pg_class WHERE relname = 'bad';

-- ==== columns: rename, drop, type change keep orderby in step ====
CREATE TABLE col_cols (a int, b text, c int) USING colcompress WITH (orderby = 'c DESC, b, a');
ALTER TABLE col_cols RENAME COLUMN b TO "B b";
SELECT * FROM pg_temp.opts('col_cols');
ALTER TABLE col_cols DROP COLUMN c;
SELECT * FROM pg_temp.opts('col_cols');
ALTER TABLE col_cols ALTER COLUMN "B b" TYPE json USING NULL;
SELECT * FROM pg_temp.opts('col_cols');
ALTER TABLE col_cols DROP COLUMN a;
SELECT * FROM pg_temp.opts('col_cols');
-- through a partitioned parent
ALTER TABLE parted RENAME COLUMN b TO b2;
SELECT * FROM pg_temp.opts('parted_1');
ALTER TABLE parted DROP COLUMN b2;
SELECT * FROM pg_temp.opts('parted_1');

-- ==== ALTER TABLE ... SET ACCESS METHOD ====
-- heap -> colcompress: heap's page options go, generic ones stay, ours come in
ALTER TABLE heap_t SET ACCESS METHOD colcompress, SET (orderby = 'b', compression = 'lz4');
SELECT * FROM pg_temp.opts('heap_t');
-- colcompress -> rowcompress: the options rowcompress does not use go
ALTER TABLE heap_t SET ACCESS METHOD rowcompress;
SELECT * FROM pg_temp.opts('heap_t');
ALTER TABLE heap_t SET (batch_size = 5000);
-- rowcompress -> heap: all of ours go, so heap can take its own options again
ALTER TABLE heap_t SET ACCESS METHOD heap;
SELECT * FROM pg_temp.opts('heap_t');
ALTER TABLE heap_t SET (fillfactor = 80);
SELECT * FROM pg_temp.opts('heap_t');
-- our options cannot come along to heap
ALTER TABLE col_with SET ACCESS METHOD heap, SET (compression = 'zstd');
-- heap -> colcompress together with a generic option
ALTER TABLE heap_t SET ACCESS METHOD colcompress, SET (autovacuum_enabled = true, compression = 'none');
SELECT * FROM pg_temp.opts('heap_t');
-- VACUUM FULL keeps them
VACUUM FULL heap_t;
SELECT * FROM pg_temp.opts('heap_t');

-- ==== transactions ====
BEGIN;
ALTER TABLE col_default SET (compression = 'none', stripe_row_limit = 1000, chunk_group_row_limit = 1000);
SELECT * FROM pg_temp.opts('col_default');
ROLLBACK;
SELECT * FROM pg_temp.opts('col_default');
BEGIN;
SAVEPOINT s1;
SELECT engine.alter_colcompress_table_set('col_default', index_scan => false);
ROLLBACK TO s1;
ALTER TABLE col_default SET (compression = 'lz4');
COMMIT;
SELECT * FROM pg_temp.opts('col_default');
BEGIN;
CREATE TABLE col_tx (a int) USING colcompress WITH (compression = 'none');
ROLLBACK;
SELECT count(*) AS col_tx FROM pg_class WHERE relname = 'col_tx';
BEGIN READ ONLY;
ALTER TABLE col_default SET (compression = 'zstd');
ROLLBACK;
BEGIN READ ONLY;
SELECT engine.alter_colcompress_table_set('col_default', compression => 'zstd');
ROLLBACK;

-- ==== SQL functions ====
SELECT engine.alter_colcompress_table_set('col_default', chunk_group_row_limit => 2000,
	stripe_row_limit => 4000, compression => 'zstd', compression_level => 5,
	orderby => 'a DESC', index_scan => false);
SELECT * FROM engine.colcompress_options WHERE relation = 'col_default'::regclass;
-- NULL leaves an option alone
SELECT engine.alter_colcompress_table_set('col_default', compression_level => NULL);
SELECT engine.alter_colcompress_table_set('col_default');
SELECT * FROM pg_temp.opts('col_default');
SELECT engine.alter_colcompress_table_reset('col_default', compression_level => true, orderby => true);
SELECT * FROM pg_temp.opts('col_default');
SELECT engine.alter_colcompress_table_reset('col_default', chunk_group_row_limit => true,
	stripe_row_limit => true, compression => true, index_scan => true);
SELECT * FROM pg_temp.opts('col_default');
SELECT engine.alter_rowcompress_table_set('row_default', batch_size => 20000, compression => 'lz4', compression_level => 3);
SELECT * FROM engine.rowcompress_options WHERE relation = 'row_default'::regclass;
SELECT engine.alter_rowcompress_table_reset('row_default', batch_size => true, compression => true);
SELECT * FROM pg_temp.opts('row_default');
-- the same validation as ALTER TABLE
SELECT engine.alter_colcompress_table_set('col_default', stripe_row_limit => 1);
SELECT engine.alter_colcompress_table_set('col_default', compression => 'brotli');
SELECT engine.alter_colcompress_table_set('col_default', orderby => 'nope');
SELECT engine.alter_rowcompress_table_set('row_default', compression => 'pglz', compression_level => 4);
-- the wrong access method, no table
SELECT engine.alter_colcompress_table_set('row_default', stripe_row_limit => 10000);
SELECT engine.alter_rowcompress_table_reset('col_default', batch_size => true);
SELECT engine.alter_colcompress_table_set('heap_plain_missing', stripe_row_limit => 10000);
SELECT engine.alter_colcompress_table_set(NULL, stripe_row_limit => 10000);
SELECT engine.colcompress_table_options('row_default');
SELECT engine.rowcompress_table_options('col_default');
SELECT * FROM engine.colcompress_table_options('col_with');
SELECT * FROM engine.rowcompress_table_options('row_with');

-- ==== the views list every table of their access method ====
SELECT * FROM engine.colcompress_options ORDER BY relation::text;
SELECT * FROM engine.rowcompress_options ORDER BY relation::text;

-- ==== permissions: only the owner changes options ====
CREATE ROLE regress_options_other;
GRANT USAGE ON SCHEMA public TO regress_options_other;
SET ROLE regress_options_other;
ALTER TABLE col_with SET (compression = 'none');
ALTER TABLE col_with RESET (orderby);
SELECT engine.alter_colcompress_table_set('col_with', compression => 'none');
SELECT engine.alter_rowcompress_table_reset('row_with', batch_size => true);
-- reading them is fine
SELECT relation, compression FROM engine.colcompress_options WHERE relation = 'col_with'::regclass;
RESET ROLE;
ALTER TABLE col_with OWNER TO regress_options_other;
SET ROLE regress_options_other;
SELECT engine.alter_colcompress_table_set('col_with', compression => 'none');
ALTER TABLE col_with RESET (compression);
RESET ROLE;
SELECT * FROM pg_temp.opts('col_with');
DROP TABLE col_with;
REVOKE USAGE ON SCHEMA public FROM regress_options_other;
DROP ROLE regress_options_other;
