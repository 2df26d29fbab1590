# The shared frame cache (storage_engine.shared_frame_cache_size) under
# sessions side by side: lookups by index on colcompress and rowcompress
# tables, and scans of a rowcompress table small enough for its batches to
# be kept (read in place, pinned), each checked against heap in the same
# snapshot, while other sessions update the rows they read and VACUUM frees
# and reuses blocks.  The cache is small, so frames are pushed out of it all
# the time while others are copied in and out, and cursors left inside a
# batch keep it pinned.  Every read must return heap's rows, and no pin may
# outlive its reader.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use StorageEngineTest;

my $seconds = $ENV{SE_STRESS_SECONDS} // 8;
my $node = new_engine_node('shared_frames', conf => q{
max_connections = 40
storage_engine.shared_frame_cache_size = 4MB
});
is($node->safe_psql('postgres', 'SHOW storage_engine.shared_frame_cache_size'),
	'4MB', 'the shared cache is on');

$node->safe_psql('postgres', q{
	CREATE TABLE sf_h (id int PRIMARY KEY, k int, v text);
	INSERT INTO sf_h SELECT g, g % 600,
		   'value ' || (g * 7919) % 1000 || ' ' || repeat(chr(65 + g % 26), 10 + g % 30)
	  FROM generate_series(1, 60000) g;
	CREATE TABLE sf_c (LIKE sf_h) USING colcompress
		WITH (stripe_row_limit = 10000, chunk_group_row_limit = 1000);
	CREATE TABLE sf_r (LIKE sf_h) USING rowcompress WITH (batch_size = 250);
	INSERT INTO sf_c SELECT * FROM sf_h;
	INSERT INTO sf_r SELECT * FROM sf_h;
	CREATE INDEX ON sf_h (k);
	CREATE INDEX ON sf_c (k);
	CREATE INDEX ON sf_r (k);
	ANALYZE sf_h, sf_c, sf_r;

	-- table t's rows of key k, as one value
	CREATE FUNCTION rows_of(t text, k int) RETURNS text LANGUAGE plpgsql AS $$
	DECLARE
		r text;
	BEGIN
		EXECUTE format('SELECT count(*) || md5(string_agg(id || v, ''|'' ORDER BY id)) FROM %I WHERE k = $1', t)
		  INTO r USING k;
		RETURN r;
	END $$;

	-- read whole by scans: its rows take a third of the cache, in batches
	-- of 12 kB (a frame may take at most a sixteenth of its partition)
	CREATE TABLE sf_sh (id int PRIMARY KEY, v text);
	INSERT INTO sf_sh SELECT g, 'scan ' || g || repeat('s', g % 20)
	  FROM generate_series(1, 12000) g;
	CREATE TABLE sf_s (LIKE sf_sh) USING rowcompress WITH (batch_size = 200);
	INSERT INTO sf_s SELECT * FROM sf_sh;
	-- one batch, for a cursor to stop in (below)
	CREATE TABLE sf_p (LIKE sf_sh) USING rowcompress;
	INSERT INTO sf_p SELECT * FROM sf_sh WHERE id <= 200;

	-- an error when a scan of sf_s differs from heap's; the settings are
	-- the function's own (SET LOCAL would last to the end of the
	-- transaction: with every plan disabled, PostgreSQL 15 then compiled
	-- each query with JIT, 100 ms of a 10 ms read)
	CREATE FUNCTION check_scan() RETURNS void LANGUAGE plpgsql
	SET enable_indexscan = off SET enable_bitmapscan = off AS $$
	BEGIN
		IF (SELECT count(*) || md5(string_agg(id || v, '|' ORDER BY id)) FROM sf_s)
		   IS DISTINCT FROM
		   (SELECT count(*) || md5(string_agg(id || v, '|' ORDER BY id)) FROM sf_sh) THEN
			RAISE EXCEPTION 'rowcompress scan differs from heap''s';
		END IF;
	END $$;

	-- an error when a lookup of key k differs from heap's
	CREATE FUNCTION check_key(k int) RETURNS void LANGUAGE plpgsql
	SET enable_seqscan = off SET storage_engine.enable_custom_scan = off AS $$
	BEGIN
		IF rows_of('sf_c', k) IS DISTINCT FROM rows_of('sf_h', k) THEN
			RAISE EXCEPTION 'colcompress rows of key % differ from heap''s', k;
		END IF;
		IF rows_of('sf_r', k) IS DISTINCT FROM rows_of('sf_h', k) THEN
			RAISE EXCEPTION 'rowcompress rows of key % differ from heap''s', k;
		END IF;
	END $$;
});

# readers look up keys of a small range, so that each session meets frames
# again and keeps them, in one snapshot for both tables, and scan sf_s, some
# while a cursor of theirs holds a batch of it; writers change the rows of
# those keys and of sf_s
my $read = test_file('read.sql', q{\set k random(0, 59)
\set held random(0, 1)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT check_key(:k * 10);
\if :held
DECLARE held CURSOR FOR SELECT id, v FROM sf_s;
FETCH 150 FROM held;
\endif
SELECT check_scan();
COMMIT;
});
my $write = test_file('write.sql', q{\set k random(0, 59)
\set id random(1, 12000)
BEGIN;
UPDATE sf_h SET v = v || 'x' WHERE k = :k * 10 AND id % 3 = 0;
UPDATE sf_c SET v = v || 'x' WHERE k = :k * 10 AND id % 3 = 0;
UPDATE sf_r SET v = v || 'x' WHERE k = :k * 10 AND id % 3 = 0;
UPDATE sf_sh SET v = v || 'y' WHERE id BETWEEN :id AND :id + 20;
UPDATE sf_s SET v = v || 'y' WHERE id BETWEEN :id AND :id + 20;
COMMIT;
});
my $vacuum = test_file('vacuum.sql', "VACUUM sf_c;\nVACUUM sf_r;\nVACUUM sf_s;\n");

my ($wout, $werr, $vout, $verr, $out, $err) = ('', '', '', '', '', '');
my $w = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '2', '-T', $seconds, '-f', $write,
	  $node->connstr('postgres') ],
	'>', \$wout, '2>', \$werr);
my $v = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '1', '-T', $seconds, '-f', $vacuum,
	  $node->connstr('postgres') ],
	'>', \$vout, '2>', \$verr);
my $ok = IPC::Run::run(
	[ 'pgbench', '-n', '-c', '6', '-j', '2', '-T', $seconds, '-f', $read,
	  $node->connstr('postgres') ],
	'>', \$out, '2>', \$err);
$w->finish;
$v->finish;
my ($reads) = $out =~ /number of transactions actually processed: (\d+)/;
my ($writes) = $wout =~ /number of transactions actually processed: (\d+)/;
my ($vacuums) = $vout =~ /number of transactions actually processed: (\d+)/;
note('lookups: ' . ($reads // 'none') . ', updates: ' . ($writes // 'none')
	  . ', vacuums: ' . ($vacuums // 'none'));
ok($ok, 'every lookup and scan returned heap\'s rows') or diag($err);
# each read looks up a key and scans sf_s twice (against heap): hundreds,
# fewer in a loaded CI run
cmp_ok($reads // 0, '>', 50, 'lookups and scans ran');
cmp_ok($writes // 0, '>', 10, 'updates ran');

# every key once more, from one session, after all of it
is($node->safe_psql('postgres',
		'SELECT count(*) FROM generate_series(0, 599) k, LATERAL check_key(k)'),
	'600', 'every key returns heap\'s rows afterwards');

# every pin went with its reader (autovacuum may hold one for a moment)
ok($node->poll_query_until('postgres',
		'SELECT pinned_frames = 0 FROM engine.shared_frame_cache'),
	'no frame stays pinned');
is($node->safe_psql('postgres', q{
	SELECT size_bytes = 4 * 1024 * 1024, hits > 0, evicted > 0,
		   used_bytes <= size_bytes, stored >= frames
	  FROM engine.shared_frame_cache}),
	't|t|t|t|t', 'engine.shared_frame_cache counted hits and evictions');
is($node->safe_psql('postgres', 'SELECT check_scan()'), '',
	'a scan returns heap\'s rows afterwards');

# A session whose cursor sits inside a batch pins it; the batch must not be
# pushed out (nor its bytes overwritten) while others keep new frames, and
# the pin goes when the session is terminated in the middle of it.  A
# session keeps a batch it meets a second time, so the holder reads its
# table twice before its cursor stops in it; a table no one changes, as
# autovacuum may rewrite a batch of sf_s, left full of deleted rows by the
# updates above, in between (1 run in 20 found nothing pinned).
my ($hout, $herr) = ('', '');
my $holder = IPC::Run::start(
	[ 'psql', '-XAtq', '-d', $node->connstr('postgres'),
	  '-c', 'SELECT sum(length(v)) FROM sf_p', '-c', 'SELECT sum(length(v)) FROM sf_p',
	  '-c', 'BEGIN; DECLARE held CURSOR FOR SELECT id, v FROM sf_p; '
	  . 'FETCH 150 FROM held; SELECT pg_sleep(300); COMMIT;' ],
	'>', \$hout, '2>', \$herr);
$node->poll_query_until('postgres', q{
	SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep'})
  or die 'the cursor did not start';
cmp_ok($node->safe_psql('postgres',
		'SELECT pinned_frames FROM engine.shared_frame_cache'),
	'>', 0, 'a cursor inside a batch pins it');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM generate_series(0, 599) k, LATERAL check_key(k);
	SELECT check_scan(); SELECT check_scan();}),
	"600\n\n", 'lookups and scans return heap\'s rows while a batch is pinned');
$node->safe_psql('postgres', q{
	SELECT pg_terminate_backend(pid) FROM pg_stat_activity
	 WHERE wait_event = 'PgSleep'});
$holder->finish;
ok($node->poll_query_until('postgres',
		'SELECT pinned_frames = 0 FROM engine.shared_frame_cache'),
	'a terminated session leaves no pin');

# the setting needs a restart; the cache is empty after one, and off at 0
$node->append_conf('postgresql.conf', 'storage_engine.shared_frame_cache_size = 0');
$node->restart;
is($node->safe_psql('postgres', 'SHOW storage_engine.shared_frame_cache_size'),
	'0', 'the shared cache is off after a restart');
is($node->safe_psql('postgres',
		'SELECT count(*) FROM generate_series(0, 599) k, LATERAL check_key(k)'),
	'600', 'every key returns heap\'s rows without it');
is($node->safe_psql('postgres', q{
	SELECT size_bytes, frames, hits FROM engine.shared_frame_cache}),
	'0|0|0', 'engine.shared_frame_cache shows it off');

$node->stop;
done_testing();
