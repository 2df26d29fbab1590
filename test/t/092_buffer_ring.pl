# Scans keep a table cached as heap's do: a table small for shared buffers
# (at most a quarter of them) is read into shared buffers and stays there,
# so a second scan after a restart reads nothing from disk; a larger one is
# read through a ring of a few buffers, so that one scan does not push out
# everything else.  colcompress used to read every table through the ring:
# after a restart each scan of a small table read most of it from disk
# again, the ring's buffers evicting the pages the previous one had read.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use StorageEngineTest;

# 2048 buffers: a table of more than 512 blocks is large
my $node = new_engine_node('buffer_ring', conf => q{
shared_buffers = 16MB
max_parallel_workers_per_gather = 0
});
my $quarter = $node->safe_psql('postgres',
	"SELECT setting::int / 4 FROM pg_settings WHERE name = 'shared_buffers'");

my %rows = (small => 30000, large => 400000);
for my $am ('heap', 'colcompress', 'rowcompress')
{
	for my $size ('small', 'large')
	{
		$node->safe_psql('postgres', qq{
			CREATE TABLE ${size}_$am (id int, t text) USING $am;
			INSERT INTO ${size}_$am
				SELECT g, md5(g::text) || md5((g * 7)::text)
				FROM generate_series(1, $rows{$size}) g;
		});
	}
	my ($small, $large) = split /\|/, $node->safe_psql('postgres',
		"SELECT pg_relation_size('small_$am') / 8192, pg_relation_size('large_$am') / 8192");
	# each table must be on its side of the line, and the small one larger
	# than a ring (32 buffers), or the test proves nothing
	ok($small > 64 && $small <= $quarter && $large > $quarter,
		"$am: small table $small blocks, large $large, the line at $quarter");
}
$node->safe_psql('postgres', 'CHECKPOINT');

# Blocks the scan read from disk, workers' included.
sub blocks_read
{
	my ($table) = @_;
	my $plan = $node->safe_psql('postgres',
		"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT count(*), max(t) FROM $table");
	return $plan =~ /"Shared Read Blocks": (\d+)/ ? $1 : die "no buffers in $plan";
}

for my $am ('heap', 'colcompress', 'rowcompress')
{
	# cold shared buffers
	$node->restart;
	my $expected = $node->safe_psql('postgres',
		"SELECT count(*), max(t) FROM small_$am");
	cmp_ok(blocks_read("small_$am"), '==', 0,
		"$am: a second scan of a small table reads nothing from disk");
	is($node->safe_psql('postgres', "SELECT count(*), max(t) FROM small_$am"),
		$expected, "$am: and returns the same");

	$node->safe_psql('postgres', "SELECT count(*), max(t) FROM large_$am");
	cmp_ok(blocks_read("large_$am"), '>', 0,
		"$am: a large table is read through a ring, so its second scan reads again");
}

$node->stop;
done_testing();
