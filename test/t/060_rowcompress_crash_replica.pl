# rowcompress under crashes, on a streaming replica and through
# pg_dump / pg_restore:
# - kill -9 during a large load: afterwards exactly the committed rows are
#   there, rowcompress_verify is clean, row numbers are not reused and an
#   unlogged table comes back empty and usable;
# - a streaming replica returns the same results as the primary after
#   loads, TRUNCATE, rewrites and the crash, replayed from WAL;
# - a dump restores identical data and access methods;
# - damaged bytes on disk give an ERROR naming the table, never a crash,
#   and rowcompress_verify reports them.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use StorageEngineTest;

my $primary = new_engine_node('rc_primary', allows_streaming => 1);
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('rc_standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;

$primary->safe_psql('postgres', q{
	CREATE TABLE loaded (id bigint, payload text) USING rowcompress;
	INSERT INTO loaded SELECT g, md5(g::text) FROM generate_series(1, 200000) g;
	CREATE UNLOGGED TABLE scratch (a int) USING rowcompress;
	INSERT INTO scratch SELECT generate_series(1, 50000);
	CHECKPOINT;
});
my $expected = $primary->safe_psql('postgres',
	'SELECT count(*), sum(id), count(DISTINCT payload) FROM loaded');

# (a) a large load in flight when the server dies
my ($out, $err) = ('', '');
my $load = IPC::Run::start(
	[ 'psql', '-X', '-d', $primary->connstr('postgres'), '-c',
	  'INSERT INTO loaded SELECT g, md5(g::text) FROM generate_series(1, 5000000) g' ],
	'>', \$out, '2>', \$err);
# wait until the load has written batches, then crash
$primary->poll_query_until('postgres',
	"SELECT pg_relation_size('loaded') > 20 * 1024 * 1024")
  or die 'the load did not get going';
crash_node($primary);
$load->finish;
$primary->start;

is($primary->safe_psql('postgres',
		'SELECT count(*), sum(id), count(DISTINCT payload) FROM loaded'),
	$expected, 'after a crash during a load: exactly the committed rows');
is($primary->safe_psql('postgres',
		"SELECT count(*) FROM engine.rowcompress_verify('loaded')"),
	'0', 'rowcompress_verify is clean after the crash');
$primary->safe_psql('postgres',
	"INSERT INTO loaded SELECT g, 'after' FROM generate_series(1, 1000) g");
is($primary->safe_psql('postgres', "SELECT count(*) FROM loaded WHERE payload = 'after'"),
	'1000', 'inserts work after recovery');
is($primary->safe_psql('postgres',
		"SELECT count(DISTINCT ctid) = count(*) FROM loaded"),
	't', 'row numbers were not reused after the crash');
is($primary->safe_psql('postgres', 'SELECT count(*) FROM scratch'),
	'0', 'an unlogged table is empty after the crash');
$primary->safe_psql('postgres', 'INSERT INTO scratch SELECT generate_series(1, 10)');
is($primary->safe_psql('postgres',
		"SELECT count(*), sum(a) FROM scratch"),
	'10|55', 'and takes new rows');

# (b) the replica replays everything, including what follows the crash
$primary->safe_psql('postgres', q{
	CREATE TABLE r (id int, d date, amount numeric, tags text[], meta jsonb, note text)
		USING rowcompress;
	INSERT INTO r SELECT g, '2024-01-01'::date + g % 365, g * 1.25,
		ARRAY['t' || g % 7], jsonb_build_object('k', g % 13),
		CASE WHEN g % 11 = 0 THEN NULL ELSE repeat('n', g % 50) END
	  FROM generate_series(1, 300000) g;
	CREATE TABLE gone (a int) USING rowcompress;
	INSERT INTO gone SELECT generate_series(1, 1000);
	TRUNCATE gone;
	INSERT INTO gone SELECT generate_series(1, 10);
	CREATE TABLE rewritten (a int, b text) USING rowcompress;
	INSERT INTO rewritten SELECT g, g::text FROM generate_series(1, 25000) g;
	VACUUM FULL rewritten;
	ALTER TABLE rewritten ALTER COLUMN a TYPE bigint;
	CREATE TABLE switched AS SELECT g AS a FROM generate_series(1, 30000) g;
	ALTER TABLE switched SET ACCESS METHOD rowcompress;
});
$primary->wait_for_catchup($standby);

my @queries = (
	'SELECT count(*), sum(id), count(DISTINCT payload) FROM loaded',
	'SELECT count(*), sum(id), sum(amount), count(note), sum(length(note)) FROM r',
	'SELECT d, count(*), sum(amount) FROM r GROUP BY d ORDER BY d LIMIT 20',
	"SELECT tags[1], count(*) FROM r GROUP BY 1 ORDER BY 1",
	"SELECT meta->>'k', max(id) FROM r GROUP BY 1 ORDER BY 1",
	'SELECT count(*), sum(a) FROM gone',
	'SELECT count(*), sum(a), pg_typeof(min(a))::text FROM rewritten',
	'SELECT count(*), sum(a) FROM switched',
	"SELECT count(*) FROM engine.rowcompress_verify('r')",
	"SELECT count(*) FROM engine.rowcompress_verify('loaded')",
);
foreach my $q (@queries)
{
	is($standby->safe_psql('postgres', $q), $primary->safe_psql('postgres', $q),
		"standby agrees: $q");
}
# a parallel scan on the standby too
is($standby->safe_psql('postgres', q{
	SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
	SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
	SELECT count(*), sum(id), sum(amount) FROM r}),
	$primary->safe_psql('postgres', 'SELECT count(*), sum(id), sum(amount) FROM r'),
	'parallel scan on the standby agrees');

# (c) pg_dump / pg_restore
$primary->safe_psql('postgres', q{
	CREATE TABLE d1 (id int, label text, v numeric, j jsonb) USING rowcompress;
	INSERT INTO d1 SELECT g, 'l' || g % 10, g / 3.0, jsonb_build_object('g', g)
	  FROM generate_series(1, 50000) g;
	INSERT INTO d1 VALUES (NULL, NULL, NULL, NULL);
	CREATE TABLE p (k int, v int) PARTITION BY RANGE (k);
	CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (1000) USING rowcompress;
	INSERT INTO p SELECT g, g FROM generate_series(0, 999) g;
	CREATE MATERIALIZED VIEW mv USING rowcompress AS SELECT label, count(*) FROM d1 GROUP BY label;
});
my $dump = "$PostgreSQL::Test::Utils::tmp_check/rowcompress.dump";
$primary->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $primary->connstr('postgres') ],
	'pg_dump');
$primary->safe_psql('postgres', 'CREATE DATABASE restored');
$primary->command_ok([ 'pg_restore', '-d', $primary->connstr('restored'), $dump ],
	'pg_restore');
my @dump_queries = (
	"SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname IN ('d1', 'p1', 'mv', 'r', 'loaded') ORDER BY 1",
	'SELECT md5(string_agg(d1::text, \',\' ORDER BY id NULLS FIRST)) FROM d1',
	'SELECT md5(string_agg(r::text, \',\' ORDER BY id)) FROM r',
	'SELECT count(*), sum(id), count(DISTINCT payload) FROM loaded',
	'SELECT count(*), sum(v) FROM p',
	'SELECT * FROM mv ORDER BY label',
);
foreach my $q (@dump_queries)
{
	is($primary->safe_psql('restored', $q), $primary->safe_psql('postgres', $q),
		"restored database agrees: $q");
}
is($primary->safe_psql('restored', "SELECT count(*) FROM engine.rowcompress_verify('d1')"),
	'0', 'restored table verifies clean');

# (d) damaged bytes
$primary->safe_psql('postgres', q{
	CREATE TABLE damaged (id int, payload text) USING rowcompress;
	INSERT INTO damaged SELECT g, md5(g::text) FROM generate_series(1, 30000) g;
	CHECKPOINT;
});
my $path = $primary->data_dir . '/' .
  $primary->safe_psql('postgres', "SELECT pg_relation_filepath('damaged')");
$standby->stop;
$primary->stop;
# overwrite 64 bytes inside the first data page (block 1; block 0 is the
# metapage), past the frame directory: in the frames' stored bytes
open(my $fh, '+<', $path) or die "open $path: $!";
binmode $fh;
seek($fh, 8192 + 4000, 0) or die;
print $fh ("\xA5" x 64);
close $fh;
$primary->start;

my ($ret, $stdout, $stderr) = $primary->psql('postgres', 'SELECT sum(id), count(payload) FROM damaged');
isnt($ret, 0, 'reading the damaged table fails');
like($stderr, qr/damaged|invalid page/, 'with a data corruption error');
is($primary->safe_psql('postgres', 'SELECT 1'), '1', 'the server is still up');
ok($primary->safe_psql('postgres',
		"SELECT count(*) FROM engine.rowcompress_verify('damaged')") > 0,
	'rowcompress_verify reports the damage');
# past page checksums (when the cluster has them), our own checks catch it
($ret, $stdout, $stderr) = $primary->psql('postgres',
	'SET ignore_checksum_failure = on; SELECT sum(id), count(payload) FROM damaged');
isnt($ret, 0, 'reading past page checksums fails too');
like($stderr, qr/data of table "damaged" is damaged/,
	'with the batch checks\' error naming the table');
like($primary->safe_psql('postgres', q{
		SET ignore_checksum_failure = on;
		SELECT string_agg(problem, '; ') FROM engine.rowcompress_verify('damaged')}),
	qr/Batch 1: checksum mismatch/, 'rowcompress_verify names the batch');
is($primary->safe_psql('postgres', 'SELECT 1'), '1', 'the server is still up');

# (e) a damaged batch dictionary: its own checksum catches it, and verify
# reports it
$primary->safe_psql('postgres', q{
	CREATE TABLE dict_damaged (id int, payload text) USING rowcompress;
	INSERT INTO dict_damaged SELECT g, md5(g::text) FROM generate_series(1, 30000) g;
	CHECKPOINT;
});
my ($batch_block, $dict_offset) = split /\|/, $primary->safe_psql('postgres', q{
	SELECT first_block, dict_offset FROM engine.batch
	 WHERE storage_id = engine.storage_id('dict_damaged') AND dict_offset <> -1
	 ORDER BY batch_num LIMIT 1});
ok(defined $dict_offset && $dict_offset ne '', 'a batch has a dictionary');
# stream offset -> page, as src/format/storage.h lays streams out
my $payload_per_page = 8192 - 24;
my $inside = $dict_offset + 8 + 100;
my $dict_path = $primary->data_dir . '/' .
  $primary->safe_psql('postgres', "SELECT pg_relation_filepath('dict_damaged')");
$primary->stop;
open($fh, '+<', $dict_path) or die "open $dict_path: $!";
binmode $fh;
seek($fh, ($batch_block + int($inside / $payload_per_page)) * 8192 + 24 +
	  $inside % $payload_per_page, 0) or die;
print $fh ("\x5A" x 16);
close $fh;
$primary->start;
($ret, $stdout, $stderr) = $primary->psql('postgres',
	'SET ignore_checksum_failure = on; SELECT count(payload) FROM dict_damaged');
isnt($ret, 0, 'reading the batch with the damaged dictionary fails');
like($stderr, qr/data of table "dict_damaged" is damaged.*dictionary checksum mismatch/s,
	'naming the table and the dictionary');
like($primary->safe_psql('postgres', q{
		SET ignore_checksum_failure = on;
		SELECT string_agg(problem, '; ') FROM engine.rowcompress_verify('dict_damaged')}),
	qr/dictionary checksum mismatch/, 'rowcompress_verify reports the dictionary');
is($primary->safe_psql('postgres', 'SELECT 1'), '1', 'the server is still up');

$primary->stop;
done_testing();
