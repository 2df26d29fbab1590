-- VACUUM: the stripes a merge retired become free once no snapshot reads
-- them; writers reuse the free blocks, VACUUM truncates a free tail, and
-- index entries of removed and deleted rows go.  Results are compared
-- with the same statements on heap.
CREATE EXTENSION IF NOT EXISTS pageinspect;
SET client_min_messages = warning;
CREATE TABLE h (id int, k int, pad text);
CREATE TABLE v (id int, k int, pad text) USING colcompress
	WITH (orderby = 'k', stripe_row_limit = 10000, chunk_group_row_limit = 1000);
INSERT INTO h SELECT g, (g * 7919) % 50000, md5(g::text) FROM generate_series(1, 50000) g;
INSERT INTO v SELECT * FROM h;
CREATE INDEX v_id ON v (id);
CREATE INDEX h_id ON h (id);
RESET client_min_messages;

-- index entries that point at rows (leaf items, not high keys)
CREATE FUNCTION index_entries(idx regclass) RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM generate_series(1, pg_relation_size(idx) / 8192 - 1) b,
		LATERAL bt_page_items(idx::text, b::int) i,
		LATERAL unnest(coalesce(i.tids, ARRAY[i.htid])) t
	WHERE (SELECT type FROM bt_page_stats(idx::text, b::int)) = 'l'
	  AND i.htid IS NOT NULL $$;
CREATE FUNCTION same() RETURNS text LANGUAGE sql AS $$
	SELECT CASE WHEN (SELECT count(*) FROM
		((SELECT * FROM h EXCEPT ALL SELECT * FROM v)
		 UNION ALL (SELECT * FROM v EXCEPT ALL SELECT * FROM h)) d) = 0
	THEN 'same' ELSE 'DIFFERENT' END $$;
CREATE FUNCTION same_by_index() RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
	SET LOCAL enable_seqscan = off;
	SET LOCAL storage_engine.enable_custom_scan = off;
	SELECT CASE WHEN (SELECT count(*) FROM
		((SELECT * FROM h WHERE id > 0 EXCEPT ALL SELECT * FROM v WHERE id > 0)
		 UNION ALL (SELECT * FROM v WHERE id > 0 EXCEPT ALL SELECT * FROM h WHERE id > 0)) d) = 0
	THEN 'same' ELSE 'DIFFERENT' END INTO r;
	RETURN r;
END $$;

SELECT pg_relation_size('v') AS loaded \gset
SELECT engine.colcompress_merge('v');
-- the old stripes stay until VACUUM: twice the blocks, twice the entries
SELECT pg_relation_size('v') > 1.8 * :loaded AS doubled;
SELECT count(*) AS retired FROM engine.retired_stream
	WHERE storage_id = engine.storage_id('v');
SELECT index_entries('v_id') AS entries_before_vacuum;
-- VACUUM frees them (their entries go) and moves the merged stripes, which
-- sit at the end, into the freed blocks (new entries, old copies retired)
VACUUM v;
SELECT count(*) AS retired FROM engine.retired_stream
	WHERE storage_id = engine.storage_id('v');
SELECT index_entries('v_id') AS entries_after_vacuum;
SELECT same(), same_by_index();
-- the next VACUUM frees the old copies and truncates the end they held
VACUUM v;
SELECT count(*) AS retired FROM engine.retired_stream
	WHERE storage_id = engine.storage_id('v');
SELECT pg_relation_size('v') <= 1.05 * :loaded AS back_to_size;
SELECT index_entries('v_id') AS entries_after_vacuum;
SELECT same(), same_by_index();
SELECT count(*) AS problems FROM engine.colcompress_verify('v');

-- new rows go into the free blocks (past the end, after the truncation)
SELECT count(*) > 0 AS has_free FROM engine.free_extent
	WHERE storage_id = engine.storage_id('v');
INSERT INTO h SELECT g, (g * 7919) % 50000, md5(g::text) FROM generate_series(50001, 100000) g;
INSERT INTO v SELECT * FROM h WHERE id > 50000;
SELECT pg_relation_size('v') <= 2.1 * :loaded AS not_more_than_twice;
SELECT same(), same_by_index();
SELECT count(*) AS problems FROM engine.colcompress_verify('v');

-- deleted rows lose their index entries once no snapshot sees them (here
-- without rewriting their stripes, see colcompress_repack for that)
DELETE FROM v WHERE id % 10 = 0;
DELETE FROM h WHERE id % 10 = 0;
SELECT index_entries('v_id') AS entries_before;
SET storage_engine.vacuum_rewrite_threshold = 1;
VACUUM v;
RESET storage_engine.vacuum_rewrite_threshold;
SELECT index_entries('v_id') AS entries_after;
SELECT same(), same_by_index();

-- repeated merges do not grow the table (the new values are hex digests
-- like the others: strings of other lengths or symbols would change how
-- the column is encoded, which is not what is measured here)
SELECT pg_relation_size('v') AS before_merge \gset
SELECT engine.colcompress_merge('v');
VACUUM v;
VACUUM v;
INSERT INTO v VALUES (0, 0, md5('zero'));
INSERT INTO h VALUES (0, 0, md5('zero'));
SELECT engine.colcompress_merge('v');
VACUUM v;
VACUUM v;
SELECT pg_relation_size('v') <= 1.05 * :before_merge AS not_grown;
SELECT same(), same_by_index();
SELECT count(*) AS problems FROM engine.colcompress_verify('v');

-- An UPDATE of every tenth row deletes a tenth of each stripe and writes
-- the new versions as a partial stripe at the end.  VACUUM rewrites the
-- stripes and takes the partial one along into full stripes, so that the
-- space it frees can be truncated: the table settles back to its size.
SELECT pg_relation_size('v') AS before_update \gset
UPDATE v SET pad = md5(pad) WHERE id % 10 = 5;
UPDATE h SET pad = md5(pad) WHERE id % 10 = 5;
VACUUM v;
VACUUM v;
VACUUM v;
SELECT pg_relation_size('v') <= 1.05 * :before_update AS settled;
SELECT count(*) FILTER (WHERE row_count < 10000) AS partial_stripes
  FROM engine.colcompress_stripes WHERE relation = 'v'::regclass;
SELECT same(), same_by_index();
SELECT count(*) AS problems FROM engine.colcompress_verify('v');
TRUNCATE v;
SELECT count(*) AS leftover FROM engine.free_extent
	WHERE storage_id NOT IN (SELECT engine.storage_id(oid) FROM pg_class
		WHERE relam = (SELECT oid FROM pg_am WHERE amname = 'colcompress')
		  AND engine.storage_id(oid) IS NOT NULL);

DROP TABLE h, v;

-- Between VACUUMs, an index scan or unique check meeting a row dead to
-- every snapshot marks its index entry dead, as for heap tuples: later
-- scans skip it, and a full leaf page removes such entries instead of
-- splitting.  A row is dead to all once its delete committed before every
-- running snapshot, which a concurrent autoanalyze may delay a moment.
CREATE TABLE lp (id int PRIMARY KEY, v int) USING colcompress;
INSERT INTO lp SELECT g, 0 FROM generate_series(1, 200) g;
DELETE FROM lp WHERE id <= 100;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
DO $$
BEGIN
	FOR i IN 1..100 LOOP
		PERFORM count(*) FROM lp WHERE id > 0;
		EXIT WHEN (SELECT count(*) FROM bt_page_items('lp_pkey', 1) WHERE dead) = 100;
		COMMIT;
		PERFORM pg_sleep(0.05);
	END LOOP;
END $$;
SELECT count(*) FILTER (WHERE dead) AS dead_entries, count(*) AS entries
  FROM bt_page_items('lp_pkey', 1);
SELECT count(*), sum(v) FROM lp WHERE id > 0;
-- 3,000 updates of ten rows, each its own transaction: the unique index
-- keeps one leaf page (3,010 entries would take nine)
TRUNCATE lp;
INSERT INTO lp SELECT g, 0 FROM generate_series(1, 10) g;
DO $$
BEGIN
	FOR i IN 1..3000 LOOP
		UPDATE lp SET v = v + 1 WHERE id = 1 + i % 10;
		COMMIT;
	END LOOP;
END $$;
SELECT pg_relation_size('lp_pkey') / 8192 <= 3 AS index_kept_small;
SELECT count(*), sum(v) FROM lp WHERE id > 0;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*), sum(v) FROM lp;
DROP TABLE lp;
DROP FUNCTION index_entries(regclass), same(), same_by_index();
DROP EXTENSION pageinspect;
