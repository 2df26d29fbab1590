-- storage_engine: the one canonical install script.
--
-- Everything lives in schema "engine", which the script creates so that it
-- is a member of the extension and DROP EXTENSION removes it with the rest.
-- (A schema named in the control file would be created outside the
-- extension and survive the drop.)

\echo Use "CREATE EXTENSION storage_engine" to load this file. \quit

CREATE SCHEMA engine;
GRANT USAGE ON SCHEMA engine TO PUBLIC;

CREATE FUNCTION engine.colcompress_handler(internal)
	RETURNS table_am_handler
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'colcompress_handler';
COMMENT ON FUNCTION engine.colcompress_handler(internal)
	IS 'table access method handler of colcompress';

CREATE ACCESS METHOD colcompress TYPE TABLE HANDLER engine.colcompress_handler;
COMMENT ON ACCESS METHOD colcompress IS 'compressed column store';

CREATE FUNCTION engine.rowcompress_handler(internal)
	RETURNS table_am_handler
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'rowcompress_handler';
COMMENT ON FUNCTION engine.rowcompress_handler(internal)
	IS 'table access method handler of rowcompress';

CREATE ACCESS METHOD rowcompress TYPE TABLE HANDLER engine.rowcompress_handler;
COMMENT ON ACCESS METHOD rowcompress IS 'batch-compressed row store';

CREATE FUNCTION engine.version()
	RETURNS text
	LANGUAGE C STRICT
	AS 'MODULE_PATHNAME', 'engine_version';
COMMENT ON FUNCTION engine.version()
	IS 'version of the loaded storage_engine library and the codecs it was built with';

-- The shared frame cache (storage_engine.shared_frame_cache_size,
-- src/format/shared_frames.c): its bytes and frames now, and its counts
-- since the server started.  All zero when it is off.
CREATE FUNCTION engine.shared_frame_cache_stats(
	OUT size_bytes bigint,
	OUT used_bytes bigint,
	OUT frames bigint,
	OUT pinned_frames bigint,
	OUT hits bigint,
	OUT misses bigint,
	OUT stored bigint,
	OUT evicted bigint)
	RETURNS record
	LANGUAGE C STRICT
	AS 'MODULE_PATHNAME', 'engine_shared_frame_cache_stats';
COMMENT ON FUNCTION engine.shared_frame_cache_stats()
	IS 'size, contents and counts of the shared frame cache';
CREATE VIEW engine.shared_frame_cache AS
	SELECT * FROM engine.shared_frame_cache_stats();
GRANT SELECT ON engine.shared_frame_cache TO PUBLIC;

-- ==== colcompress metadata (src/catalog/stripe_meta.c) ====
--
-- Every colcompress relation's storage has a storage id (in its metapage);
-- these tables are keyed by it, so TRUNCATE and rewrites, which give the
-- relation new storage, start from empty metadata while a rollback brings
-- back the old storage with its rows.  Rows are written by the transaction
-- that wrote the data, so MVCC decides which stripes a snapshot sees.

CREATE SEQUENCE engine.storage_id_seq NO CYCLE;
-- Not dumped (no pg_extension_config_dump): a restore into a database that
-- already holds tables of ours would set it back to the dumped value, and
-- the next table would share a storage id, and so metadata, with one of
-- them.  Restored tables draw fresh ids as their rows are loaded, and
-- pg_upgrade carries the sequence's value (test/t/080_pg_upgrade.pl).

CREATE TABLE engine.stripe (
	storage_id bigint NOT NULL,
	stripe_num bigint NOT NULL,
	first_block bigint NOT NULL,
	data_length bigint NOT NULL,
	row_count bigint NOT NULL,
	first_row_number bigint NOT NULL,
	last_row_number bigint NOT NULL,
	row_runs bigint[] NOT NULL,			-- (first row number, count) pairs
	command_ids bigint[] NOT NULL,		-- (command id, rows so far) pairs
	chunk_group_count int NOT NULL,
	chunk_group_row_limit int NOT NULL,
	column_count int NOT NULL,
	-- per column (index = attribute number): the stripe's zone map
	attr_min bytea[] NOT NULL,			-- NULL element: no bound
	attr_max bytea[] NOT NULL,
	attr_null_count bigint[] NOT NULL,
	-- the type and collation each column's bounds were computed with: an
	-- ALTER COLUMN TYPE that does not rewrite (binary-coercible type, new
	-- collation) must not have them read in another ordering
	attr_type oid[] NOT NULL,
	attr_collation oid[] NOT NULL,
	-- per column: where in the stripe's data its compression dictionary
	-- starts, or -1 when its frames are compressed without one
	attr_dict_offset bigint[] NOT NULL,
	sorted_by text,						-- the orderby its rows are sorted by
	PRIMARY KEY (storage_id, stripe_num)
);

CREATE TABLE engine.chunk_group (
	storage_id bigint NOT NULL,
	stripe_num bigint NOT NULL,
	chunk_group_num int NOT NULL,
	row_count int NOT NULL,
	PRIMARY KEY (storage_id, stripe_num, chunk_group_num)
);

CREATE TABLE engine.chunk (
	storage_id bigint NOT NULL,
	stripe_num bigint NOT NULL,
	chunk_group_num int NOT NULL,
	attr_num int NOT NULL,
	codec smallint NOT NULL,
	stored_offset bigint NOT NULL,		-- within the stripe's stream
	stored_length int NOT NULL,
	raw_length int NOT NULL,
	value_count int NOT NULL,
	null_count int NOT NULL,
	checksum int NOT NULL,				-- CRC-32C of the stored bytes
	min_value bytea,					-- NULL: no ordering, or all NULL
	max_value bytea,
	encoding smallint NOT NULL,			-- 0 plain, 1 delta (src/codec/delta.h)
	PRIMARY KEY (storage_id, stripe_num, chunk_group_num, attr_num)
);

GRANT SELECT ON engine.stripe, engine.chunk_group, engine.chunk TO PUBLIC;

CREATE FUNCTION engine.storage_id(regclass)
	RETURNS bigint
	LANGUAGE C STRICT
	AS 'MODULE_PATHNAME', 'engine_storage_id';
COMMENT ON FUNCTION engine.storage_id(regclass)
	IS 'storage id of a colcompress or rowcompress table (NULL while it has no data)';

CREATE VIEW engine.colcompress_stripes AS
	SELECT c.oid::regclass AS relation,
		   s.stripe_num,
		   s.row_count,
		   s.data_length,
		   s.chunk_group_count,
		   s.first_row_number,
		   s.last_row_number
	  FROM pg_class c
	  JOIN pg_am a ON a.oid = c.relam AND a.amname = 'colcompress'
	  JOIN engine.stripe s ON s.storage_id = engine.storage_id(c.oid)
	 WHERE pg_has_role(c.relowner, 'USAGE') OR has_table_privilege(c.oid, 'SELECT');
GRANT SELECT ON engine.colcompress_stripes TO PUBLIC;

CREATE FUNCTION engine.colcompress_verify(regclass)
	RETURNS TABLE (stripe_num bigint, attr_num int, problem text)
	LANGUAGE C STRICT
	AS 'MODULE_PATHNAME', 'colcompress_verify';
COMMENT ON FUNCTION engine.colcompress_verify(regclass)
	IS 'checks a colcompress table''s metadata against its storage; returns one row per problem';

-- ==== options (src/catalog/options.c) ====
--
-- Per-table options live in pg_class.reloptions (ALTER TABLE ... SET (...)
-- and CREATE TABLE ... WITH (...) write them; see docs/options.md).  These
-- functions are the equivalent of ALTER TABLE ... SET/RESET, NULL or false
-- leaving an option as it is; the views show every table's effective
-- options, defaults filled in by the same C code the access methods use.

CREATE FUNCTION engine.alter_colcompress_table_set(
		table_name regclass,
		chunk_group_row_limit int DEFAULT NULL,
		stripe_row_limit int DEFAULT NULL,
		compression name DEFAULT NULL,
		compression_level int DEFAULT NULL,
		orderby text DEFAULT NULL,
		index_scan bool DEFAULT NULL)
	RETURNS void
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'options_api_alter_colcompress_table_set';
COMMENT ON FUNCTION engine.alter_colcompress_table_set(regclass, int, int, name, int, text, bool)
	IS 'set options of a colcompress table; NULL leaves an option unchanged';

CREATE FUNCTION engine.alter_colcompress_table_reset(
		table_name regclass,
		chunk_group_row_limit bool DEFAULT false,
		stripe_row_limit bool DEFAULT false,
		compression bool DEFAULT false,
		compression_level bool DEFAULT false,
		orderby bool DEFAULT false,
		index_scan bool DEFAULT false)
	RETURNS void
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'options_api_alter_colcompress_table_reset';
COMMENT ON FUNCTION engine.alter_colcompress_table_reset(regclass, bool, bool, bool, bool, bool, bool)
	IS 'reset options of a colcompress table to their defaults';

CREATE FUNCTION engine.alter_rowcompress_table_set(
		table_name regclass,
		batch_size int DEFAULT NULL,
		compression name DEFAULT NULL,
		compression_level int DEFAULT NULL)
	RETURNS void
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'options_api_alter_rowcompress_table_set';
COMMENT ON FUNCTION engine.alter_rowcompress_table_set(regclass, int, name, int)
	IS 'set options of a rowcompress table; NULL leaves an option unchanged';

CREATE FUNCTION engine.alter_rowcompress_table_reset(
		table_name regclass,
		batch_size bool DEFAULT false,
		compression bool DEFAULT false,
		compression_level bool DEFAULT false)
	RETURNS void
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'options_api_alter_rowcompress_table_reset';
COMMENT ON FUNCTION engine.alter_rowcompress_table_reset(regclass, bool, bool, bool)
	IS 'reset options of a rowcompress table to their defaults';

CREATE FUNCTION engine.colcompress_table_options(
		table_name regclass,
		OUT chunk_group_row_limit int,
		OUT stripe_row_limit int,
		OUT compression name,
		OUT compression_level int,
		OUT orderby text,
		OUT index_scan bool)
	RETURNS record
	LANGUAGE C STRICT STABLE
	AS 'MODULE_PATHNAME', 'options_api_colcompress_table_options';
COMMENT ON FUNCTION engine.colcompress_table_options(regclass)
	IS 'effective options of a colcompress table, defaults filled in';

CREATE FUNCTION engine.rowcompress_table_options(
		table_name regclass,
		OUT batch_size int,
		OUT compression name,
		OUT compression_level int)
	RETURNS record
	LANGUAGE C STRICT STABLE
	AS 'MODULE_PATHNAME', 'options_api_rowcompress_table_options';
COMMENT ON FUNCTION engine.rowcompress_table_options(regclass)
	IS 'effective options of a rowcompress table, defaults filled in';

CREATE VIEW engine.colcompress_options AS
	SELECT c.oid::regclass AS relation,
		   o.chunk_group_row_limit,
		   o.stripe_row_limit,
		   o.compression,
		   o.compression_level,
		   o.orderby,
		   o.index_scan
	  FROM pg_catalog.pg_class c
	  JOIN pg_catalog.pg_am am ON am.oid = c.relam
	 CROSS JOIN LATERAL engine.colcompress_table_options(c.oid) o
	 WHERE am.amname = 'colcompress'
	   AND c.relkind IN ('r', 'm');
COMMENT ON VIEW engine.colcompress_options
	IS 'effective options of every colcompress table';
GRANT SELECT ON engine.colcompress_options TO PUBLIC;

CREATE VIEW engine.rowcompress_options AS
	SELECT c.oid::regclass AS relation,
		   o.batch_size,
		   o.compression,
		   o.compression_level
	  FROM pg_catalog.pg_class c
	  JOIN pg_catalog.pg_am am ON am.oid = c.relam
	 CROSS JOIN LATERAL engine.rowcompress_table_options(c.oid) o
	 WHERE am.amname = 'rowcompress'
	   AND c.relkind IN ('r', 'm');
COMMENT ON VIEW engine.rowcompress_options
	IS 'effective options of every rowcompress table';
GRANT SELECT ON engine.rowcompress_options TO PUBLIC;

-- The ProcessUtility hook sees DDL once the library is loaded, which
-- shared_preload_libraries does at server start.  Without it, the library
-- is loaded on first use, possibly halfway through the statement that needs
-- the hook; these event triggers (whose call loads it) handle that
-- statement.  ENABLE ALWAYS: also under session_replication_role = replica.
CREATE FUNCTION engine.options_ddl_command_start()
	RETURNS event_trigger
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'options_ddl_command_start';
CREATE FUNCTION engine.options_ddl_command_end()
	RETURNS event_trigger
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'options_ddl_command_end';

CREATE EVENT TRIGGER storage_engine_options_start ON ddl_command_start
	WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO',
				 'CREATE MATERIALIZED VIEW', 'ALTER TABLE',
				 'ALTER MATERIALIZED VIEW')
	EXECUTE FUNCTION engine.options_ddl_command_start();
ALTER EVENT TRIGGER storage_engine_options_start ENABLE ALWAYS;
CREATE EVENT TRIGGER storage_engine_options_end ON ddl_command_end
	WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO',
				 'CREATE MATERIALIZED VIEW', 'ALTER TABLE',
				 'ALTER MATERIALIZED VIEW')
	EXECUTE FUNCTION engine.options_ddl_command_end();
ALTER EVENT TRIGGER storage_engine_options_end ENABLE ALWAYS;

-- ==== maintenance (src/colstore/col_merge.c) ====

CREATE FUNCTION engine.colcompress_merge(table_name regclass)
	RETURNS void
	LANGUAGE C STRICT
	AS 'MODULE_PATHNAME', 'colcompress_merge';
COMMENT ON FUNCTION engine.colcompress_merge(regclass)
	IS 'rewrites a colcompress table globally sorted by its orderby option (MVCC-safe, owner only)';

-- ==== repack (src/sql_api/repack_api.c) ====
-- Procedures: with CALL outside a transaction block, every stripe or batch
-- is rewritten in a transaction of its own.

CREATE PROCEDURE engine.colcompress_repack(table_name regclass,
										   min_fill_ratio float8 DEFAULT 0.9)
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'colcompress_repack';
COMMENT ON PROCEDURE engine.colcompress_repack(regclass, float8)
	IS 'rewrites the stripes whose live rows are at most min_fill_ratio of their rows, one per transaction or small ones together (MVCC-safe, owner only)';

-- ==== rowcompress metadata (src/catalog/batch_meta.c) ====
--
-- One row per batch of a rowcompress relation, keyed by the storage id of
-- the relation's metapage like the colcompress tables above, and written
-- by the transaction that wrote the batch.  The batch layout is in
-- docs/rowcompress-format.md.

CREATE TABLE engine.batch (
	storage_id bigint NOT NULL,
	batch_num bigint NOT NULL,
	first_block bigint NOT NULL,
	data_length bigint NOT NULL,		-- stored bytes: frames and dictionary
	raw_length bigint NOT NULL,			-- bytes after decompression
	row_count bigint NOT NULL,
	first_row_number bigint NOT NULL,
	last_row_number bigint NOT NULL,
	row_runs bigint[] NOT NULL,			-- (first row number, count) pairs
	command_ids bigint[] NOT NULL,		-- (command id, rows so far) pairs
	column_count int NOT NULL,			-- attributes of the stored rows
	codec smallint NOT NULL,			-- 0 none, 1 pglz, 2 lz4, 3 zstd, 4 deflate
	checksum int NOT NULL,				-- CRC-32C of the stored bytes
	-- per column (index = attribute number): the batch's zone map
	attr_min bytea[] NOT NULL,			-- NULL element: no bound
	attr_max bytea[] NOT NULL,
	attr_null_count bigint[] NOT NULL,
	attr_type oid[] NOT NULL,			-- as in engine.stripe
	attr_collation oid[] NOT NULL,
	-- where in the batch's stream its compression dictionary starts (after
	-- the frames), or -1 when its frames are compressed without one
	dict_offset bigint NOT NULL,
	PRIMARY KEY (storage_id, batch_num)
);

GRANT SELECT ON engine.batch TO PUBLIC;

CREATE VIEW engine.rowcompress_batches AS
	SELECT c.oid::regclass AS relation,
		   b.batch_num,
		   b.row_count,
		   b.data_length,
		   b.raw_length,
		   (CASE b.codec WHEN 0 THEN 'none' WHEN 1 THEN 'pglz' WHEN 2 THEN 'lz4'
						 WHEN 3 THEN 'zstd' WHEN 4 THEN 'deflate' END)::text AS codec,
		   round(b.raw_length::numeric / greatest(b.data_length, 1), 2) AS compression_ratio,
		   b.first_row_number,
		   b.last_row_number
	  FROM pg_class c
	  JOIN pg_am a ON a.oid = c.relam AND a.amname = 'rowcompress'
	  JOIN engine.batch b ON b.storage_id = engine.storage_id(c.oid)
	 WHERE pg_has_role(c.relowner, 'USAGE') OR has_table_privilege(c.oid, 'SELECT');
GRANT SELECT ON engine.rowcompress_batches TO PUBLIC;

CREATE FUNCTION engine.rowcompress_verify(regclass)
	RETURNS TABLE (batch_num bigint, problem text)
	LANGUAGE C STRICT
	AS 'MODULE_PATHNAME', 'rowcompress_verify';
COMMENT ON FUNCTION engine.rowcompress_verify(regclass)
	IS 'checks a rowcompress table''s metadata against its storage and every row of every batch; returns one row per problem';

CREATE PROCEDURE engine.rowcompress_repack(table_name regclass)
	LANGUAGE C
	AS 'MODULE_PATHNAME', 'rowcompress_repack';
COMMENT ON PROCEDURE engine.rowcompress_repack(regclass)
	IS 'rewrites every batch with the table''s current options and without its deleted rows, one per transaction or small ones together (MVCC-safe, owner only)';

-- ==== row marks of both access methods (src/catalog/row_marks.c) ====
--
-- Rows of colcompress and rowcompress tables are never changed in place.
-- A row that is locked, deleted or updated gets a mark here, and the mark
-- carries PostgreSQL's own row-level concurrency: the first version of a
-- mark (successor IS NULL) is the row's lock target, written frozen so
-- that every snapshot sees it; SELECT ... FOR UPDATE/SHARE locks it with
-- heap_lock_tuple, and DELETE/UPDATE replace it with heap_update by a
-- tombstone (successor 0: deleted; otherwise the row number of the new
-- version, which is how a waiting UPDATE follows the row).  A snapshot
-- sees the row exactly when it sees the first version.  An UPDATE that
-- goes through FOR KEY SHARE lockers (foreign key checks) creates the new
-- version's first mark at once, with predecessor = the old row, so that a
-- DELETE of the new version finds the old one's lockers and waits for them.
CREATE TABLE engine.row_mark (
	storage_id bigint NOT NULL,
	row_number bigint NOT NULL,
	successor bigint,
	predecessor bigint
);
CREATE INDEX row_mark_key ON engine.row_mark (storage_id, row_number);
GRANT SELECT ON engine.row_mark TO PUBLIC;

-- ==== free space of both access methods (src/catalog/free_space.c) ====
--
-- A stream (stripe or batch) that a rewrite replaces stays readable for
-- the snapshots that still see it: the rewrite records it here, in the
-- transaction that deletes its metadata.  VACUUM turns the retired streams
-- no snapshot can see any more into free extents (and removes their rows'
-- index entries and marks); writers take a free extent before they extend
-- the relation, and VACUUM truncates free blocks at its end.
CREATE TABLE engine.retired_stream (
	storage_id bigint NOT NULL,
	stream_num bigint NOT NULL,
	first_block bigint NOT NULL,
	block_count bigint NOT NULL,
	first_row_number bigint NOT NULL,
	last_row_number bigint NOT NULL,
	row_runs bigint[] NOT NULL,			-- as engine.stripe.row_runs
	PRIMARY KEY (storage_id, stream_num)
);
CREATE TABLE engine.free_extent (
	storage_id bigint NOT NULL,
	first_block bigint NOT NULL,
	block_count bigint NOT NULL,
	PRIMARY KEY (storage_id, first_block)
);
GRANT SELECT ON engine.retired_stream, engine.free_extent TO PUBLIC;

-- Which stream (a colcompress stripe or a rowcompress batch) holds each run
-- of consecutive row numbers, written and deleted with the stream's own
-- metadata row (src/catalog/stream_runs.c).  Row numbers are never given
-- twice, so runs never overlap and the run with the greatest first row
-- number at or below a row's number is the only one that can hold it: a
-- fetch by TID finds its stream in an index instead of reading every
-- stream's metadata.
CREATE TABLE engine.row_run (
	storage_id bigint NOT NULL,
	stream_num bigint NOT NULL,
	first_row_number bigint NOT NULL,
	row_count bigint NOT NULL,
	PRIMARY KEY (storage_id, stream_num, first_row_number)
);
CREATE INDEX row_run_lookup ON engine.row_run (storage_id, first_row_number);
GRANT SELECT ON engine.row_run TO PUBLIC;

-- Row numbers a transaction has reserved for rows it still buffers, in a
-- table with a unique index (src/catalog/row_reservations.c).  Another
-- session's unique check that meets one of those row numbers in the index
-- learns from this row's inserting transaction whom to wait for, as it
-- would from a heap tuple's xmin.  Rows are removed when their
-- transaction commits.
CREATE TABLE engine.row_reservation (
	storage_id bigint NOT NULL,
	first_row bigint NOT NULL,
	row_count bigint NOT NULL
);
CREATE INDEX row_reservation_key ON engine.row_reservation (storage_id, first_row);
GRANT SELECT ON engine.row_reservation TO PUBLIC;

-- The values of rows a transaction still buffers in a table with an
-- exclusion constraint (src/catalog/row_reservations.c): another session's
-- check compares them (a lossy index rechecks the row), and the inserting
-- transaction's own check finds them without writing its buffer.  Rows
-- are removed when their transaction commits.  Not readable by PUBLIC:
-- they hold table data.
CREATE TABLE engine.pending_row (
	storage_id bigint NOT NULL,
	row_number bigint NOT NULL,
	row_image bytea NOT NULL,			-- a heap tuple, see pending_row_record
	PRIMARY KEY (storage_id, row_number)
);
