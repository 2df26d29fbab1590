# SERIALIZABLE under load: transactions that decide what to write from
# what they read, run side by side by pgbench, must never leave a state no
# serial order of them could (PostgreSQL's serializable snapshot
# isolation; our tables take part through the predicate locks of their
# metadata tables and their own conflict checks).  Two shapes, each on
# heap (the control), colcompress and rowcompress, reading by index and by
# scan:
#   write skew: two accounts of a group; a transaction withdraws from one
#     only when the group's balance covers it, so no group goes negative;
#   phantoms: a transaction adds a row to a group only while it has fewer
#     than three, so no group has more (the rows read are the ones not yet
#     there); groups are emptied now and then so that adding goes on.
# The isolation spec serializable.spec pins the interleavings down; this
# runs thousands of them.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use StorageEngineTest;

my $seconds = $ENV{SE_SERIALIZABLE_SECONDS} // 8;
my $node = new_engine_node('serializable', conf => q{
max_connections = 40
max_pred_locks_per_transaction = 256
});

my %am = (h => 'heap', c => 'colcompress', r => 'rowcompress');
for my $k (sort keys %am)
{
	$node->safe_psql('postgres', qq{
		CREATE TABLE acct_$k (id int PRIMARY KEY, grp int, bal int) USING $am{$k};
		CREATE INDEX ON acct_$k (grp);
		INSERT INTO acct_$k SELECT g, g / 2, 50 FROM generate_series(0, 199) g;
		CREATE TABLE slot_$k (grp int, who int) USING $am{$k};
		CREATE INDEX ON slot_$k (grp);
	});
}

# the read decides the write; by index or by scan
$node->safe_psql('postgres', q{
	CREATE FUNCTION read_by(idx bool) RETURNS void LANGUAGE plpgsql AS $$
	BEGIN
		IF idx THEN
			SET LOCAL enable_seqscan = off;
			SET LOCAL storage_engine.enable_custom_scan = off;
		ELSE
			SET LOCAL enable_indexscan = off;
			SET LOCAL enable_bitmapscan = off;
		END IF;
	END $$;

	CREATE FUNCTION withdraw(t text, a int, idx bool) RETURNS void LANGUAGE plpgsql AS $$
	DECLARE s int;
	BEGIN
		PERFORM read_by(idx);
		EXECUTE format('SELECT sum(bal) FROM %I WHERE grp = $1', t) INTO s USING a / 2;
		PERFORM pg_sleep(0.001);
		IF s >= 60 THEN
			EXECUTE format('UPDATE %I SET bal = bal - 60 WHERE id = $1', t) USING a;
		ELSE
			EXECUTE format('UPDATE %I SET bal = bal + 40 WHERE id = $1', t) USING a;
		END IF;
	END $$;

	CREATE FUNCTION book(t text, g int, idx bool) RETURNS void LANGUAGE plpgsql AS $$
	DECLARE n int;
	BEGIN
		PERFORM read_by(idx);
		IF random() < 0.1 THEN
			EXECUTE format('DELETE FROM %I WHERE grp = $1', t) USING g;
			RETURN;
		END IF;
		EXECUTE format('SELECT count(*) FROM %I WHERE grp = $1', t) INTO n USING g;
		PERFORM pg_sleep(0.001);
		IF n < 3 THEN
			EXECUTE format('INSERT INTO %I VALUES ($1, 1)', t) USING g;
		END IF;
	END $$;
});

my %shape = (
	withdraw => {
		script => q{\set a random(0, 199)
\set i random(0, 1)
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT withdraw('acct_%s', :a, :i = 1);
COMMIT;
},
		broken => 'SELECT count(*) FROM (SELECT grp FROM acct_%s GROUP BY grp HAVING sum(bal) < 0) g',
		what => 'no group of accounts went negative',
	},
	book => {
		script => q{\set g random(0, 99)
\set i random(0, 1)
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT book('slot_%s', :g, :i = 1);
COMMIT;
},
		broken => 'SELECT count(*) FROM (SELECT grp FROM slot_%s GROUP BY grp HAVING count(*) > 3) g',
		what => 'no group got more than three rows',
	});

for my $s (sort keys %shape)
{
	for my $k (sort keys %am)
	{
		my $script = test_file("$s\_$k.sql", sprintf($shape{$s}{script}, $k));
		# serialization failures are retried; the transactions that still
		# fail change nothing
		my ($out, $err) = ('', '');
		my @cmd = ('pgbench', '-n', '-c', '8', '-j', '2', '-T', $seconds,
			'--max-tries', '100', '-f', $script, $node->connstr('postgres'));
		IPC::Run::run(\@cmd, '>', \$out, '2>', \$err);
		my ($done) = $out =~ /number of transactions actually processed: (\d+)/;
		my ($retried) = $out =~ /number of transactions retried: (\d+)/;
		note("$s on $am{$k}: " . ($done // 'no') . ' transactions, '
			  . ($retried // 0) . ' retried');
		cmp_ok($done // 0, '>', 100, "$s on $am{$k}: transactions ran");
		is($node->safe_psql('postgres', sprintf($shape{$s}{broken}, $k)),
			'0', "$s on $am{$k}: $shape{$s}{what}");
	}
}

is($node->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM engine.colcompress_verify('acct_c'))
		 + (SELECT count(*) FROM engine.colcompress_verify('slot_c'))
		 + (SELECT count(*) FROM engine.rowcompress_verify('acct_r'))
		 + (SELECT count(*) FROM engine.rowcompress_verify('slot_r'))}),
	'0', 'verify finds nothing');

$node->stop;
done_testing();
