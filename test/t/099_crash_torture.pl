# Crash torture.  Concurrent transactions change a heap table and its
# mirrors alike: colcompress, rowcompress, and a partitioned table with a
# partition of each access method that primary-key moves cross.  One
# function call per transaction changes all four the same way inside one
# subtransaction, its statements seeing the same rows (in REPEATABLE READ,
# or in READ COMMITTED with transactions whose keys may meet taking turns).
# Meanwhile other commands rewrite the mirrors (VACUUM, VACUUM FULL,
# CLUSTER, repack, merge, ALTER TABLE), rebuild their indexes concurrently
# and checkpoint, and the server is killed at a random moment, round after
# round.  Every WAL record of our pages carries a page image to check its
# redo against (wal_consistency_checking), and data checksums are on.
# After every restart the tables hold the same rows (a transaction's
# changes survive in all or in none), the verify functions find nothing,
# every btree finds every row (amcheck), and index plans agree with scans.
# A streaming standby replays the same WAL, answers queries meanwhile that
# find the tables alike, ends equal to the primary, and once promoted takes
# two more rounds.  Each table has a child of its access method whose
# foreign key locks its rows and cascades their deletes and key moves.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use StorageEngineTest;

my $rounds = $ENV{SE_TORTURE_ROUNDS} // 8;
my $seed = $ENV{SE_TORTURE_SEED} // time();
srand($seed);
note("seed $seed");

my $node = new_engine_node('torture', allows_streaming => 1,
	extra => ['--data-checksums'], conf => q{
wal_consistency_checking = 'generic'
storage_engine.write_buffer_memory = 1024
log_line_prefix = '%m [%p] %e '
shared_buffers = 32MB
max_wal_size = 1GB
autovacuum_naptime = 1
deadlock_timeout = 100ms
});
$node->safe_psql('postgres', 'CREATE EXTENSION amcheck');
# a slot keeps the WAL until the standby has it, however far behind
$node->safe_psql('postgres',
	"SELECT pg_create_physical_replication_slot('torture_standby', true)");
$node->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('torture_standby');
$standby->init_from_backup($node, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', qq{
primary_slot_name = 'torture_standby'
log_line_prefix = '%m [%p] %e '
});
$standby->start;

$node->safe_psql('postgres', q{
	CREATE TABLE t_h (id int PRIMARY KEY, k int, v text, j jsonb);
	CREATE TABLE t_c (id int PRIMARY KEY, k int, v text, j jsonb) USING colcompress
		WITH (stripe_row_limit = 3000, chunk_group_row_limit = 1000, orderby = 'k');
	CREATE TABLE t_r (id int PRIMARY KEY, k int, v text, j jsonb) USING rowcompress
		WITH (batch_size = 500);
	CREATE INDEX ON t_h (k);
	CREATE INDEX ON t_c (k);
	CREATE INDEX ON t_r (k);
	-- a third mirror, partitioned: each access method holds a key range, and
	-- primary-key moves cross partitions
	CREATE TABLE t_p (id int PRIMARY KEY, k int, v text, j jsonb) PARTITION BY RANGE (id);
	CREATE TABLE t_p_neg PARTITION OF t_p FOR VALUES FROM (MINVALUE) TO (1) USING rowcompress;
	CREATE TABLE t_p_low PARTITION OF t_p FOR VALUES FROM (1) TO (100000) USING colcompress;
	CREATE TABLE t_p_mid PARTITION OF t_p FOR VALUES FROM (100000) TO (7000000);
	CREATE TABLE t_p_moved PARTITION OF t_p FOR VALUES FROM (7000000) TO (MAXVALUE)
		USING rowcompress;
	CREATE INDEX ON t_p (k);
	-- children of each, of its access method, whose foreign keys lock the
	-- parent's rows (tuple_lock) and follow their deletes and key moves
	CREATE TABLE c_h (pid int REFERENCES t_h ON DELETE CASCADE ON UPDATE CASCADE, n int);
	CREATE TABLE c_c (pid int REFERENCES t_c ON DELETE CASCADE ON UPDATE CASCADE, n int)
		USING colcompress;
	CREATE TABLE c_r (pid int REFERENCES t_r ON DELETE CASCADE ON UPDATE CASCADE, n int)
		USING rowcompress;
	CREATE TABLE c_p (pid int REFERENCES t_p ON DELETE CASCADE ON UPDATE CASCADE, n int)
		USING colcompress;
	CREATE INDEX ON c_h (pid);
	CREATE INDEX ON c_c (pid);
	CREATE INDEX ON c_r (pid);
	CREATE INDEX ON c_p (pid);
	CREATE SEQUENCE ids INCREMENT BY 1000;

	-- one change, made alike to the three tables or (on an error) to none;
	-- take_turns for READ COMMITTED, where each statement sees the rows
	-- committed when it starts
	CREATE FUNCTION torture_op(op int, take_turns bool DEFAULT false)
	RETURNS void LANGUAGE plpgsql AS $$
	DECLARE
		t text;
		b bigint;
		base int;
		n int := 1 + (random() * 200)::int;
		lo int := 1 + (random() * greatest(
			(SELECT last_value FROM ids) + 1000, 1))::int;
		kids bool := op <= 4 AND random() < 0.5;
	BEGIN
		IF op > 4 AND random() < 0.01 THEN
			-- all three emptied, then not
			BEGIN
				TRUNCATE t_h, t_c, t_r, t_p, c_h, c_c, c_r, c_p;
				INSERT INTO t_c VALUES (-1, 0, 'gone', '{}');
				RAISE EXCEPTION 'undo';
			EXCEPTION WHEN raise_exception THEN
				RETURN;
			END;
		END IF;
		IF op <= 4 THEN
			base := nextval('ids');
			IF op = 4 THEN
				-- sometimes more rows than a stripe
				n := 1000 + (random() * 4000)::int;
			END IF;
		END IF;
		IF take_turns THEN
			-- transactions whose keys may meet take turns (the three
			-- statements of one must see the same rows), in key order
			FOR b IN
				SELECT DISTINCT k FROM (
					SELECT generate_series(base >> 6, (base + n) >> 6) k WHERE op <= 4
					UNION ALL SELECT generate_series((lo - 1) >> 6, (lo + 301) >> 6)
					 WHERE op > 4 OR kids
					UNION ALL SELECT generate_series((-lo - 301) >> 6, (-lo + 1) >> 6) WHERE op > 4
					UNION ALL SELECT generate_series((lo + 7000000) >> 6, (lo + 7000004) >> 6)
					 WHERE op > 4) s
				ORDER BY k
			LOOP
				PERFORM pg_advisory_xact_lock(b);
			END LOOP;
		END IF;
		FOREACH t IN ARRAY ARRAY['t_h', 't_c', 't_r', 't_p'] LOOP
			IF kids THEN
				-- children for some of the rows of another transaction
				EXECUTE format($q$INSERT INTO %I SELECT id, $2 FROM %I
					WHERE id BETWEEN $1 AND $1 + 10$q$,
					'c' || substr(t, 2), t) USING lo, n;
			END IF;
			IF op <= 4 THEN
				-- a few values heap would TOAST
				EXECUTE format($q$INSERT INTO %I SELECT g, g %% 97,
					CASE WHEN g %% 499 = 0 THEN repeat(md5(g::text), 300)
						 ELSE md5(g::text) || repeat('x', g %% 37) END,
					jsonb_build_object('g', g, 'm', g %% 5)
					FROM generate_series($1, $1 + $2 - 1) g$q$, t) USING base, n;
			ELSIF op <= 6 THEN
				EXECUTE format('UPDATE %I SET k = k + 1, v = left(v, 40) || ''u''
					WHERE id BETWEEN $1 AND $1 + 30', t) USING lo;
			ELSIF op = 7 THEN
				EXECUTE format('DELETE FROM %I WHERE id BETWEEN $1 AND $1 + 20', t)
				  USING lo;
			ELSIF op = 8 THEN
				EXECUTE format($q$INSERT INTO %I AS x VALUES ($1, 0, 'upsert', '{}')
					ON CONFLICT (id) DO UPDATE SET k = x.k + 1, j = x.j || '{"up": 1}'$q$, t)
				  USING lo;
			ELSIF op = 9 THEN
				-- a subtransaction that rolls back over rows written before it
				EXECUTE format($q$INSERT INTO %I VALUES (-$1, 1, 'kept', '{}')
					ON CONFLICT DO NOTHING$q$, t) USING lo;
				BEGIN
					EXECUTE format($q$INSERT INTO %I SELECT -g, 2, 'undone', '{}'
						FROM generate_series($1 + 1, $1 + 300) g
						ON CONFLICT DO NOTHING$q$, t) USING lo;
					EXECUTE format('DELETE FROM %I WHERE id BETWEEN $1 AND $1 + 50', t)
					  USING lo;
					RAISE EXCEPTION 'undo';
				EXCEPTION WHEN raise_exception THEN
					NULL;
				END;
			ELSE
				-- moves rows to other keys (a unique violation undoes the call)
				EXECUTE format('UPDATE %I SET id = id + 7000000 WHERE id BETWEEN $1 AND $1 + 3',
							   t) USING lo;
			END IF;
		END LOOP;
	EXCEPTION WHEN unique_violation OR foreign_key_violation OR deadlock_detected
			OR serialization_failure THEN
		NULL;
	END $$;
});

# rounds alternate: REPEATABLE READ transactions, then READ COMMITTED ones
# (which follow rows updated meanwhile, EvalPlanQual) that take turns
# the three tables' shapes change alike: a column added with a volatile
# default (a rewrite) or dropped, a column's type changed back and forth
$node->safe_psql('postgres', q{
	CREATE FUNCTION torture_ddl() RETURNS void LANGUAGE plpgsql AS $$
	DECLARE
		t text;
		op int := (random() * 2)::int;
		k_type text := CASE WHEN random() < 0.5 THEN 'bigint' ELSE 'int' END;
	BEGIN
		FOREACH t IN ARRAY ARRAY['t_h', 't_c', 't_r', 't_p'] LOOP
			IF op = 0 THEN
				EXECUTE format('ALTER TABLE %I ADD COLUMN IF NOT EXISTS x int
					DEFAULT (random() * 0)::int', t);
			ELSIF op = 1 THEN
				EXECUTE format('ALTER TABLE %I DROP COLUMN IF EXISTS x', t);
			ELSE
				EXECUTE format('ALTER TABLE %I ALTER COLUMN k TYPE %s', t, k_type);
			END IF;
		END LOOP;
	END $$;
});

my %workload = (
	rr => q{\set op random(1, 10)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT torture_op(:op);
COMMIT;
},
	rc => q{\set op random(1, 10)
SELECT torture_op(:op, true);
});
test_file("workload_$_.sql", $workload{$_}) for keys %workload;

my $maintenance = test_file('maintenance.sql', q{\set m random(1, 19)
\if :m = 1
VACUUM t_c;
\elif :m = 2
VACUUM t_r;
\elif :m = 3
CALL engine.colcompress_repack('t_c', 0.9);
\elif :m = 4
CALL engine.rowcompress_repack('t_r');
\elif :m = 5
SELECT engine.colcompress_merge('t_c');
\elif :m = 6
CHECKPOINT;
\elif :m = 7
VACUUM t_h;
\elif :m = 8
VACUUM FULL t_r;
\elif :m = 9
VACUUM FULL t_c;
\elif :m = 10
REINDEX INDEX CONCURRENTLY t_c_k_idx;
\elif :m = 11
REINDEX INDEX CONCURRENTLY t_r_k_idx;
\elif :m = 12
CLUSTER t_c USING t_c_pkey;
\elif :m = 13
ANALYZE t_c, t_r;
\elif :m = 14
SELECT torture_ddl();
\elif :m = 15
ALTER TABLE t_c SET (compression = 'lz4', stripe_row_limit = 2000);
\elif :m = 16
ALTER TABLE t_c RESET (compression, stripe_row_limit);
\elif :m = 17
VACUUM FULL t_p;
\elif :m = 18
VACUUM c_c, c_r, c_p;
\else
SELECT pg_sleep(0.2);
\endif
});

# the mirrors and their children differ from heap's in this many rows
my $differences = join(' + ', 'SELECT 0', map {
	my ($h, $m) = @$_;
	"(SELECT count(*) FROM (TABLE $h EXCEPT ALL TABLE $m) d)"
	  . " + (SELECT count(*) FROM (TABLE $m EXCEPT ALL TABLE $h) d)"
} map { (["t_h", "t_$_"], ["c_h", "c_$_"]) } qw(c r p));

# some of the rows that differ, and where they are
my $difference_sample = q{
	SELECT * FROM (
		(SELECT 'heap, not colcompress' w, * FROM (TABLE t_h EXCEPT ALL TABLE t_c) d LIMIT 5)
		UNION ALL (SELECT 'colcompress, not heap', * FROM (TABLE t_c EXCEPT ALL TABLE t_h) d LIMIT 5)
		UNION ALL (SELECT 'heap, not rowcompress', * FROM (TABLE t_h EXCEPT ALL TABLE t_r) d LIMIT 5)
		UNION ALL (SELECT 'rowcompress, not heap', * FROM (TABLE t_r EXCEPT ALL TABLE t_h) d LIMIT 5)
		UNION ALL (SELECT 'heap, not partitioned', * FROM (TABLE t_h EXCEPT ALL TABLE t_p) d LIMIT 5)
		UNION ALL (SELECT 'partitioned, not heap', * FROM (TABLE t_p EXCEPT ALL TABLE t_h) d LIMIT 5)) s
	UNION ALL SELECT 'counts', (SELECT count(*) FROM t_h)::int, (SELECT count(*) FROM t_c)::int,
		(SELECT count(*) FROM t_r)::text, NULL
	UNION ALL SELECT 'children', (SELECT count(*) FROM c_h)::int, (SELECT count(*) FROM c_c)::int,
		(SELECT count(*) FROM c_r)::text, (SELECT jsonb_build_object('p', count(*)) FROM c_p)};

# on the standby, an error (division_by_zero, with some of the rows that
# differ, read with the same snapshot) when they differ (a replay or
# visibility bug) and an answer otherwise; a recovery conflict is retried
$node->safe_psql('postgres', qq{
	CREATE FUNCTION mirrors_alike() RETURNS int LANGUAGE plpgsql AS \$f\$
	DECLARE
		d bigint;
		sample text;
	BEGIN
		EXECUTE \$q\$ $differences \$q\$ INTO d;
		IF d <> 0 THEN
			EXECUTE \$q\$ SELECT string_agg(s::text, '; ') FROM ($difference_sample) s \$q\$
			  INTO sample;
			RAISE EXCEPTION 'the mirrors differ in % rows: %', d, sample
			  USING ERRCODE = 'division_by_zero';
		END IF;
		RETURN 1;
	END \$f\$});
my $standby_check = test_file('standby_check.sql', q{BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT mirrors_alike();
COMMIT;
});

my $fingerprint = q{
	SELECT count(*), md5(string_agg(t::text, ',' ORDER BY t::text))
	  FROM %s t};

# After a crash: the mirrors hold the heap table's rows, verify finds
# nothing, every btree finds every row, every child has its parent, and
# index plans agree with scans
sub check_tables
{
	my ($node, $label) = @_;
	is($node->safe_psql('postgres', $differences), '0',
		"$label: the mirrors hold the heap table's rows")
	  or diag($node->safe_psql('postgres', $difference_sample));
	my $problems = $node->safe_psql('postgres', q{
		SELECT 't_c', v::text FROM engine.colcompress_verify('t_c') v
		UNION ALL SELECT 't_r', v::text FROM engine.rowcompress_verify('t_r') v
		UNION ALL SELECT 'c_c', v::text FROM engine.colcompress_verify('c_c') v
		UNION ALL SELECT 'c_r', v::text FROM engine.rowcompress_verify('c_r') v});
	is($problems, '', "$label: verify finds nothing");
	# a REINDEX CONCURRENTLY the crash stopped leaves its new index (valid
	# or not) or the old one beside the table's
	$node->safe_psql('postgres', q{
		DO $$
		DECLARE i regclass;
		BEGIN
			FOR i IN SELECT indexrelid FROM pg_index
					  WHERE NOT indisvalid OR indexrelid::regclass::text ~ '_cc(new|old)[0-9]*$'
			LOOP
				EXECUTE format('DROP INDEX %s', i);
			END LOOP;
		END $$});
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM (
			SELECT bt_index_check(i.indexrelid, true)
			  FROM pg_index i
			 WHERE i.indrelid IN ('t_c'::regclass, 't_r'::regclass,
								  'c_c'::regclass, 'c_r'::regclass)) c}),
		'6', "$label: amcheck finds every row in every btree");
	is($node->safe_psql('postgres', q{
		SELECT (SELECT count(*) FROM c_c WHERE NOT EXISTS (SELECT FROM t_c WHERE id = pid))
			 + (SELECT count(*) FROM c_r WHERE NOT EXISTS (SELECT FROM t_r WHERE id = pid))
			 + (SELECT count(*) FROM c_p WHERE NOT EXISTS (SELECT FROM t_p WHERE id = pid))}),
		'0', "$label: every child has its parent");
	for my $t ('t_c', 't_r')
	{
		my $scan = $node->safe_psql('postgres',
			"SET enable_indexscan = off; SET enable_bitmapscan = off; "
			  . "SELECT count(*), sum(k) FROM $t WHERE id > 0 AND k >= 0");
		my $index = $node->safe_psql('postgres',
			"SET enable_seqscan = off; SET storage_engine.enable_custom_scan = off; "
			  . "SELECT count(*), sum(k) FROM $t WHERE id > 0 AND k >= 0");
		is($index, $scan, "$label: $t read through its indexes as by a scan");
	}
}

# One round on node: the workload (transactions of mode and maintenance)
# and, on a standby, queries checking it; the node killed at a random
# moment and restarted.  pgbench's clients end in errors when the server
# goes; their output is not checked.
sub crash_round
{
	my ($node, $mode, $label, $standby) = @_;
	my ($out, $err, $sout, $serr) = ('', '', '', '');
	my $h = IPC::Run::start(
		# deadlocks among maintenance commands (REINDEX CONCURRENTLY waiting
		# for VACUUM FULL, which waits for it) are retried, as on heap
		[ 'pgbench', '-n', '-c', '4', '-j', '2', '-T', '60', '--max-tries', '10',
		  '-f', "$ENV{TESTDIR}/workload_$mode.sql\@10", '-f', "$maintenance\@1",
		  $node->connstr('postgres') ],
		'>', \$out, '2>', \$err);
	# every commit the standby replays shows the tables alike
	my $sh = defined($standby) ? IPC::Run::start(
		[ 'pgbench', '-n', '-c', '1', '-T', '60', '--max-tries', '100',
		  '-f', $standby_check, $standby->connstr('postgres') ],
		'>', \$sout, '2>', \$serr) : undef;
	my $wait = 1.0 + rand(3.0);
	select(undef, undef, undef, $wait);
	crash_node($node);
	eval { $h->kill_kill; };
	eval { $sh->kill_kill; } if defined($sh);
	$node->start;

	my $rows = $node->safe_psql('postgres',
		"SELECT (SELECT count(*) FROM t_h) || ' rows, ' || (SELECT count(*) FROM c_h) || ' children'");
	note(sprintf("%s (%s): crashed after %.1f s, %s", $label, $mode, $wait, $rows));
	check_tables($node, $label);
}

# nothing but the expected errors: no internal error, no damaged data
sub server_errors
{
	my ($node, $pattern) = @_;
	my @found = grep { /$pattern/ } split /\n/, slurp_file($node->logfile);
	return join("\n", @found[0 .. ($#found < 20 ? $#found : 19)]);
}

my $internal_errors = qr/ (XX\d\d\d|58\d\d\d|22P0[0-9]) | PANIC: |damaged|TRAP:/;

for my $round (1 .. $rounds)
{
	crash_round($node, $round % 2 ? 'rr' : 'rc', "round $round", $standby);
}

is(server_errors($node, $internal_errors), '',
	'the server logged no internal error and no damage');

# the standby follows the restarted primary and ends equal to it
$node->wait_for_catchup($standby, 'replay');
for my $t ('t_h', 't_c', 't_r', 't_p', 'c_c', 'c_r')
{
	my $q = sprintf($fingerprint, $t);
	is($standby->safe_psql('postgres', $q), $node->safe_psql('postgres', $q),
		"standby: $t equals the primary's");
}
is($standby->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM engine.colcompress_verify('t_c'))
		 + (SELECT count(*) FROM engine.rowcompress_verify('t_r'))}),
	'0', 'standby: verify finds nothing');
is(server_errors($standby, qr/ (22012|XX\d\d\d) | PANIC: |damaged|TRAP:/), '',
	'standby: queries during replay always saw the tables alike, no internal error');

# the tables take writes after all that
$node->safe_psql('postgres', 'SELECT torture_op(4)');
is($node->safe_psql('postgres', $differences), '0',
	'after the rounds: the tables take writes alike');
$node->stop;

# the standby, promoted, takes the same torture: its tables' storage
# (metapages, free space, row numbers) was all written by replay
$standby->promote;
for my $round (1 .. 2)
{
	crash_round($standby, $round % 2 ? 'rr' : 'rc', "promoted, round $round");
}
is(server_errors($standby, $internal_errors), '',
	'promoted: the server logged no internal error and no damage');

$standby->stop;
done_testing();
