# Crash recovery: kill -9 the server during a large load and during
# commits.  Afterwards every committed row is there, no uncommitted row is,
# colcompress_verify is clean and new inserts work.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use StorageEngineTest;

my $node = new_engine_node('crash');
$node->safe_psql('postgres', q{
	CREATE TABLE loaded (id bigint, payload text) USING colcompress;
	INSERT INTO loaded SELECT g, md5(g::text) FROM generate_series(1, 200000) g;
	CREATE TABLE batches (batch int, n int) USING colcompress;
});
my $expected = $node->safe_psql('postgres',
	'SELECT count(*), sum(id), count(DISTINCT payload) FROM loaded');

# (a) a large load in flight when the server dies
my ($out, $err) = ('', '');
my $load = IPC::Run::start(
	[ 'psql', '-X', '-d', $node->connstr('postgres'), '-c',
	  'INSERT INTO loaded SELECT g, md5(g::text) FROM generate_series(1, 5000000) g' ],
	'>', \$out, '2>', \$err);
# wait until the load has written stripes, then crash
$node->poll_query_until('postgres',
	"SELECT pg_relation_size('loaded') > 30 * 1024 * 1024")
  or die 'the load did not get going';
crash_node($node);
$load->finish;
$node->start;

is($node->safe_psql('postgres',
		'SELECT count(*), sum(id), count(DISTINCT payload) FROM loaded'),
	$expected, 'after a crash during a load: exactly the committed rows');
is($node->safe_psql('postgres',
		"SELECT count(*) FROM engine.colcompress_verify('loaded')"),
	'0', 'colcompress_verify is clean after the crash');
$node->safe_psql('postgres',
	"INSERT INTO loaded SELECT g, 'after' FROM generate_series(1, 1000) g");
is($node->safe_psql('postgres', "SELECT count(*) FROM loaded WHERE payload = 'after'"),
	'1000', 'inserts work after recovery');
is($node->safe_psql('postgres',
		"SELECT count(DISTINCT ctid) = count(*) FROM loaded"),
	't', 'row numbers were not reused after the crash');

# (b) many small transactions committing when the server dies: each is
# there whole or not at all, and every acknowledged one is there
my $acked = "$PostgreSQL::Test::Utils::tmp_check/acked_batches";
my $script = qq{
	for i in \$(seq 1 100000); do
		psql -X -q -d '@{[ $node->connstr('postgres') ]}' -c "INSERT INTO batches SELECT \$i, g FROM generate_series(1, 100) g" || exit 0
		echo \$i >> '$acked'
	done
};
my $writer = IPC::Run::start([ 'bash', '-c', $script ], '>', \$out, '2>', \$err);
$node->poll_query_until('postgres', 'SELECT count(*) >= 2000 FROM batches')
  or die 'the writer did not get going';
crash_node($node);
$writer->finish;
$node->start;

my @acked = split /\n/, slurp_file($acked);
my $last_acked = $acked[-1];
ok($last_acked > 0, "writer acknowledged $last_acked batches before the crash");
is($node->safe_psql('postgres',
		'SELECT count(*) FROM (SELECT batch FROM batches GROUP BY batch HAVING count(*) <> 100) b'),
	'0', 'every batch is whole');
is($node->safe_psql('postgres',
		"SELECT count(DISTINCT batch) >= $last_acked AND bool_and(batch <= $last_acked + 1) FROM batches"),
	't', 'every acknowledged batch survived, nothing beyond the one in flight');
is($node->safe_psql('postgres',
		"SELECT count(*) FROM engine.colcompress_verify('batches')"),
	'0', 'colcompress_verify is clean');

# (c) a table with a BRIN index is kept as long as its TID blocks by empty
# pages (format/tid_blocks.c), written past every stream; after a crash a
# BRIN scan still reaches the last rows (030 proves them replayed from WAL)
$node->safe_psql('postgres', q{
	CREATE TABLE narrow (a int) USING colcompress;
	INSERT INTO narrow SELECT generate_series(1, 100000);
	CREATE INDEX narrow_brin ON narrow USING brin (a) WITH (pages_per_range = 4);
	INSERT INTO narrow SELECT generate_series(100001, 150000);
});
crash_node($node);
$node->start;
is($node->safe_psql('postgres', q{
		SET enable_seqscan = off; SET storage_engine.enable_custom_scan = off;
		SELECT count(*), sum(a) FROM narrow WHERE a > 149990 OR a BETWEEN 50000 AND 50009}),
	'20|2000000', 'after a crash, a BRIN scan still finds the last rows');
is($node->safe_psql('postgres',
		"SELECT pg_relation_size('narrow') >= (SELECT max((ctid::text::point)[0]) + 1 FROM narrow) * 8192"),
	't', 'the relation still covers its TID blocks');

$node->stop;
done_testing();
