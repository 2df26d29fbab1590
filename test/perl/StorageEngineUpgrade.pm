# pg_upgrade of a cluster holding colcompress and rowcompress tables, and
# the checks that the upgraded cluster keeps them attached to their
# metadata (test/t/080_pg_upgrade.pl, 081_pg_upgrade_from15.pl).
package StorageEngineUpgrade;

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use StorageEngineTest;
use Exporter 'import';

our @EXPORT = qw(upgrade_and_check);

# Tables of both kinds with several stripes and batches, deleted and
# updated rows, user types (whose OIDs the zone maps record), indexes.
my $fill = q{
	CREATE EXTENSION storage_engine;
	CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
	CREATE DOMAIN posint AS int CHECK (VALUE > 0);
	CREATE TABLE c (id int, d date, m mood, p posint, t text COLLATE "C",
					j jsonb, amount numeric(12,2), tags text[])
	  USING colcompress WITH (stripe_row_limit = 20000, chunk_group_row_limit = 5000,
							  orderby = 'd ASC', compression_level = 5);
	INSERT INTO c SELECT g, date '2024-01-01' + g % 300,
		(ARRAY['sad', 'ok', 'happy']::mood[])[g % 3 + 1], g % 1000 + 1,
		'name ' || g % 97, jsonb_build_object('k', g % 13, 'g', g), g * 1.25,
		ARRAY['t' || g % 7, 'u' || g % 5]
	  FROM generate_series(1, 70000) g;
	CREATE INDEX c_id ON c (id);
	CREATE INDEX c_j ON c USING gin (j jsonb_path_ops);
	DELETE FROM c WHERE id % 10 = 0;
	UPDATE c SET amount = amount + 1 WHERE id % 7 = 0;
	CREATE TABLE r (id int PRIMARY KEY, v text, j jsonb)
	  USING rowcompress WITH (batch_size = 3000, compression = 'lz4');
	INSERT INTO r SELECT g, md5(g::text), jsonb_build_object('g', g)
	  FROM generate_series(1, 20000) g;
	DELETE FROM r WHERE id % 9 = 0;
	CREATE TABLE gone (a int) USING colcompress;
	INSERT INTO gone VALUES (1);
	DROP TABLE gone;
	CREATE TABLE empty_c (a int) USING colcompress;
};

my $index_only = 'SET enable_seqscan = off; SET enable_bitmapscan = off; '
  . 'SET storage_engine.enable_custom_scan = off; ';
my @queries = (
	'SELECT md5(string_agg(c::text, \',\' ORDER BY id)) FROM c',
	'SELECT m, count(*), sum(amount), min(t), max(d) FROM c GROUP BY m ORDER BY m',
	$index_only . 'SELECT count(*), sum(amount) FROM c WHERE id BETWEEN 1000 AND 1500',
	'SELECT count(*) FROM c WHERE j @> \'{"k": 3}\'',
	'SELECT count(*) FROM c WHERE d BETWEEN \'2024-03-01\' AND \'2024-03-10\'',
	'SELECT md5(string_agg(r::text, \',\' ORDER BY id)) FROM r',
	$index_only . 'SELECT v FROM r WHERE id = 4242',
	'SELECT count(*) FROM empty_c',
	'SELECT chunk_group_row_limit, stripe_row_limit, compression, compression_level, orderby '
	  . 'FROM engine.colcompress_options WHERE relation = \'c\'::regclass',
	'SELECT row_count, chunk_group_count FROM engine.colcompress_stripes '
	  . 'WHERE relation = \'c\'::regclass ORDER BY first_row_number',
	'SELECT batch_size, compression FROM engine.rowcompress_options WHERE relation = \'r\'::regclass',
	'SELECT count(*), sum(row_count) FROM engine.rowcompress_batches WHERE relation = \'r\'::regclass',
	"SELECT count(*) FROM engine.colcompress_verify('c')",
	"SELECT count(*) FROM engine.rowcompress_verify('r')",
);

# Fills $old (a node not yet initialized), runs $old_fixup (SQL, or undef)
# in it, upgrades it into a new node initialized with %new_init, and checks
# the result; $label names the tests.
sub upgrade_and_check
{
	my ($label, $old, $old_fixup, %new_init) = @_;

	$old->init;
	$old->append_conf('postgresql.conf', "shared_preload_libraries = 'storage_engine'");
	$old->start;
	$old->safe_psql('postgres', $fill);
	my %before = map { $_ => $old->safe_psql('postgres', $_) } @queries;
	$old->safe_psql('postgres', $old_fixup) if $old_fixup;
	$old->stop;

	my $new = PostgreSQL::Test::Cluster->new("${label}_new");
	$new->init(%new_init);
	$new->append_conf('postgresql.conf', "shared_preload_libraries = 'storage_engine'");

	# pg_upgrade writes its logs in the current directory and the new data
	# directory; it must run as the clusters' owner, as this script does
	command_ok(
		[
			$new->config_data('--bindir') . '/pg_upgrade', '--no-sync',
			'-d', $old->data_dir, '-D', $new->data_dir,
			'-b', $old->config_data('--bindir'),
			'-B', $new->config_data('--bindir'),
			'-s', $new->host, '-p', $old->port, '-P', $new->port
		],
		"$label: pg_upgrade");
	$new->start;

	foreach my $q (@queries)
	{
		is($new->safe_psql('postgres', $q), $before{$q}, "$label: upgraded cluster agrees: $q");
	}
	like($new->safe_psql('postgres', "${index_only}EXPLAIN (COSTS OFF) SELECT * FROM c WHERE id = 5"),
		qr/Index Scan using c_id/, "$label: the index is used");

	$new->safe_psql('postgres', q{
		CREATE EXTENSION amcheck;
		SELECT bt_index_check('c_id'), bt_index_check('r_pkey');
	});
	pass("$label: btree indexes check clean");

	# the upgraded tables take writes, and VACUUM
	$new->safe_psql('postgres', q{
		INSERT INTO c (id, d, m, p, t, amount) SELECT g, date '2025-01-01', 'ok', 1, 'new', 1
		  FROM generate_series(70001, 71000) g;
		UPDATE c SET amount = 0 WHERE id BETWEEN 1 AND 100;
		DELETE FROM c WHERE id BETWEEN 101 AND 200;
		INSERT INTO r SELECT g, 'new' FROM generate_series(20001, 21000) g;
		DELETE FROM r WHERE id <= 100;
		VACUUM c;
		VACUUM r;
	});
	is($new->safe_psql('postgres',
			'SELECT count(*), sum(amount) FILTER (WHERE id <= 100), count(*) FILTER (WHERE id > 70000) FROM c'),
		'63910|0.00|1000', "$label: the colcompress table took writes");
	is($new->safe_psql('postgres', $index_only . 'SELECT count(*) FROM r WHERE id > 20000'),
		'1000', "$label: the rowcompress table took writes");

	# a table created after the upgrade does not take an existing storage id
	$new->safe_psql('postgres', q{
		CREATE TABLE after_c (a int) USING colcompress;
		INSERT INTO after_c SELECT generate_series(1, 10);
		CREATE TABLE after_r (a int) USING rowcompress;
		INSERT INTO after_r SELECT generate_series(1, 10);
	});
	is(storage_id_counts($new, 'postgres'), '4|4', "$label: new tables have storage ids of their own");
	is($new->safe_psql('postgres',
			'SELECT (SELECT count(*) FROM c), (SELECT count(*) FROM r), '
			  . '(SELECT sum(a) FROM after_c), (SELECT sum(a) FROM after_r)'),
		'63910|18689|55|55', "$label: old and new tables keep their own rows");
	is($new->safe_psql('postgres',
			"SELECT (SELECT count(*) FROM engine.colcompress_verify('c')) + "
			  . "(SELECT count(*) FROM engine.rowcompress_verify('r'))"),
		'0', "$label: verification after writes is clean");
	$new->stop;
}

1;
