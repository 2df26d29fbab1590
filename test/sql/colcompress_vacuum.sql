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
VACUUM v;
SELECT count(*) AS retired FROM engine.retired_stream
	WHERE storage_id = engine.storage_id('v');
-- adjacent freed stripes make one extent: every block but the metapage
SELECT count(*) AS free_extents, sum(block_count) + 1 = :loaded / 8192 AS all_old_blocks
	FROM engine.free_extent WHERE storage_id = engine.storage_id('v');
SELECT index_entries('v_id') AS entries_after_vacuum;
SELECT same(), same_by_index();
SELECT count(*) AS problems FROM engine.colcompress_verify('v');

-- new rows go into the free blocks: the table does not grow
SELECT pg_relation_size('v') AS merged \gset
INSERT INTO h SELECT g, (g * 7919) % 50000, md5(g::text) FROM generate_series(50001, 100000) g;
INSERT INTO v SELECT * FROM h WHERE id > 50000;
SELECT pg_relation_size('v') = :merged AS same_size;
SELECT count(*) AS free_extents FROM engine.free_extent
	WHERE storage_id = engine.storage_id('v');
SELECT same(), same_by_index();
SELECT count(*) AS problems FROM engine.colcompress_verify('v');

-- deleted rows lose their index entries once no snapshot sees them
DELETE FROM v WHERE id % 10 = 0;
DELETE FROM h WHERE id % 10 = 0;
SELECT index_entries('v_id') AS entries_before;
VACUUM v;
SELECT index_entries('v_id') AS entries_after;
SELECT same(), same_by_index();

-- a merge writes the merged rows at the end and VACUUM frees the blocks
-- before them; the next merge writes into those, and VACUUM truncates the
-- free end: repeated merges do not grow the table
SELECT pg_relation_size('v') AS before_merge \gset
SELECT engine.colcompress_merge('v');
VACUUM v;
SELECT count(*) AS free_extents FROM engine.free_extent
	WHERE storage_id = engine.storage_id('v');
INSERT INTO v VALUES (0, 0, 'zero');
INSERT INTO h VALUES (0, 0, 'zero');
SELECT engine.colcompress_merge('v');
VACUUM v;
SELECT pg_relation_size('v') <= :before_merge AS not_grown;
SELECT same(), same_by_index();
SELECT count(*) AS problems FROM engine.colcompress_verify('v');
TRUNCATE v;
SELECT count(*) AS leftover FROM engine.free_extent
	WHERE storage_id NOT IN (SELECT engine.storage_id(oid) FROM pg_class
		WHERE relam = (SELECT oid FROM pg_am WHERE amname = 'colcompress')
		  AND engine.storage_id(oid) IS NOT NULL);

DROP TABLE h, v;
DROP FUNCTION index_entries(regclass), same(), same_by_index();
DROP EXTENSION pageinspect;
