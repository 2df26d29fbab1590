-- Packed integers: a colcompress chunk of an integer-like column (int2,
-- int4, int8, oid, date, time, timestamp, timestamptz) is written, frame by
-- frame, as a line (base, step) and a fixed number of bits per row
-- (engine.chunk.encoding 3); a numeric chunk whose values have one display
-- scale and fit 64 bits scaled, as packed decimals (encoding 4); strings
-- of one length and few symbols, as packed characters (encoding 5, at the
-- end).  Rows read back the same through scans,
-- filters, aggregates and fetches by TID: sequences (0 bits), steps down,
-- counters that wrap, random values, the types' extremes (full width),
-- NULLs, frames of NULLs only, and constant columns.

CREATE TABLE pk_heap (id int8, up int4, down int8, wrap int2, rnd int4,
					  ext int8, ext2 int2, nul int4, allnull int8, const int4,
					  d date, ts timestamp, tz timestamptz, t time, o oid);
INSERT INTO pk_heap
SELECT g,
	   g * 3,
	   1000000000000 - g * 7919,
	   (g % 300 - 150)::int2,
	   hashint4(g) & 65535,
	   CASE g % 4 WHEN 0 THEN 9223372036854775807 WHEN 1 THEN -9223372036854775808
				  WHEN 2 THEN 0 ELSE -1 END,
	   CASE WHEN g % 2 = 0 THEN 32767 ELSE -32768 END,
	   CASE WHEN g % 5 = 0 THEN NULL ELSE g END,
	   NULL,
	   42,
	   date '2024-01-01' + g / 2880,
	   timestamp '2024-01-01' + g * interval '30 seconds',
	   timestamptz '2024-01-01 00:00+00' + g * interval '1 second' + (g % 3) * interval '1 microsecond',
	   time '00:00' + (g % 86400) * interval '1 second',
	   (g * 13)::oid
  FROM generate_series(1, 25000) g;
CREATE TABLE pk_col (LIKE pk_heap) USING colcompress
	WITH (chunk_group_row_limit = 10000);
INSERT INTO pk_col SELECT * FROM pk_heap;

-- every integer-like column is packed, but the counter that wraps every
-- 300 rows: its differences repeat, which the codec squeezes to nearly
-- nothing (delta, 1)
SELECT a.attname, array_agg(DISTINCT c.encoding) AS encodings
  FROM engine.chunk c
  JOIN pg_attribute a ON a.attrelid = 'pk_col'::regclass AND a.attnum = c.attr_num
 WHERE c.storage_id = engine.storage_id('pk_col')
 GROUP BY a.attname, a.attnum ORDER BY a.attnum;

-- a sequence takes its frames' headers only: a few bytes per 1,024 rows;
-- random values of a 16-bit range 16 bits a row
SELECT a.attname, sum(c.stored_length) < 25000 / 1024 * 100 AS tiny,
	   sum(c.raw_length) BETWEEN 25000 * 16 / 8 AND 25000 * 16 / 8 + 1000 AS sixteen_bits
  FROM engine.chunk c
  JOIN pg_attribute a ON a.attrelid = 'pk_col'::regclass AND a.attnum = c.attr_num
 WHERE c.storage_id = engine.storage_id('pk_col')
   AND a.attname IN ('id', 'up', 'down', 'ts', 'const', 'rnd')
 GROUP BY a.attname, a.attnum ORDER BY a.attnum;

-- does pk_col hold pk_heap's rows?  all through a scan, or some through the
-- plan the settings allow (test/sql/common/compare.psql, from test/sql)
\getenv abs_srcdir PG_ABS_SRCDIR
\cd :abs_srcdir/sql
\i common/compare.psql
CREATE FUNCTION pk_same(filter text DEFAULT 'true') RETURNS text LANGUAGE sql AS $$
	SELECT same_as_heap('SELECT * FROM pk_col WHERE ' || filter, 'pk_col', 'pk_heap')
$$;
SELECT pk_same() AS scan_equal;
SELECT pk_same('wrap BETWEEN -3 AND 3 AND rnd > 30000') AS filter_equal;
SELECT pk_same('ext < 0 AND ext2 > 0') AS extremes_equal;
SELECT pk_same('nul IS NULL OR d = ''2024-01-05''') AS nulls_equal;

-- aggregates over packed values, vectorized and not
CREATE FUNCTION pk_agg(q text) RETURNS text LANGUAGE sql AS $$
	SELECT same_as_heap(format(q, 'pk_col'), 'pk_col', 'pk_heap')
$$;
SELECT pk_agg('SELECT row(sum(id), min(down), max(down), sum(wrap), avg(rnd), min(ext), max(ext),
				  count(nul), sum(allnull), min(ts), max(tz), min(t), max(o))::text FROM %I')
	AS aggregates_equal;
SELECT pk_agg('SELECT string_agg(x::text, '','' ORDER BY x)
				 FROM (SELECT row(d, count(*), sum(rnd), min(ts)) x FROM %I GROUP BY d) s')
	AS grouped_equal;
SET storage_engine.enable_vectorized_aggregation = off;
SELECT pk_agg('SELECT row(sum(id), min(down), max(down), sum(wrap), avg(rnd))::text FROM %I')
	AS plain_aggregates_equal;
RESET storage_engine.enable_vectorized_aggregation;

CREATE INDEX ON pk_col (id);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM pk_col WHERE id = ANY ('{1,2}');
SELECT pk_same('id = ANY (ARRAY(SELECT g * 37 % 25000 + 1 FROM generate_series(1, 400) g))')
	AS index_fetch_equal;
-- rows of one frame asked out of order and again
SELECT pk_same('id IN (5, 3, 4, 1000, 999, 5, 24999, 25000)') AS repeated_fetch_equal;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SELECT pk_same('id BETWEEN 500 AND 2600 AND id % 3 = 0') AS bitmap_fetch_equal;
RESET enable_indexscan;
RESET enable_seqscan;

-- UPDATE and DELETE read and rewrite packed rows
UPDATE pk_col SET rnd = -rnd, ext = NULL WHERE id % 100 = 7;
UPDATE pk_heap SET rnd = -rnd, ext = NULL WHERE id % 100 = 7;
DELETE FROM pk_col WHERE id % 100 = 8;
DELETE FROM pk_heap WHERE id % 100 = 8;
SELECT pk_same() AS after_dml_equal;
SELECT count(*) AS problems FROM engine.colcompress_verify('pk_col');

-- switched off, new chunks are written as differences and read the same
SET storage_engine.enable_packed_encoding = off;
INSERT INTO pk_col SELECT id + 25000, up, down, wrap, rnd, ext, ext2, nul, allnull,
						  const, d, ts, tz, t, o
  FROM pk_heap WHERE id <= 10000;
INSERT INTO pk_heap SELECT id + 25000, up, down, wrap, rnd, ext, ext2, nul, allnull,
						   const, d, ts, tz, t, o
  FROM pk_heap WHERE id <= 10000;
RESET storage_engine.enable_packed_encoding;
SELECT s.stripe_num, array_agg(DISTINCT c.encoding ORDER BY c.encoding) AS encodings
  FROM engine.chunk c JOIN engine.stripe s USING (storage_id, stripe_num)
 WHERE c.storage_id = engine.storage_id('pk_col')
   AND c.attr_num = 1
 GROUP BY s.stripe_num ORDER BY s.stripe_num;
SELECT pk_same() AS mixed_equal;

DROP TABLE pk_col, pk_heap;

-- Packed decimals: numerics of one display scale are packed as scaled
-- integers and written back byte for byte; chunks holding other values
-- (mixed scales, NaN, infinities, beyond 64 bits) stay plain (0), the
-- first chunk group deciding for the stripe, later ones checked each.
-- Few distinct values may rather keep a dictionary (2).
CREATE TABLE pk_heap (id int8, money numeric(15,4), cents numeric(10,2),
					  mixed numeric, nan numeric(12,3), inf numeric, big numeric,
					  few numeric(6,2), zero numeric(8,1), nul numeric(9,5));
INSERT INTO pk_heap
SELECT g,
	   round(((hashint4(g) & 1048575) - 524288) / 7.0, 4),
	   (g % 20000 - 10000) / 100.0,
	   (g % 7) / 10.0 ^ (g % 4),
	   CASE WHEN g = 15000 THEN 'NaN'::numeric ELSE g / 1000.0 END,
	   CASE WHEN g = 3 THEN 'Infinity'::numeric ELSE g END,
	   g * 1e20,
	   (ARRAY[9.99, 19.99, 0.5])[g % 3 + 1],
	   0,
	   CASE WHEN g % 3 = 0 THEN NULL ELSE (g % 1000) / 100000.0 END
  FROM generate_series(1, 25000) g;
CREATE TABLE pk_col (LIKE pk_heap) USING colcompress
	WITH (chunk_group_row_limit = 10000);
INSERT INTO pk_col SELECT * FROM pk_heap;
SELECT a.attname, array_agg(c.encoding ORDER BY c.chunk_group_num) AS encodings
  FROM engine.chunk c
  JOIN pg_attribute a ON a.attrelid = 'pk_col'::regclass AND a.attnum = c.attr_num
 WHERE c.storage_id = engine.storage_id('pk_col')
 GROUP BY a.attname, a.attnum ORDER BY a.attnum;
-- random amounts x 10^4 span 31 bits: under 4 bytes a row, where plain
-- numerics take 8.5 and zstd leaves 4.5
SELECT sum(c.raw_length) BETWEEN 25000 * 31 / 8 AND 25000 * 31 / 8 + 1000 AS thirty_one_bits
  FROM engine.chunk c
 WHERE c.storage_id = engine.storage_id('pk_col') AND c.attr_num = 2;
SELECT pk_same() AS decimals_equal;
SELECT pk_same('money > 1000.5 AND cents < 0') AS decimal_filter_equal;
SELECT pk_agg('SELECT row(sum(money), avg(money), min(money), max(money), sum(cents),
				  avg(nul), min(nul), max(few), sum(zero), sum(nan))::text FROM %I')
	AS decimal_aggregates_equal;
SELECT pk_agg('SELECT string_agg(x::text, '','' ORDER BY x)
				 FROM (SELECT row(few, count(*), sum(money), max(cents)) x FROM %I GROUP BY few) s')
	AS decimal_grouped_equal;
SET storage_engine.enable_vectorized_aggregation = off;
SELECT pk_agg('SELECT row(sum(money), avg(money), min(money), max(money), sum(cents))::text FROM %I')
	AS plain_decimal_aggregates_equal;
RESET storage_engine.enable_vectorized_aggregation;
-- a value written back is the value stored: same text, same bytes
SELECT count(*) AS differing FROM pk_col c JOIN pk_heap h USING (id)
 WHERE c.money::text <> h.money::text OR pg_column_size(c.money) > pg_column_size(h.money)
	OR numeric_send(c.nul) IS DISTINCT FROM numeric_send(h.nul);
CREATE INDEX ON pk_col (id);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT pk_same('id = ANY (ARRAY(SELECT g * 37 % 25000 + 1 FROM generate_series(1, 400) g))')
	AS decimal_index_fetch_equal;
SELECT money, cents, nul FROM pk_col WHERE id IN (3, 2, 1, 9999, 10001) ORDER BY id;
RESET enable_bitmapscan;
RESET enable_seqscan;
UPDATE pk_col SET money = -money, nul = NULL WHERE id % 100 = 7;
UPDATE pk_heap SET money = -money, nul = NULL WHERE id % 100 = 7;
SELECT pk_same() AS decimals_after_update_equal;
SELECT count(*) AS problems FROM engine.colcompress_verify('pk_col');

DROP TABLE pk_col, pk_heap;

-- Packed characters: strings of one length spelled with at most 16
-- distinct bytes (hex digests, random digit strings) take a few bits a
-- character (encoding 5) and come back byte for byte; other lengths or a
-- seventeenth symbol (uuids as text: hex and '-'; a bpchar's padding
-- beside 16 others) stay plain, and so does a later chunk group with one
-- string of another length (late: 5, 0, 5).
CREATE TABLE pk_heap (id int8, hash text, digits varchar(12), hexnul text,
					  uuidtext text, ragged text, seq text, code bpchar(6),
					  late text);
INSERT INTO pk_heap
SELECT g, md5(g::text),
	   lpad((hashint4(g) & 1048575)::text, 12, '0'),
	   CASE WHEN g % 4 = 0 THEN NULL ELSE left(md5((g * 7)::text), 20) END,
	   md5((g * 3)::text)::uuid::text,
	   md5(g::text) || repeat('a', g % 2),
	   lpad(g::text, 10, '0'),
	   upper(left(md5((g % 977)::text), 3)) || (g % 7),
	   CASE WHEN g = 15000 THEN 'short' ELSE md5(g::text) END
  FROM generate_series(1, 25000) g;
CREATE TABLE pk_col (LIKE pk_heap) USING colcompress
	WITH (chunk_group_row_limit = 10000);
INSERT INTO pk_col SELECT * FROM pk_heap;
SELECT a.attname, array_agg(c.encoding ORDER BY c.chunk_group_num) AS encodings
  FROM engine.chunk c
  JOIN pg_attribute a ON a.attrelid = 'pk_col'::regclass AND a.attnum = c.attr_num
 WHERE c.storage_id = engine.storage_id('pk_col')
 GROUP BY a.attname, a.attnum ORDER BY a.attnum;
-- 32 hex digits: 16 bytes a row and the frames' headers
SELECT sum(c.raw_length) BETWEEN 25000 * 16 AND 25000 * 16 + 2000 AS half_a_byte_a_digit
  FROM engine.chunk c
 WHERE c.storage_id = engine.storage_id('pk_col') AND c.attr_num = 2;
SELECT pk_same() AS chars_equal;
SELECT pk_same('hash > ''8'' AND digits LIKE ''0000%'' AND hexnul IS NULL') AS chars_filter_equal;
SELECT pk_agg('SELECT row(count(DISTINCT hash), min(hash), max(digits), count(hexnul),
				  max(hexnul COLLATE "C"), min(code))::text FROM %I') AS chars_aggregates_equal;
CREATE INDEX ON pk_col (id);
CREATE INDEX ON pk_col (hash);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT pk_same('id = ANY (ARRAY(SELECT g * 37 % 25000 + 1 FROM generate_series(1, 400) g))')
	AS chars_index_fetch_equal;
SELECT id, hash, digits, hexnul FROM pk_col WHERE hash = md5('12345');
SELECT id, digits, hexnul FROM pk_col WHERE id IN (4, 3, 10001) ORDER BY id;
RESET enable_bitmapscan;
RESET enable_seqscan;
UPDATE pk_col SET hash = md5(hash), hexnul = NULL WHERE id % 100 = 7;
UPDATE pk_heap SET hash = md5(hash), hexnul = NULL WHERE id % 100 = 7;
SELECT pk_same() AS chars_after_update_equal;
SELECT count(*) AS problems FROM engine.colcompress_verify('pk_col');

DROP TABLE pk_col, pk_heap;

-- Frames stored uncompressed (compression none; on zstd tables, values that
-- do not compress, like random floats): a fetch of one row of such a frame
-- of values of one width reads the frame's header and that row's bytes
-- only; a second row of the frame reads it whole.  Every such layout, with
-- NULLs, rows asked alone, in runs, out of order and twice.
CREATE TABLE pk_heap (id int8, f float8, fnul float4, i int4, inul int2,
					  dec numeric(12, 2), hash text, b bool, v text);
INSERT INTO pk_heap
SELECT g, hashint4(g) / 7.0, CASE WHEN g % 3 = 0 THEN NULL ELSE g / 3.0 END,
	   hashint4(g * 5), CASE WHEN g % 5 = 0 THEN NULL ELSE (g % 3000)::int2 END,
	   (hashint4(g * 11) % 1000000) / 100.0,
	   CASE WHEN g % 7 = 0 THEN NULL ELSE md5(g::text) END,
	   g % 3 = 0, 'v' || g
  FROM generate_series(1, 12000) g;
CREATE TABLE pk_col (LIKE pk_heap) USING colcompress
	WITH (chunk_group_row_limit = 5000, compression = 'none');
INSERT INTO pk_col SELECT * FROM pk_heap;
SELECT a.attname, array_agg(DISTINCT c.encoding) AS encodings,
	   bool_and(c.stored_length >= c.raw_length) AS uncompressed
  FROM engine.chunk c
  JOIN pg_attribute a ON a.attrelid = 'pk_col'::regclass AND a.attnum = c.attr_num
 WHERE c.storage_id = engine.storage_id('pk_col')
 GROUP BY a.attname, a.attnum ORDER BY a.attnum;
CREATE INDEX ON pk_col (id);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT pk_same('id = ANY (ARRAY(SELECT g * 37 % 12000 + 1 FROM generate_series(1, 300) g))')
	AS raw_index_fetch_equal;
SELECT pk_same('id IN (7, 3, 3, 1030, 1029, 1031, 6000, 12000, 11999)')
	AS raw_repeated_fetch_equal;
SELECT id, f, fnul, inul, dec, hash FROM pk_col WHERE id IN (3, 1, 2, 5000, 5001) ORDER BY id;
RESET enable_bitmapscan;
SET enable_indexscan = off;
SELECT pk_same('id BETWEEN 100 AND 4000 AND id % 11 = 0') AS raw_bitmap_fetch_equal;
SELECT pk_same('id BETWEEN 1000 AND 1100') AS raw_bitmap_run_equal;
RESET enable_indexscan;
RESET enable_seqscan;

DROP TABLE pk_col, pk_heap;
DROP FUNCTION pk_same(text);
DROP FUNCTION pk_agg(text);

-- A frame after one that did not compress is tried only when its first
-- bytes compress: values that turn compressible after random ones, in the
-- same chunk and in the next chunk group, are still compressed
CREATE TABLE probe_col (x float8) USING colcompress
	WITH (chunk_group_row_limit = 10000);
INSERT INTO probe_col
SELECT CASE WHEN g <= 3000 THEN hashint4(g) / 7.0 ELSE 1.5 END
  FROM generate_series(1, 20000) g;
SELECT chunk_group_num, stored_length < raw_length / 2 AS compressed
  FROM engine.chunk
 WHERE storage_id = engine.storage_id('probe_col')
 ORDER BY chunk_group_num;
SELECT (SELECT count(*) FROM probe_col) AS rows,
	   count(*) AS differing
  FROM (SELECT x FROM probe_col
		EXCEPT ALL
		SELECT (CASE WHEN g <= 3000 THEN hashint4(g) / 7.0 ELSE 1.5 END)::float8
		  FROM generate_series(1, 20000) g) d;
DROP TABLE probe_col;
\i common/compare_end.psql
