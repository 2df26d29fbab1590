-- A colcompress stripe's columns are encoded with help
-- (storage_engine.enable_parallel_encoding, stripes of
-- storage_engine.min_parallel_encoding_size or more, workers up to
-- max_parallel_maintenance_workers): by the transaction's background
-- encoder while the backend buffers the next stripe
-- (storage_engine.enable_background_encoding), or side by side by the
-- backend and parallel workers.  The stripes come out byte for byte the
-- same as encoded by the backend alone: compared here chunk by chunk, and
-- the rows with heap's.

CREATE TABLE pe_heap (id int, ts timestamptz, d date, n numeric(12,3), f float8,
					  b bool, h text, cat text, js jsonb, tags text[], pad text,
					  maybe int, big text, gone int, u uuid);
INSERT INTO pe_heap
SELECT g, timestamptz '2024-01-01' + g * interval '1 minute', date '2024-01-01' + g / 500,
	   (g % 10007) / 7.0, g * 1.25, g % 3 = 0, md5(g::text), 'cat' || (g % 37),
	   jsonb_build_object('k', g % 11, 'v', md5((g % 97)::text)),
	   ARRAY['t' || (g % 5), 't' || (g % 3)], repeat('x', g % 40),
	   CASE WHEN g % 7 = 0 THEN NULL ELSE g END,
	   -- a value too large for the write buffer's blocks, one TOASTed in heap
	   CASE WHEN g = 1234 THEN repeat(md5('big'), 20000) WHEN g = 99 THEN repeat('y', 5000) END,
	   g, md5((g * 3)::text)::uuid
  FROM generate_series(1, 30000) g;
ALTER TABLE pe_heap DROP COLUMN gone;

-- the same rows written with the background encoder, with parallel
-- workers and without, in every stripe
SET storage_engine.min_parallel_encoding_size = 0;
SET max_parallel_maintenance_workers = 2;
CREATE TABLE pe_par (LIKE pe_heap) USING colcompress
	WITH (stripe_row_limit = 12000, chunk_group_row_limit = 5000);
SET client_min_messages = debug1;
INSERT INTO pe_par SELECT * FROM pe_heap;
RESET client_min_messages;
SET storage_engine.enable_background_encoding = off;
CREATE TABLE pe_workers (LIKE pe_heap) USING colcompress
	WITH (stripe_row_limit = 12000, chunk_group_row_limit = 5000);
SET client_min_messages = debug1;
INSERT INTO pe_workers SELECT * FROM pe_heap;
RESET client_min_messages;
RESET storage_engine.enable_background_encoding;
SET storage_engine.enable_parallel_encoding = off;
CREATE TABLE pe_alone (LIKE pe_heap) USING colcompress
	WITH (stripe_row_limit = 12000, chunk_group_row_limit = 5000);
INSERT INTO pe_alone SELECT * FROM pe_heap;
RESET storage_engine.enable_parallel_encoding;

-- every chunk and stripe the same: stored bytes (checksum, place, length),
-- encoding, statistics, dictionaries; stripes in order (a write rolled
-- back uses up stripe numbers)
CREATE FUNCTION pe_differing(a regclass, b regclass) RETURNS bigint LANGUAGE sql AS $$
	SELECT (SELECT count(*)
			  FROM (SELECT *, dense_rank() OVER (ORDER BY stripe_num) AS s
					  FROM engine.chunk WHERE storage_id = engine.storage_id(a)) x
			  FULL JOIN (SELECT *, dense_rank() OVER (ORDER BY stripe_num) AS s
						   FROM engine.chunk WHERE storage_id = engine.storage_id(b)) y
			  USING (s, chunk_group_num, attr_num)
			 WHERE row(x.codec, x.encoding, x.stored_offset, x.stored_length, x.raw_length,
					   x.value_count, x.null_count, x.checksum, x.min_value, x.max_value)
				   IS DISTINCT FROM
				   row(y.codec, y.encoding, y.stored_offset, y.stored_length, y.raw_length,
					   y.value_count, y.null_count, y.checksum, y.min_value, y.max_value)) +
		   (SELECT count(*)
			  FROM (SELECT *, rank() OVER (ORDER BY stripe_num) AS s
					  FROM engine.stripe WHERE storage_id = engine.storage_id(a)) x
			  FULL JOIN (SELECT *, rank() OVER (ORDER BY stripe_num) AS s
						   FROM engine.stripe WHERE storage_id = engine.storage_id(b)) y
			  USING (s)
			 WHERE row(x.data_length, x.row_count, x.attr_min, x.attr_max, x.attr_null_count,
					   x.attr_dict_offset)
				   IS DISTINCT FROM
				   row(y.data_length, y.row_count, y.attr_min, y.attr_max, y.attr_null_count,
					   y.attr_dict_offset))
$$;
SELECT (SELECT count(*) FROM engine.stripe WHERE storage_id = engine.storage_id('pe_par')) AS stripes,
	   pe_differing('pe_par', 'pe_alone') AS differing,
	   pe_differing('pe_workers', 'pe_alone') AS workers_differing;
SELECT count(*) AS differing_rows
  FROM (SELECT * FROM pe_par EXCEPT ALL SELECT * FROM pe_heap) x;
SELECT length(big), count(*) FROM pe_par WHERE big IS NOT NULL GROUP BY 1 ORDER BY 1;

-- a transaction's last stripe, written at commit, after a savepoint rolled
-- back; a temporary table; no workers allowed
CREATE TABLE pe_txn (LIKE pe_heap) USING colcompress;
BEGIN;
INSERT INTO pe_txn SELECT * FROM pe_heap WHERE id <= 20000;
SAVEPOINT s;
INSERT INTO pe_txn SELECT * FROM pe_heap WHERE id > 20000;
ROLLBACK TO SAVEPOINT s;
INSERT INTO pe_txn SELECT * FROM pe_heap WHERE id > 25000;
COMMIT;
SELECT count(*), count(DISTINCT id), sum(id) FROM pe_txn;
CREATE TEMPORARY TABLE pe_temp (LIKE pe_heap) USING colcompress;
INSERT INTO pe_temp SELECT * FROM pe_heap;
SET max_parallel_maintenance_workers = 0;
CREATE TABLE pe_none (LIKE pe_heap) USING colcompress;
INSERT INTO pe_none SELECT * FROM pe_heap;
RESET max_parallel_maintenance_workers;
SELECT pe_differing('pe_temp', 'pe_none') AS temp_differing;
SELECT count(*) AS differing_rows
  FROM (SELECT * FROM pe_temp EXCEPT ALL SELECT * FROM pe_heap) x;

-- rewrites write stripes too
VACUUM FULL pe_par;
SELECT count(*) AS differing_rows
  FROM (SELECT * FROM pe_par EXCEPT ALL SELECT * FROM pe_heap) x;
SELECT count(*) AS problems FROM engine.colcompress_verify('pe_par');
SELECT count(*) AS problems FROM engine.colcompress_verify('pe_txn');

-- A full stripe handed to the background encoder stays buffered until it
-- is written, so that the transaction meets its rows as before: a unique
-- index's check, ON CONFLICT, a read, a PL/pgSQL block that fails after
-- reading, the encoder's end.
CREATE TABLE pe_bg (LIKE pe_heap) USING colcompress
	WITH (stripe_row_limit = 12000, chunk_group_row_limit = 5000);
CREATE UNIQUE INDEX pe_bg_id ON pe_bg (id);
-- row 77 is in the stripe the encoder has when its duplicate comes
INSERT INTO pe_bg SELECT * FROM pe_heap WHERE id <= 13000
	UNION ALL SELECT * FROM pe_heap WHERE id = 77;
BEGIN;
INSERT INTO pe_bg SELECT * FROM pe_heap WHERE id <= 13000;
INSERT INTO pe_bg SELECT * FROM pe_heap WHERE id IN (77, 13001)
	ON CONFLICT (id) DO UPDATE SET cat = 'again';
SELECT id, cat FROM pe_bg WHERE id IN (76, 77, 13001) ORDER BY id;
INSERT INTO pe_bg SELECT * FROM pe_heap WHERE id > 13001 AND id <= 26000;
COMMIT;
SELECT count(*), count(DISTINCT id), sum(id), count(*) FILTER (WHERE cat = 'again') AS again
  FROM pe_bg;

CREATE TABLE pe_block (LIKE pe_heap) USING colcompress
	WITH (stripe_row_limit = 12000, chunk_group_row_limit = 5000);
CREATE TABLE pe_block_ref (LIKE pe_heap) USING colcompress
	WITH (stripe_row_limit = 12000, chunk_group_row_limit = 5000);
CREATE FUNCTION pe_load(t regclass, lo int, hi int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('INSERT INTO %s SELECT * FROM pe_heap WHERE id BETWEEN %s AND %s', t, lo, hi);
END $$;
BEGIN;
SELECT pe_load('pe_block', 1, 13000);
DO $$
BEGIN
	BEGIN
		-- written in this block's subtransaction, the encoder's stripe too
		PERFORM count(*) FROM pe_block;
		RAISE EXCEPTION 'undone';
	EXCEPTION WHEN raise_exception THEN NULL;
	END;
END $$;
SELECT pe_load('pe_block', 13001, 30000);
COMMIT;
SET storage_engine.enable_background_encoding = off;
BEGIN;
SELECT pe_load('pe_block_ref', 1, 13000);
SELECT pe_load('pe_block_ref', 13001, 30000);
COMMIT;
RESET storage_engine.enable_background_encoding;
SELECT count(*), count(DISTINCT id), sum(id) FROM pe_block;
SELECT pe_differing('pe_block', 'pe_block_ref') AS block_differing;

-- partitions filling their stripes in turn: the encoder takes one stripe
-- at a time, and a partition whose stripe comes while it has one encodes
-- its own
CREATE TABLE pe_parts (k int, LIKE pe_heap) PARTITION BY LIST (k);
CREATE TABLE pe_parts0 PARTITION OF pe_parts FOR VALUES IN (0) USING colcompress
	WITH (stripe_row_limit = 6000, chunk_group_row_limit = 2000);
CREATE TABLE pe_parts1 PARTITION OF pe_parts FOR VALUES IN (1) USING colcompress
	WITH (stripe_row_limit = 6000, chunk_group_row_limit = 2000);
SET client_min_messages = debug1;
INSERT INTO pe_parts SELECT id % 2, * FROM pe_heap;
RESET client_min_messages;
SELECT tableoid::regclass, count(*), sum(id) FROM pe_parts GROUP BY 1 ORDER BY 1;
SELECT count(*) AS differing_rows
  FROM (SELECT id, ts, d, n, f, b, h, cat, js, tags, pad, maybe, big, u FROM pe_parts
		EXCEPT ALL SELECT * FROM pe_heap) x;
SELECT (SELECT count(*) FROM engine.colcompress_verify('pe_parts0')) +
	   (SELECT count(*) FROM engine.colcompress_verify('pe_parts1')) AS problems;

-- the encoder ends in the middle of a transaction: the backend encodes
CREATE TABLE pe_kill (LIKE pe_heap) USING colcompress
	WITH (stripe_row_limit = 12000, chunk_group_row_limit = 5000);
BEGIN;
SELECT pe_load('pe_kill', 1, 13000);
SELECT count(pg_terminate_backend(pid)) AS encoders
  FROM pg_stat_activity
 WHERE application_name = 'storage_engine stripe encoder for PID ' || pg_backend_pid();
DO $$
BEGIN
	LOOP
		PERFORM pg_stat_clear_snapshot();
		EXIT WHEN NOT EXISTS (SELECT FROM pg_stat_activity
							   WHERE application_name = 'storage_engine stripe encoder for PID ' || pg_backend_pid());
		PERFORM pg_sleep(0.01);
	END LOOP;
END $$;
SELECT pe_load('pe_kill', 13001, 30000);
COMMIT;
SELECT pe_differing('pe_kill', 'pe_block_ref') AS kill_differing;
SELECT count(*) AS differing_rows
  FROM (SELECT * FROM pe_kill EXCEPT ALL SELECT * FROM pe_heap) x;
SELECT count(*) AS problems FROM engine.colcompress_verify('pe_kill');

RESET storage_engine.min_parallel_encoding_size;
DROP TABLE pe_heap, pe_par, pe_workers, pe_alone, pe_txn, pe_temp, pe_none,
	pe_bg, pe_block, pe_block_ref, pe_kill, pe_parts;
DROP FUNCTION pe_load(regclass, int, int);
DROP FUNCTION pe_differing(regclass, regclass);
