# wal_level = minimal: a table created or truncated in a transaction is not
# WAL-logged while it is written; PostgreSQL syncs its files at commit, or
# logs them whole when they are smaller than wal_skip_threshold.  Both ways,
# for both access methods, a crash right after the commit keeps exactly the
# committed rows, the metadata (WAL-logged as always) still agrees with the
# pages, indexes point at the right rows, and the tables take writes again.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use StorageEngineTest;

my $node = new_engine_node('wal_minimal', conf => q{
wal_level = minimal
max_wal_senders = 0
});

# Statements per scenario; %s is the table's name, %a its access method.
# Each leaves rows whose digest the test takes before the crash.
my %scenarios = (
	create_load => q{
		BEGIN;
		CREATE TABLE %s (id int, t text) USING %a;
		INSERT INTO %s SELECT g, md5(g::text) FROM generate_series(1, 30000) g;
		COMMIT;
	},
	create_truncate_load => q{
		BEGIN;
		CREATE TABLE %s (id int, t text) USING %a;
		INSERT INTO %s SELECT g, 'gone' FROM generate_series(1, 5000) g;
		TRUNCATE %s;
		INSERT INTO %s SELECT g, md5(g::text) FROM generate_series(1, 20000) g;
		COMMIT;
	},
	truncate_copy => q{
		CREATE TABLE %s (id int, t text) USING %a;
		INSERT INTO %s SELECT g, 'old' FROM generate_series(1, 3000) g;
		BEGIN;
		TRUNCATE %s;
		COPY %s FROM PROGRAM 'seq 1 25000 | sed "s/$/\tcopied/"';
		COMMIT;
	},
	dml_index => q{
		BEGIN;
		CREATE TABLE %s (id int PRIMARY KEY, t text) USING %a;
		INSERT INTO %s SELECT g, md5(g::text) FROM generate_series(1, 20000) g;
		UPDATE %s SET t = 'updated' WHERE id % 7 = 0;
		DELETE FROM %s WHERE id % 11 = 0;
		COMMIT;
	},
	savepoints => q{
		BEGIN;
		CREATE TABLE %s (id int, t text) USING %a;
		INSERT INTO %s SELECT g, 'kept' FROM generate_series(1, 10000) g;
		SAVEPOINT s;
		INSERT INTO %s SELECT g, 'rolled back' FROM generate_series(1, 10000) g;
		ROLLBACK TO s;
		INSERT INTO %s SELECT g, 'after' FROM generate_series(10001, 15000) g;
		COMMIT;
	},
	alter_type => q{
		BEGIN;
		CREATE TABLE %s (id int, t text) USING %a;
		INSERT INTO %s SELECT g, md5(g::text) FROM generate_series(1, 20000) g;
		DELETE FROM %s WHERE id % 3 = 0;
		ALTER TABLE %s ALTER COLUMN id TYPE bigint;
		COMMIT;
	},
	vacuum_full => q{
		CREATE TABLE %s (id int, t text) USING %a;
		INSERT INTO %s SELECT g, md5(g::text) FROM generate_series(1, 20000) g;
		DELETE FROM %s WHERE id % 3 = 0;
		VACUUM FULL %s;
	},
);

my $digest = q{SELECT count(*), sum(id), md5(string_agg(id || t, ',' ORDER BY id)) FROM %s};

for my $threshold ('0', '1GB')
{
	$node->safe_psql('postgres', "ALTER SYSTEM SET wal_skip_threshold = '$threshold'");
	$node->reload;
	my %expected;
	my @tables;
	for my $am ('colcompress', 'rowcompress')
	{
		for my $scenario (sort keys %scenarios)
		{
			my $table = substr($am, 0, 3) . "_${scenario}_" . ($threshold eq '0' ? 'sync' : 'log');
			(my $sql = $scenarios{$scenario}) =~ s/%s/$table/g;
			$sql =~ s/%a/$am/g;
			$node->safe_psql('postgres', $sql);
			$expected{$table} = $node->safe_psql('postgres', sprintf($digest, $table));
			push @tables, [ $table, $am ];
		}
	}
	# crash before any checkpoint could write the pages out
	crash_node($node);
	$node->start;

	for my $t (@tables)
	{
		my ($table, $am) = @$t;
		my $verify = $am eq 'colcompress' ? 'colcompress_verify' : 'rowcompress_verify';
		is($node->safe_psql('postgres', sprintf($digest, $table)), $expected{$table},
			"$table (wal_skip_threshold $threshold): the committed rows after a crash");
		is($node->safe_psql('postgres', "SELECT count(*) FROM engine.$verify('$table')"),
			'0', "$table: $verify is clean");
	}
	for my $t (@tables)
	{
		my ($table) = @$t;
		next unless $table =~ /dml_index/;
		is($node->safe_psql('postgres', qq{
			SET enable_seqscan = off; SET enable_bitmapscan = off;
			SELECT count(*), sum(id) FROM $table WHERE id > 0}),
			$node->safe_psql('postgres', "SELECT count(*), sum(id) FROM $table"),
			"$table: its index finds the recovered rows");
		$node->safe_psql('postgres', "INSERT INTO $table VALUES (100000, 'new')");
		is($node->safe_psql('postgres', "SELECT t FROM $table WHERE id = 100000"),
			'new', "$table: takes writes after recovery");
	}
}

done_testing();
