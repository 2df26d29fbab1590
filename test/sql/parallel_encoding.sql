-- A colcompress stripe's columns are encoded side by side by the writing
-- backend and parallel workers (storage_engine.enable_parallel_encoding,
-- stripes of storage_engine.min_parallel_encoding_size or more, up to
-- max_parallel_maintenance_workers workers).  The stripes come out byte
-- for byte the same as encoded by the backend alone: compared here chunk
-- by chunk, and the rows with heap's.

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

-- the same rows written with workers and without, in every stripe
SET storage_engine.min_parallel_encoding_size = 0;
SET max_parallel_maintenance_workers = 2;
CREATE TABLE pe_par (LIKE pe_heap) USING colcompress
	WITH (stripe_row_limit = 12000, chunk_group_row_limit = 5000);
SET client_min_messages = debug1;
INSERT INTO pe_par SELECT * FROM pe_heap;
RESET client_min_messages;
SET storage_engine.enable_parallel_encoding = off;
CREATE TABLE pe_alone (LIKE pe_heap) USING colcompress
	WITH (stripe_row_limit = 12000, chunk_group_row_limit = 5000);
INSERT INTO pe_alone SELECT * FROM pe_heap;
RESET storage_engine.enable_parallel_encoding;

-- every chunk and stripe the same: stored bytes (checksum, place, length),
-- encoding, statistics, dictionaries
CREATE FUNCTION pe_differing(a regclass, b regclass) RETURNS bigint LANGUAGE sql AS $$
	SELECT (SELECT count(*)
			  FROM (SELECT * FROM engine.chunk WHERE storage_id = engine.storage_id(a)) x
			  FULL JOIN (SELECT * FROM engine.chunk WHERE storage_id = engine.storage_id(b)) y
			  USING (stripe_num, chunk_group_num, attr_num)
			 WHERE row(x.codec, x.encoding, x.stored_offset, x.stored_length, x.raw_length,
					   x.value_count, x.null_count, x.checksum, x.min_value, x.max_value)
				   IS DISTINCT FROM
				   row(y.codec, y.encoding, y.stored_offset, y.stored_length, y.raw_length,
					   y.value_count, y.null_count, y.checksum, y.min_value, y.max_value)) +
		   (SELECT count(*)
			  FROM (SELECT * FROM engine.stripe WHERE storage_id = engine.storage_id(a)) x
			  FULL JOIN (SELECT * FROM engine.stripe WHERE storage_id = engine.storage_id(b)) y
			  USING (stripe_num)
			 WHERE row(x.data_length, x.row_count, x.attr_min, x.attr_max, x.attr_null_count,
					   x.attr_dict_offset)
				   IS DISTINCT FROM
				   row(y.data_length, y.row_count, y.attr_min, y.attr_max, y.attr_null_count,
					   y.attr_dict_offset))
$$;
SELECT (SELECT count(*) FROM engine.stripe WHERE storage_id = engine.storage_id('pe_par')) AS stripes,
	   pe_differing('pe_par', 'pe_alone') AS differing;
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

RESET storage_engine.min_parallel_encoding_size;
DROP TABLE pe_heap, pe_par, pe_alone, pe_txn, pe_temp, pe_none;
DROP FUNCTION pe_differing(regclass, regclass);
