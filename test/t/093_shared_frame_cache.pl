# The shared frame cache (storage_engine.shared_frame_cache_size) under
# sessions side by side: lookups by index on colcompress and rowcompress
# tables, each checked against heap in the same statement, while other
# sessions update the rows they look up and VACUUM frees and reuses blocks.
# The cache is small, so frames are pushed out of it all the time while
# others are copied in and out.  Every lookup must return heap's rows.
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

	-- an error when a lookup of key k differs from heap's
	CREATE FUNCTION check_key(k int) RETURNS void LANGUAGE plpgsql AS $$
	BEGIN
		SET LOCAL enable_seqscan = off;
		SET LOCAL storage_engine.enable_custom_scan = off;
		IF rows_of('sf_c', k) IS DISTINCT FROM rows_of('sf_h', k) THEN
			RAISE EXCEPTION 'colcompress rows of key % differ from heap''s', k;
		END IF;
		IF rows_of('sf_r', k) IS DISTINCT FROM rows_of('sf_h', k) THEN
			RAISE EXCEPTION 'rowcompress rows of key % differ from heap''s', k;
		END IF;
	END $$;
});

# readers look up keys of a small range, so that each session meets frames
# again and keeps them, in one snapshot for both tables; writers change the
# rows of those keys
my $read = test_file('read.sql', q{\set k random(0, 59)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT check_key(:k * 10);
COMMIT;
});
my $write = test_file('write.sql', q{\set k random(0, 59)
BEGIN;
UPDATE sf_h SET v = v || 'x' WHERE k = :k * 10 AND id % 3 = 0;
UPDATE sf_c SET v = v || 'x' WHERE k = :k * 10 AND id % 3 = 0;
UPDATE sf_r SET v = v || 'x' WHERE k = :k * 10 AND id % 3 = 0;
COMMIT;
});
my $vacuum = test_file('vacuum.sql', "VACUUM sf_c;\nVACUUM sf_r;\n");

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
ok($ok, 'every lookup returned heap\'s rows') or diag($err);
cmp_ok($reads // 0, '>', 100, 'lookups ran');
cmp_ok($writes // 0, '>', 10, 'updates ran');

# every key once more, from one session, after all of it
is($node->safe_psql('postgres',
		'SELECT count(*) FROM generate_series(0, 599) k, LATERAL check_key(k)'),
	'600', 'every key returns heap\'s rows afterwards');

# the setting needs a restart; the cache is empty after one, and off at 0
$node->append_conf('postgresql.conf', 'storage_engine.shared_frame_cache_size = 0');
$node->restart;
is($node->safe_psql('postgres', 'SHOW storage_engine.shared_frame_cache_size'),
	'0', 'the shared cache is off after a restart');
is($node->safe_psql('postgres',
		'SELECT count(*) FROM generate_series(0, 599) k, LATERAL check_key(k)'),
	'600', 'every key returns heap\'s rows without it');

$node->stop;
done_testing();
