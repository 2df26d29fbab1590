# Autovacuum and autoanalyze look after colcompress and rowcompress tables
# as after heap: the access methods count inserted, updated and deleted
# rows as heap does, so that a table where single-row UPDATEs leave a
# stripe or batch per transaction and dead rows behind is vacuumed (its
# small stripes merged, its dead rows dropped, its statistics brought up
# to date) without anyone running VACUUM.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use StorageEngineTest;

my $node = new_engine_node('autovacuum', conf => q{
autovacuum_naptime = 1
autovacuum_vacuum_threshold = 50
autovacuum_vacuum_scale_factor = 0.05
autovacuum_analyze_threshold = 50
autovacuum_analyze_scale_factor = 0.05
});

for my $am ('colcompress', 'rowcompress')
{
	my $t = "churn_$am";
	$node->safe_psql('postgres', qq{
		CREATE TABLE $t (id int PRIMARY KEY, v int) USING $am;
		ALTER TABLE $t SET (autovacuum_enabled = off);
		INSERT INTO $t SELECT g, 0 FROM generate_series(1, 2000) g;
	});
	# 400 single-row updates, a transaction each: a stripe or batch each
	$node->safe_psql('postgres', qq{
		DO \$\$
		BEGIN
			FOR i IN 1..400 LOOP
				UPDATE $t SET v = v + 1 WHERE id = i;
				COMMIT;
			END LOOP;
		END \$\$;
		DELETE FROM $t WHERE id > 1900;
	});
	my $view = $am eq 'colcompress' ? 'colcompress_stripes' : 'rowcompress_batches';
	my $units = "SELECT count(*) FROM engine.$view WHERE relation = '$t'::regclass";
	cmp_ok($node->safe_psql('postgres', $units), '>', 400,
		"$am: single-row updates left a unit each");
	$node->safe_psql('postgres', 'SELECT pg_stat_force_next_flush()');
	is($node->safe_psql('postgres',
			"SELECT n_tup_upd, n_tup_del, n_dead_tup >= 500 FROM pg_stat_user_tables WHERE relname = '$t'"),
		'400|100|t', "$am: updates, deletes and dead rows counted");

	# now let autovacuum at it
	$node->safe_psql('postgres', "ALTER TABLE $t RESET (autovacuum_enabled)");
	ok($node->poll_query_until('postgres',
			"SELECT autovacuum_count > 0 AND autoanalyze_count > 0 FROM pg_stat_user_tables WHERE relname = '$t'"),
		"$am: autovacuum and autoanalyze ran");
	cmp_ok($node->safe_psql('postgres', $units), '<', 10,
		"$am: autovacuum merged the small units");
	is($node->safe_psql('postgres',
			"SELECT count(*), sum(v) FROM $t"),
		'1900|400', "$am: the rows are intact");
	is($node->safe_psql('postgres',
			"SELECT reltuples FROM pg_class WHERE relname = '$t'"),
		'1900', "$am: reltuples counts the live rows");
	is($node->safe_psql('postgres',
			"SELECT count(*) FROM engine.${am}_verify('$t')"),
		'0', "$am: verify is clean");
}

$node->stop;
done_testing();
