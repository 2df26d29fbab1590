-- Every kind of built-in type round-trips exactly through colcompress,
-- including NULLs and values heap would TOAST.  Each table is compared
-- with a heap copy of the same rows through the text form of whole rows.

CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TYPE pair AS (x int, y text);
CREATE DOMAIN posint AS int CHECK (VALUE > 0);

CREATE TABLE types_heap (
	i2 smallint, i4 int, i8 bigint, f4 real, f8 double precision,
	num numeric, num_t numeric(15,4), b bool, ch "char", c2 char(2), vc varchar(10),
	t text, by bytea, d date, tm time, ttz timetz, ts timestamp,
	tstz timestamptz, iv interval, u uuid, j json, jb jsonb, ta text[],
	ia int[], e mood, comp pair, dom posint, inet_v inet, cidr_v cidr,
	mac macaddr, pt point, bx box, rng int4range, nm name, oid_v oid,
	tsv tsvector, bits bit varying(16), money_v money
);

INSERT INTO types_heap
SELECT g::smallint, g, g * 1000000000::bigint, g / 3.0, g / 7.0,
	   g * 1.000001, (g * 1.25)::numeric(15,4), g % 2 = 0, chr(65 + g % 26)::"char",
	   chr(65 + g % 26) || 'x', 'v' || g, repeat('text ', g % 20),
	   decode(md5(g::text), 'hex'), '2024-01-01'::date + g, '12:00'::time + g * interval '1 s',
	   '12:00+02'::timetz, '2024-01-01'::timestamp + g * interval '1 h',
	   '2024-01-01 00:00+00'::timestamptz + g * interval '1 min', g * interval '1 day 1 s',
	   md5(g::text)::uuid, json_build_object('g', g), jsonb_build_object('g', g, 'arr', jsonb_build_array(g, g + 1)),
	   ARRAY['a' || g, NULL, 'c'], ARRAY[g, g + 1], (ARRAY['sad', 'ok', 'happy'])[g % 3 + 1]::mood,
	   ROW(g, 'p' || g)::pair, (g + 1)::posint, ('10.0.' || (g % 256) || '.1')::inet, '10.1.0.0/16'::cidr,
	   '08:00:2b:01:02:03'::macaddr, point(g, -g), box(point(0, 0), point(g, g)), int4range(g, g + 10),
	   ('name' || g)::name, g::oid, to_tsvector('english', 'the quick brown fox ' || g),
	   (g % 65536)::bit(16)::bit varying(16), (g * 1.5)::money
  FROM generate_series(1, 3000) g;

-- a row of NULLs, and rows with some NULLs
INSERT INTO types_heap (i4) VALUES (NULL);
INSERT INTO types_heap (i4, t, jb) VALUES (-1, NULL, 'null'::jsonb), (-2, '', '{}');

-- wide values that heap stores out of line
INSERT INTO types_heap (i4, t, jb, ta, by)
SELECT -100 - g, repeat(md5(g::text), 32768), -- 1 MB
	   (SELECT jsonb_object_agg('k' || k, repeat('v', 100)) FROM generate_series(1, 5000) k),
	   array_fill('element'::text, ARRAY[20000]), decode(repeat('ab', 300000), 'hex')
  FROM generate_series(1, 3) g;

CREATE TABLE types_col (LIKE types_heap) USING colcompress;
INSERT INTO types_col SELECT * FROM types_heap;

SELECT count(*) FROM types_col;
SELECT (SELECT count(*) FROM (SELECT t::text FROM types_heap t EXCEPT ALL SELECT t::text FROM types_col t) d) AS missing,
	   (SELECT count(*) FROM (SELECT t::text FROM types_col t EXCEPT ALL SELECT t::text FROM types_heap t) d) AS extra;

-- the wide values really are whole
SELECT i4, length(t), length(jb::text), array_length(ta, 1), length(by)
  FROM types_col WHERE i4 <= -100 ORDER BY i4;

-- two values of 70 MB make a stripe of their own: the writer's samples for
-- a compression dictionary keep a few kB of each, not each value sixteen
-- times over (which passed the 1 GB a buffer may hold)
CREATE TABLE huge_values (id int, t text) USING colcompress;
INSERT INTO huge_values
SELECT g, repeat(md5(g::text), 70 * 1024 * 1024 / 32) FROM generate_series(1, 2) g;
SELECT id, length(t), t = repeat(md5(id::text), 70 * 1024 * 1024 / 32) AS same
  FROM huge_values ORDER BY id;
DROP TABLE huge_values;

-- typed operations on the read values
SELECT sum(i8), avg(f8)::numeric(20,6), sum(num_t), count(DISTINCT u), max(tstz), min(d),
	   sum((jb->>'g')::int), count(*) FILTER (WHERE b), max(e), sum((comp).x)
  FROM types_col;

-- COPY out and back in gives the same rows
COPY types_col TO '/tmp/storage_engine_types_copy.data';
CREATE TABLE types_col2 (LIKE types_heap) USING colcompress;
COPY types_col2 FROM '/tmp/storage_engine_types_copy.data';
SELECT (SELECT count(*) FROM (SELECT t::text FROM types_col2 t EXCEPT ALL SELECT t::text FROM types_heap t) d) AS differ,
	   (SELECT count(*) FROM types_col2) = (SELECT count(*) FROM types_heap) AS same_count;

-- a table whose data is all NULL, and an empty table
CREATE TABLE all_null (a int, b text) USING colcompress;
INSERT INTO all_null SELECT NULL, NULL FROM generate_series(1, 100);
SELECT count(*), count(a), count(b) FROM all_null;
CREATE TABLE empty_col (a int) USING colcompress;
SELECT count(*), max(a) FROM empty_col;

-- a table with no columns
CREATE TABLE no_cols () USING colcompress;
INSERT INTO no_cols DEFAULT VALUES;
INSERT INTO no_cols SELECT FROM generate_series(1, 9);
SELECT count(*) FROM no_cols;

SELECT count(*) AS problems FROM engine.colcompress_verify('types_col');

DROP TABLE types_heap, types_col, types_col2, all_null, empty_col, no_cols;
DROP TYPE pair;
DROP TYPE mood;
DROP DOMAIN posint;
