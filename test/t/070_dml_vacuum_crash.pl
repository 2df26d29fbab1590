# Crash recovery of DELETE, UPDATE, VACUUM and repack, for both access
# methods: kill -9 the server while each runs.  Afterwards the table holds
# exactly the committed state, the verify function is clean, amcheck finds
# the btree consistent with the table (every row indexed), and the table
# keeps working (VACUUM gives space back, inserts reuse it).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use StorageEngineTest;

my $node = new_engine_node('dml_crash');
$node->safe_psql('postgres', 'CREATE EXTENSION amcheck');

# runs $sql in the background, waits until $until is true, crashes the
# server and starts it again
sub crash_during
{
	my ($sql, $until) = @_;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-d', $node->connstr('postgres'), '-c', $sql ],
		'>', \$out, '2>', \$err);
	$node->poll_query_until('postgres', $until)
	  or die "\"$sql\" did not get going";
	crash_node($node);
	$h->finish;
	$node->start;
}

sub state_of
{
	my ($t) = @_;
	return $node->safe_psql('postgres',
		"SELECT count(*), sum(id), count(DISTINCT v), sum(length(v)) FROM $t");
}

sub check_table
{
	my ($am, $t, $expected, $what) = @_;
	is(state_of($t), $expected, "$am, $what: exactly the committed rows");
	is($node->safe_psql('postgres',
			"SELECT count(*) FROM engine.${am}_verify('$t')"),
		'0', "$am, $what: verify is clean");
	my ($ret, $stdout, $stderr) = $node->psql('postgres',
		"SELECT bt_index_check('${t}_id', true)");
	is($ret . $stderr, '0', "$am, $what: amcheck: the index holds every row");
	is($node->safe_psql('postgres', qq{
			SET enable_seqscan = off; SET storage_engine.enable_custom_scan = off;
			SELECT count(*), sum(id), count(DISTINCT v), sum(length(v)) FROM $t WHERE id > 0}),
		$expected, "$am, $what: the index finds the same rows");
}

for my $am ('colcompress', 'rowcompress')
{
	my $t = "t_$am";
	my $opts = $am eq 'colcompress'
	  ? 'stripe_row_limit = 20000, chunk_group_row_limit = 2000'
	  : 'batch_size = 20000';
	$node->safe_psql('postgres', qq{
		CREATE TABLE $t (id int, v text) USING $am WITH ($opts);
		INSERT INTO $t SELECT g, md5(g::text) FROM generate_series(1, 400000) g;
		CREATE INDEX ${t}_id ON $t (id);
	});
	my $loaded = $node->safe_psql('postgres', "SELECT pg_relation_size('$t')");
	my $expected = state_of($t);

	# (a) a large DELETE in flight: the row marks show it at work
	crash_during("DELETE FROM $t WHERE id % 2 = 0",
		"SELECT count(*) > 5000 FROM engine.row_mark WHERE storage_id = engine.storage_id('$t')");
	check_table($am, $t, $expected, 'crash during DELETE');

	# (b) a large UPDATE in flight
	crash_during("UPDATE $t SET v = v || 'x' WHERE id % 3 = 0",
		"SELECT count(*) > 5000 FROM engine.row_mark WHERE storage_id = engine.storage_id('$t')");
	check_table($am, $t, $expected, 'crash during UPDATE');

	# (c) VACUUM rewriting stripes or batches after a committed DELETE
	$node->safe_psql('postgres', "DELETE FROM $t WHERE id % 4 = 0");
	$expected = state_of($t);
	crash_during("VACUUM $t",
		"SELECT pg_relation_size('$t') > $loaded * 1.2");
	check_table($am, $t, $expected, 'crash during VACUUM');

	# (d) repack, one stream per transaction, after a committed UPDATE
	$node->safe_psql('postgres', "UPDATE $t SET v = upper(v) WHERE id % 5 = 0");
	$expected = state_of($t);
	my $call = $am eq 'colcompress'
	  ? "CALL engine.colcompress_repack('$t', 0.99)"
	  : "CALL engine.rowcompress_repack('$t')";
	# each step commits a new stripe or batch: wait for a few
	my ($meta, $num) = $am eq 'colcompress' ? ('stripe', 'stripe_num') : ('batch', 'batch_num');
	my $last = $node->safe_psql('postgres',
		"SELECT max($num) FROM engine.$meta WHERE storage_id = engine.storage_id('$t')");
	crash_during($call,
		"SELECT count(*) > 2 FROM engine.$meta WHERE storage_id = engine.storage_id('$t') AND $num > $last");
	check_table($am, $t, $expected, 'crash during repack');

	# the table keeps working: VACUUM gives the space back
	$node->safe_psql('postgres', "VACUUM $t") for 1 .. 3;
	check_table($am, $t, $expected, 'VACUUM after the crashes');
	ok($node->safe_psql('postgres', "SELECT pg_relation_size('$t')") <= $loaded * 1.05,
		"$am: VACUUM brought the table back to (at most) its loaded size");
	$node->safe_psql('postgres',
		"INSERT INTO $t SELECT g, 'after' FROM generate_series(1000001, 1001000) g");
	is($node->safe_psql('postgres', "SELECT count(*) FROM $t WHERE v = 'after'"),
		'1000', "$am: inserts work after recovery");
}

$node->stop;
done_testing();
