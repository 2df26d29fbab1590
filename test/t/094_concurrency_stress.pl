# Concurrency under load, each workload on heap (the control), colcompress
# and rowcompress, reading by index and by scan, run side by side by
# pgbench.
#
# SERIALIZABLE: transactions that decide what to write from what they read
# must never leave a state no serial order of them could (PostgreSQL's
# serializable snapshot isolation; our tables take part through the
# predicate locks of their metadata tables and their own conflict checks):
#   write skew: two accounts of a group; a transaction withdraws from one
#     only when the group's balance covers it, so no group goes negative;
#   phantoms: a transaction adds a row to a group only while it has fewer
#     than three, so no group has more (the rows read are the ones not yet
#     there); groups are emptied now and then so that adding goes on.
# The isolation spec serializable.spec pins the interleavings down; this
# runs thousands of them.
#
# READ COMMITTED: increments of five counters, with VACUUM and repack
# moving the rows meanwhile, lose none: the counters add up to the
# transactions that committed (an UPDATE that finds its row changed
# follows it to its new version, as heap's EvalPlanQual does).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use StorageEngineTest;

my $seconds = $ENV{SE_STRESS_SECONDS} // 8;
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
		CREATE TABLE cnt_$k (id int PRIMARY KEY, n int) USING $am{$k};
		INSERT INTO cnt_$k SELECT g, 0 FROM generate_series(1, 5) g;
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

# a SERIALIZABLE transaction calling fn on table t (of the access method
# key %s) with a random key up to keys, reading by index or by scan
sub serializable_script
{
	my ($fn, $t, $keys) = @_;
	return "\\set a random(0, $keys)\n\\set i random(0, 1)\n"
	  . "BEGIN ISOLATION LEVEL SERIALIZABLE;\n"
	  . "SELECT $fn('${t}_%s', :a, :i = 1);\nCOMMIT;\n";
}

# broken: given the access method key and the transactions that committed,
# a query counting what no serial order of them could leave
my %shape = (
	withdraw => {
		script => serializable_script('withdraw', 'acct', 199),
		broken => sub {
			"SELECT count(*) FROM (SELECT grp FROM acct_$_[0] GROUP BY grp HAVING sum(bal) < 0) g";
		},
		what => 'no group of accounts went negative',
	},
	book => {
		script => serializable_script('book', 'slot', 99),
		broken => sub {
			"SELECT count(*) FROM (SELECT grp FROM slot_$_[0] GROUP BY grp HAVING count(*) > 3) g";
		},
		what => 'no group got more than three rows',
	},
	increment => {
		script => q{\set a random(1, 5)
\set i random(0, 1)
BEGIN;
SELECT read_by(:i = 1);
UPDATE cnt_%s SET n = n + 1 WHERE id = :a;
COMMIT;
},
		# the committed transactions less the increments found
		broken => sub { "SELECT $_[1] - sum(n) FROM cnt_$_[0]" },
		what => 'no increment was lost',
		maintenance => {
			h => 'VACUUM cnt_h;',
			c => "VACUUM cnt_c;\nCALL engine.colcompress_repack('cnt_c', 0.99);",
			r => "VACUUM cnt_r;\nCALL engine.rowcompress_repack('cnt_r');",
		},
	});

for my $s (sort keys %shape)
{
	for my $k (sort keys %am)
	{
		my $script = test_file("$s\_$k.sql", sprintf($shape{$s}{script}, $k));
		# serialization failures are retried; the transactions that still
		# fail change nothing
		my ($out, $err, $mout, $merr) = ('', '', '', '');
		my $m = $shape{$s}{maintenance}
		  ? IPC::Run::start(
			[ 'pgbench', '-n', '-c', '1', '-T', $seconds,
			  '-f', test_file("$s\_$k\_maintenance.sql", "$shape{$s}{maintenance}{$k}\n"),
			  $node->connstr('postgres') ],
			'>', \$mout, '2>', \$merr)
		  : undef;
		my @cmd = ('pgbench', '-n', '-c', '8', '-j', '2', '-T', $seconds,
			'--max-tries', '100', '-f', $script, $node->connstr('postgres'));
		IPC::Run::run(\@cmd, '>', \$out, '2>', \$err);
		$m->finish if $m;
		my ($done) = $out =~ /number of transactions actually processed: (\d+)/;
		my ($retried) = $out =~ /number of transactions retried: (\d+)/;
		my ($maintained) = $mout =~ /number of transactions actually processed: (\d+)/;
		note("$s on $am{$k}: " . ($done // 'no') . ' transactions, '
			  . ($retried // 0) . ' retried'
			  . ($m ? ', maintenance ran ' . ($maintained // 0) . ' times' : ''));
		cmp_ok($done // 0, '>', 100, "$s on $am{$k}: transactions ran");
		is($node->safe_psql('postgres', $shape{$s}{broken}->($k, $done // 0)),
			'0', "$s on $am{$k}: $shape{$s}{what}");
	}
}

# A repack of a table of many small streams (single-row UPDATEs each
# write one) rewrites them in a few steps, in memory that does not grow
# with the steps: it took 2.5 MB a step once, and the OOM killer took the
# server.  The backend's private memory is sampled while it runs.
for my $k ('c', 'r')
{
	# an UPDATE writes the row's new version in a stream of its own, four
	# clients side by side interleaving their row numbers
	$node->safe_psql('postgres', qq{
		CREATE TABLE many_$k (id int PRIMARY KEY, n int) USING $am{$k}
			WITH (autovacuum_enabled = false);
		INSERT INTO many_$k SELECT g, 0 FROM generate_series(1, 5) g;
	});
	my ($out, $err) = ('', '');
	IPC::Run::run(
		[ 'pgbench', '-n', '-c', '4', '-j', '2', '-t', '750',
		  '-f', test_file("many_$k.sql", "\\set a random(1, 5)\nUPDATE many_$k SET n = n + 1 WHERE id = :a;\n"),
		  $node->connstr('postgres') ],
		'>', \$out, '2>', \$err);
	my $repack = $k eq 'c'
	  ? "CALL engine.colcompress_repack('many_c', 0.5)"
	  : "CALL engine.rowcompress_repack('many_r')";
	# CALL alone in its message: in a transaction block the repack would
	# run in one transaction, not in steps
	my $h = IPC::Run::start([ 'psql', '-X', '-c', $repack,
		$node->connstr('postgres') . ' application_name=repack' ],
		'>', \$out, '2>', \$err);
	my ($pid, $peak) = (undef, 0);
	while ($h->pumpable)
	{
		$pid //= $node->safe_psql('postgres',
			"SELECT pid FROM pg_stat_activity WHERE application_name = 'repack'") || undef;
		if ($pid && open(my $fh, '<', "/proc/$pid/status"))
		{
			while (<$fh>)
			{
				$peak = $1 if /^RssAnon:\s+(\d+) kB/ && $1 > $peak;
			}
			close($fh);
		}
		# past the limit it is failed: stopped before it takes the machine
		if ($peak >= 256 * 1024)
		{
			$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
			last;
		}
		$h->pump_nb;
		select(undef, undef, undef, 0.02);
	}
	$h->finish;
	note("repack of many streams on $am{$k}: peak private memory $peak kB");
	cmp_ok($peak, '<', 256 * 1024,
		"repack of many streams on $am{$k}: memory does not grow with its steps");
	is($node->safe_psql('postgres', "SELECT count(*), sum(n) FROM many_$k"), '5|3000',
		"repack of many streams on $am{$k}: the rows are there");
	my $streams = $k eq 'c'
	  ? "SELECT count(*) FROM engine.colcompress_stripes WHERE relation = 'many_c'::regclass"
	  : "SELECT count(*) FROM engine.rowcompress_batches WHERE relation = 'many_r'::regclass";
	# colcompress_repack leaves the (at most 5) stripes without deletes
	# alone; rowcompress_repack rewrites every batch, its 5 rows into one
	cmp_ok($node->safe_psql('postgres', $streams), '<=', $k eq 'c' ? 5 : 1,
		"repack of many streams on $am{$k}: no stream of the deleted rows is left");
}

is($node->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM engine.colcompress_verify('acct_c'))
		 + (SELECT count(*) FROM engine.colcompress_verify('slot_c'))
		 + (SELECT count(*) FROM engine.colcompress_verify('cnt_c'))
		 + (SELECT count(*) FROM engine.colcompress_verify('many_c'))
		 + (SELECT count(*) FROM engine.rowcompress_verify('acct_r'))
		 + (SELECT count(*) FROM engine.rowcompress_verify('slot_r'))
		 + (SELECT count(*) FROM engine.rowcompress_verify('cnt_r'))
		 + (SELECT count(*) FROM engine.rowcompress_verify('many_r'))}),
	'0', 'verify finds nothing');

$node->stop;
done_testing();
