# Differential DML fuzzing (test/fuzz/dml_differential.py): random
# statements and transactions on heap, colcompress and rowcompress tables
# give the same results and leave the same rows, with autovacuum visiting
# the tables every second as they change (a VACUUM that rewrote a table
# under a statement's snapshot once failed that statement), and under
# concurrent upserts.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use StorageEngineTest;
use IPC::Run;

# the system's Python: the tests run as the PostgreSQL OS user, who may not
# reach the project's virtual environment
my $python = '/usr/bin/python3';
plan skip_all => "no $python with psycopg (scripts/install-deps.sh installs python3-psycopg)"
  unless -x $python && system($python, '-c', 'import psycopg') == 0;

my $node = new_engine_node('dml_differential', conf => q{
autovacuum_naptime = 1
autovacuum_vacuum_threshold = 100
autovacuum_vacuum_scale_factor = 0
autovacuum_vacuum_insert_threshold = 100
autovacuum_vacuum_insert_scale_factor = 0
autovacuum_analyze_threshold = 100
autovacuum_analyze_scale_factor = 0
});

for my $seed (1 .. 4)
{
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run(
		[ $python, "$ENV{SE_ROOT}/test/fuzz/dml_differential.py",
		  $node->connstr('postgres'), $seed, 150 ],
		'>', \$out, '2>', \$err);
	ok($ok, "seed $seed: heap, colcompress and rowcompress agree")
	  or diag("$out$err");
}

# Concurrent upserts and deletes of a few keys.  (a) Statement by statement,
# as applications send them: no transaction fails (two sessions inserting
# one key each waited for the other's transaction, a deadlock, before
# killed rows and the speculative insertion lock).  Their results may
# differ between the tables: under READ COMMITTED a DELETE of a key not
# there yet takes no lock, and the transaction's next statement may see a
# row its first did not, on heap as on ours.  (b) Each transaction one
# statement over the three tables (one snapshot): the three end alike.
$node->safe_psql('postgres', q{
	CREATE TABLE up_h (id int PRIMARY KEY, v int);
	CREATE TABLE up_c (id int PRIMARY KEY, v int) USING colcompress;
	CREATE TABLE up_r (id int PRIMARY KEY, v int) USING rowcompress;
});

# runs pgbench with script on the node; its output
sub race
{
	my ($name, $text, @options) = @_;
	my $script = test_file("$name.sql", $text);
	my ($out, $err) = ('', '');
	IPC::Run::run([ 'pgbench', '-n', '-c', '8', '-j', '2', '-T', '8', '--failures-detailed', @options, '-f', "$script\@20",
					$node->connstr('postgres') ], '>', \$out, '2>', \$err);
	return "$out$err";
}

my $out = race('statements', q{\set id random(1, 6)
\set op random(1, 10)
BEGIN;
\if :op <= 7
INSERT INTO up_c VALUES (:id, 1) ON CONFLICT (id) DO UPDATE SET v = up_c.v + 1;
INSERT INTO up_r VALUES (:id, 1) ON CONFLICT (id) DO UPDATE SET v = up_r.v + 1;
INSERT INTO up_h VALUES (:id, 1) ON CONFLICT (id) DO UPDATE SET v = up_h.v + 1;
\else
DELETE FROM up_c WHERE id = :id;
DELETE FROM up_r WHERE id = :id;
DELETE FROM up_h WHERE id = :id;
\endif
COMMIT;
});
like($out, qr/number of deadlock failures: 0 /,
	'concurrent upserts and deletes, statement by statement: no deadlock')
  or diag($out);
# A unique check once read a committing stripe before its chunks were
# written ("metadata table engine.chunk is damaged"), and missed a row whose
# writer committed between its two looks (the stream, then the reservation):
# a duplicate got in, and a later upsert of the key failed on it.
unlike($out, qr/ERROR:/,
	'concurrent upserts and deletes, statement by statement: no statement fails')
  or diag($out);

# The same on fewer keys, one table per transaction, where those races came
# most often.
$node->safe_psql('postgres', 'TRUNCATE up_c, up_r');
$out = race('few_keys', q{\set id random(1, 3)
\set op random(1, 10)
\set t random(1, 2)
BEGIN;
\if :t = 1
\if :op <= 7
INSERT INTO up_c VALUES (:id, 1) ON CONFLICT (id) DO UPDATE SET v = up_c.v + 1;
\else
DELETE FROM up_c WHERE id = :id;
\endif
\else
\if :op <= 7
INSERT INTO up_r VALUES (:id, 1) ON CONFLICT (id) DO UPDATE SET v = up_r.v + 1;
\else
DELETE FROM up_r WHERE id = :id;
\endif
\endif
COMMIT;
});
unlike($out, qr/ERROR:/, 'upserts and deletes of three keys: no statement fails')
  or diag($out);
is($node->safe_psql('postgres', q{
	SET enable_indexscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM (SELECT id FROM up_c GROUP BY id HAVING count(*) > 1
		UNION ALL SELECT id FROM up_r GROUP BY id HAVING count(*) > 1) d}),
	'0', 'upserts and deletes of three keys: no key twice');

$node->safe_psql('postgres', 'TRUNCATE up_h, up_c, up_r');
$out = race('one_statement', q{\set id random(1, 6)
\set op random(1, 10)
\if :op <= 7
WITH c AS (INSERT INTO up_c VALUES (:id, 1) ON CONFLICT (id) DO UPDATE SET v = up_c.v + 1 RETURNING 1),
	 r AS (INSERT INTO up_r VALUES (:id, 1) ON CONFLICT (id) DO UPDATE SET v = up_r.v + 1 RETURNING 1)
INSERT INTO up_h VALUES (:id, 1) ON CONFLICT (id) DO UPDATE SET v = up_h.v + 1;
\else
WITH c AS (DELETE FROM up_c WHERE id = :id RETURNING 1), r AS (DELETE FROM up_r WHERE id = :id RETURNING 1)
DELETE FROM up_h WHERE id = :id;
\endif
});
like($out, qr/number of failed transactions: 0 /,
	'concurrent upserts and deletes, one statement each: no transaction fails')
  or diag($out);
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM (SELECT * FROM up_c EXCEPT SELECT * FROM up_h
		UNION ALL SELECT * FROM up_h EXCEPT SELECT * FROM up_c
		UNION ALL SELECT * FROM up_r EXCEPT SELECT * FROM up_h
		UNION ALL SELECT * FROM up_h EXCEPT SELECT * FROM up_r) d}),
	'0', 'concurrent upserts and deletes, one statement each: the three tables end alike');

# Foreign keys under concurrency, both access methods: children inserted
# and moved between parents while parents are deleted (cascading) and
# inserted again.  Only foreign key and unique violations may fail a
# statement (the function swallows them); no child may end without its
# parent.  Every UPDATE of a child once failed ("cannot retrieve a system
# column"), and bank transfers check that concurrent updates of one row
# lose none (EvalPlanQual): the balances' sum stays.  Two transfers may
# lock their two rows in opposite orders, as on heap: such a deadlock is
# retried.
$node->safe_psql('postgres', q{
	CREATE TABLE fk_parent_c (id int PRIMARY KEY, n int) USING colcompress;
	CREATE TABLE fk_child_c (cid serial PRIMARY KEY,
		pid int REFERENCES fk_parent_c ON DELETE CASCADE, v int) USING colcompress;
	CREATE INDEX ON fk_child_c (pid);
	CREATE TABLE fk_parent_r (id int PRIMARY KEY, n int) USING rowcompress;
	CREATE TABLE fk_child_r (cid serial PRIMARY KEY,
		pid int REFERENCES fk_parent_r ON DELETE CASCADE, v int) USING rowcompress;
	CREATE INDEX ON fk_child_r (pid);
	INSERT INTO fk_parent_c SELECT g, 0 FROM generate_series(1, 10) g;
	INSERT INTO fk_parent_r SELECT g, 0 FROM generate_series(1, 10) g;
	CREATE FUNCTION fk_op(t text, op int, k int) RETURNS void LANGUAGE plpgsql AS $$
	BEGIN
		IF op <= 5 THEN
			EXECUTE format('INSERT INTO fk_child_%s (pid, v) VALUES ($1, 1)', t) USING k;
		ELSIF op <= 7 THEN
			EXECUTE format('DELETE FROM fk_parent_%s WHERE id = $1', t) USING k;
		ELSIF op <= 9 THEN
			EXECUTE format('INSERT INTO fk_parent_%s VALUES ($1, 0)
				ON CONFLICT (id) DO UPDATE SET n = fk_parent_%s.n + 1', t, t) USING k;
		ELSE
			EXECUTE format('UPDATE fk_child_%s SET pid = $1
				WHERE cid = (SELECT max(cid) FROM fk_child_%s)', t, t) USING k;
		END IF;
	EXCEPTION WHEN foreign_key_violation OR unique_violation THEN
		NULL;
	END $$;
	CREATE TABLE acc_c (id int PRIMARY KEY, bal int) USING colcompress;
	CREATE TABLE acc_r (id int PRIMARY KEY, bal int) USING rowcompress;
	INSERT INTO acc_c SELECT g, 1000 FROM generate_series(1, 20) g;
	INSERT INTO acc_r SELECT g, 1000 FROM generate_series(1, 20) g;
});
# VACUUM and repacks of the tables meanwhile: a transfer following a row
# to a version a repack moved since its snapshot once failed with
# "unexpected table_tuple_lock status" instead of the serialization
# failure (retried here) a concurrent rewrite gives.
my $maintenance = test_file('maintenance.sql', q{\set m random(1, 4)
\if :m = 1
VACUUM acc_c;
\elif :m = 2
VACUUM acc_r;
\elif :m = 3
CALL engine.colcompress_repack('acc_c', 0.9);
\else
CALL engine.rowcompress_repack('acc_r');
\endif
});
$out = race('foreign_keys', q{\set k random(1, 10)
\set op random(1, 10)
\set t random(1, 2)
\set a random(1, 20)
\set b random(1, 20)
\set x random(1, 100)
\if :t = 1
SELECT fk_op('c', :op, :k);
UPDATE acc_c SET bal = bal + CASE WHEN id = :a THEN -:x ELSE :x END WHERE id IN (:a, :b) AND :a <> :b;
\else
SELECT fk_op('r', :op, :k);
UPDATE acc_r SET bal = bal + CASE WHEN id = :a THEN -:x ELSE :x END WHERE id IN (:a, :b) AND :a <> :b;
\endif
}, '--max-tries', '10', '-f', "$maintenance\@1");
unlike($out, qr/ERROR:/, 'foreign keys and transfers under concurrency: no statement fails')
  or diag($out);
is($node->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM fk_child_c c
			WHERE NOT EXISTS (SELECT FROM fk_parent_c p WHERE p.id = c.pid))
		 + (SELECT count(*) FROM fk_child_r c
			WHERE NOT EXISTS (SELECT FROM fk_parent_r p WHERE p.id = c.pid))}),
	'0', 'foreign keys under concurrency: no child without its parent');
is($node->safe_psql('postgres',
	'SELECT (SELECT sum(bal) FROM acc_c) || \',\' || (SELECT sum(bal) FROM acc_r)'),
	'20000,20000', 'concurrent transfers: no update lost');

$node->stop;
done_testing();
