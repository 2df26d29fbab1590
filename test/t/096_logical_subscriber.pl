# Logical replication into colcompress and rowcompress tables (subscriber
# side; a table of ours in a publication refuses writes, see README): the
# apply worker's inserts, updates and deletes land, whether it finds rows
# through a primary key or, under REPLICA IDENTITY FULL, by a sequential
# scan whose row it copies and locks by TID (a copy of our slots once lost
# the TID: "attempted to lock invisible tuple", and the worker stalled).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use StorageEngineTest;

my $pub = new_engine_node('publisher', allows_streaming => 'logical');
my $sub = new_engine_node('subscriber');

my @tables;
for my $am ('colcompress', 'rowcompress')
{
	for my $identity ('pk', 'full')
	{
		my $t = "${am}_$identity";
		my $key = $identity eq 'pk' ? 'PRIMARY KEY' : '';
		push @tables, $t;
		$pub->safe_psql('postgres', qq{
			CREATE TABLE $t (id int $key, v text, n int);
			INSERT INTO $t SELECT g, md5(g::text), g FROM generate_series(1, 500) g;
		});
		$pub->safe_psql('postgres', "ALTER TABLE $t REPLICA IDENTITY FULL")
		  if $identity eq 'full';
		$sub->safe_psql('postgres', "CREATE TABLE $t (id int $key, v text, n int) USING $am");
	}
}
my $list = join(', ', @tables);
$pub->safe_psql('postgres', "CREATE PUBLICATION p FOR TABLE $list");
$sub->safe_psql('postgres',
	"CREATE SUBSCRIPTION s CONNECTION '" . $pub->connstr . " dbname=postgres' PUBLICATION p");
$sub->wait_for_subscription_sync($pub, 's');

for my $t (@tables)
{
	$pub->safe_psql('postgres', qq{
		UPDATE $t SET n = n + 1000 WHERE id <= 50;
		DELETE FROM $t WHERE id BETWEEN 101 AND 130;
		INSERT INTO $t SELECT g, 'new', g FROM generate_series(501, 560) g;
		UPDATE $t SET v = 'again' WHERE id % 9 = 0;
	});
}
$pub->wait_for_catchup('s');

for my $t (@tables)
{
	my $query = "SELECT count(*), sum(n), count(*) FILTER (WHERE v = 'again') FROM $t";
	is($sub->safe_psql('postgres', $query), $pub->safe_psql('postgres', $query),
		"$t: the subscriber holds the publisher's rows");
}
unlike(slurp_file($sub->logfile), qr/ERROR:/, 'the apply worker raised no error');

$sub->stop;
$pub->stop;
done_testing();
