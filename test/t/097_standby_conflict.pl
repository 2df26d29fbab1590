# A query on a hot standby whose snapshot still sees stripes and batches
# that a merge or repack retired on the primary, when VACUUM frees them and
# new rows are written into their blocks: the standby cancels the query with
# a recovery conflict, as it does for heap rows VACUUM removes.  Before,
# the query went on and read the new rows' bytes as the old ones ("data ...
# is damaged").  And a standby snapshot older than a VACUUM FULL.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use StorageEngineTest;

my $primary = new_engine_node('primary', allows_streaming => 1);
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
# cancel conflicting queries at once; no feedback to hold the primary back
$standby->append_conf('postgresql.conf', qq{
max_standby_streaming_delay = 0
hot_standby_feedback = off
});
$standby->start;

$primary->safe_psql('postgres', q{
	CREATE TABLE c (id int, payload text) USING colcompress
		WITH (orderby = 'id', stripe_row_limit = 5000, chunk_group_row_limit = 1000);
	INSERT INTO c SELECT g, md5(g::text) FROM generate_series(1, 20000) g ORDER BY random();
	CREATE TABLE other (a int);
	CREATE TABLE r (id int, payload text) USING rowcompress;
	INSERT INTO r SELECT g, md5(g::text) FROM generate_series(1, 20000) g;
});
$primary->wait_for_catchup($standby);

# On $node, takes its snapshot reading another table, sleeps $seconds,
# then runs $read, in one transaction: the standby is busy in a statement, not idle, when
# the conflict comes, so it cancels the statement.  The reader holds no
# lock on the table meanwhile (a lock would conflict with the
# AccessExclusiveLock of VACUUM's truncation, which cancels it anyway).
sub start_reader
{
	my ($node, $read, $seconds, $out, $err) = @_;
	my $h = IPC::Run::start(
		[
			'psql', '-XAtq', '-d', $node->connstr('postgres'), '-c',
			"BEGIN ISOLATION LEVEL REPEATABLE READ; "
			  . "SELECT count(*) FROM other; "
			  . "SELECT pg_sleep($seconds); "
			  . "$read; COMMIT;"
		],
		'>', $out, '2>', $err);
	$node->poll_query_until('postgres', q{
		SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep'})
	  or die 'the standby reader did not start';
	return $h;
}

# "first_block:number" of each stripe or batch of the table the primary sees.
sub placed
{
	my ($table, $meta) = @_;
	return split /,/, $primary->safe_psql('postgres', qq{
		SELECT string_agg(first_block || ':' || ${meta}_num, ',')
		  FROM engine.$meta WHERE storage_id = engine.storage_id('$table')});
}

# Retires the table's stripes or batches, frees them, and writes rows into
# the freed blocks (a VACUUM after a merge moves the merged stripes there
# itself).  Says how many stripes or batches now start where a retired one
# did.
sub rewrite_and_reuse
{
	my ($table, $meta, $rewrite) = @_;
	my %old = map { (split /:/)[0] => $_ } placed($table, $meta);
	$primary->safe_psql('postgres', $rewrite);
	$primary->safe_psql('postgres', "VACUUM $table");
	$primary->safe_psql('postgres', qq{
		INSERT INTO $table SELECT g, 'new ' || g FROM generate_series(1, 3000) g});
	return scalar grep { my $b = (split /:/)[0]; $old{$b} && $old{$b} ne $_ }
	  placed($table, $meta);
}

for my $case (
	[ 'c', 'stripe', q{SELECT engine.colcompress_merge('c')} ],
	[ 'r', 'batch', q{CALL engine.rowcompress_repack('r')} ])
{
	my ($table, $meta, $rewrite) = @$case;
	my ($out, $err) = ('', '');
	my $reader = start_reader($standby,
		"SELECT count(*), sum(id), max(payload) FROM $table", 30, \$out, \$err);

	ok(rewrite_and_reuse($table, $meta, $rewrite) > 0,
		"$table: rows were written into the blocks VACUUM freed");
	$primary->wait_for_catchup($standby);

	$reader->finish;
	like($err, qr/canceling statement due to conflict with recovery/,
		"$table: the standby query that still saw the old rows was canceled");
	unlike($err, qr/damaged/, "$table: it did not read the new rows as old ones");

	# a new query sees what the primary has
	my $q = "SELECT count(*), sum(id), max(payload) FROM $table";
	is($standby->safe_psql('postgres', $q), $primary->safe_psql('postgres', $q),
		"$table: the standby agrees with the primary afterwards");
}

# A VACUUM FULL on the primary while a standby's REPEATABLE READ snapshot,
# taken before, has not read the table yet.  Without feedback the primary's
# horizon did not hold back for that snapshot, so the copy may not be what
# it saw: reading raises a serialization failure
# (format/storage_rewrite.c).  With feedback it reads what it saw before.
my $standby2 = PostgreSQL::Test::Cluster->new('standby_feedback');
$standby2->init_from_backup($primary, 'base', has_streaming => 1);
$standby2->append_conf('postgresql.conf', qq{
hot_standby_feedback = on
wal_receiver_status_interval = 1
});
$standby2->start;
$primary->wait_for_catchup($standby2);
for my $case ([ $standby, 'without feedback' ], [ $standby2, 'with feedback' ])
{
	my ($node, $label) = @$case;
	my $before = $primary->safe_psql('postgres', 'SELECT count(*), sum(id) FROM c');
	my ($out, $err) = ('', '');
	my $h = start_reader($node, 'SELECT count(*), sum(id) FROM c', 3, \$out, \$err);
	if ($node == $standby2)
	{
		$primary->poll_query_until('postgres', q{
			SELECT backend_xmin IS NOT NULL FROM pg_stat_replication
			 WHERE application_name = 'standby_feedback'})
		  or die 'no feedback from the standby';
	}
	$primary->safe_psql('postgres', 'VACUUM FULL c');
	$primary->wait_for_catchup($node);
	$h->finish;
	if ($node == $standby)
	{
		like($err, qr/could not serialize access due to concurrent rewrite of table "c"/,
			"VACUUM FULL, $label: the older snapshot gets a serialization failure");
	}
	else
	{
		like($out, qr/^\Q$before\E$/m, "VACUUM FULL, $label: the older snapshot reads what it saw")
		  or diag($err);
	}
}
$standby2->stop;

# The same, and a VACUUM after the VACUUM FULL: relfrozenxid passes the
# rewrite, and readers take every snapshot to see the rewrite then, which
# the standby's older one does not: it found the table empty.  The VACUUM
# logs a recovery conflict first, which cancels it.
{
	my ($out, $err) = ('', '');
	my $frozen = q{SELECT relfrozenxid FROM pg_class WHERE relname = 'c'};
	my $h = start_reader($standby, 'SELECT count(*), sum(id) FROM c', 3, \$out, \$err);
	$primary->safe_psql('postgres', 'VACUUM FULL c');
	my $rewritten = $primary->safe_psql('postgres', $frozen);
	$primary->safe_psql('postgres', 'VACUUM c');
	isnt($primary->safe_psql('postgres', $frozen), $rewritten,
		'VACUUM FULL then VACUUM: relfrozenxid passed the rewrite');
	$primary->wait_for_catchup($standby);
	$h->finish;
	like($err, qr/canceling statement due to conflict with recovery/,
		'VACUUM FULL then VACUUM: the older snapshot is canceled')
	  or diag("out: $out");
	unlike($out, qr/^0\|/m, 'it did not find the table empty');
}

$standby->stop;
$primary->stop;
done_testing();
