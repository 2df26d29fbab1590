# Damaged bytes on disk give an ERROR naming the table, never a crash, and
# colcompress_verify reports the damage.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use StorageEngineTest;

my $node = new_engine_node('corrupt');
$node->safe_psql('postgres', q{
	CREATE TABLE damaged (id int, payload text) USING colcompress;
	INSERT INTO damaged SELECT g, md5(g::text) FROM generate_series(1, 30000) g;
	CHECKPOINT;
});
my $path = $node->data_dir . '/' .
  $node->safe_psql('postgres', "SELECT pg_relation_filepath('damaged')");
$node->stop;

# overwrite 64 bytes inside the first data page (block 1; block 0 is the metapage)
open(my $fh, '+<', $path) or die "open $path: $!";
binmode $fh;
seek($fh, 8192 + 200, 0) or die;
print $fh ("\xA5" x 64);
close $fh;
$node->start;

my ($ret, $out, $err) = $node->psql('postgres', 'SELECT sum(id), count(payload) FROM damaged');
isnt($ret, 0, 'reading the damaged table fails');
like($err, qr/damaged|invalid page/, 'with a data corruption error');
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is still up');
ok($node->safe_psql('postgres',
		"SELECT count(*) FROM engine.colcompress_verify('damaged')") > 0,
	'colcompress_verify reports the damage');

$node->stop;
done_testing();
