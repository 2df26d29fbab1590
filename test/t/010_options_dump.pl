# Table options of colcompress and rowcompress live in pg_class.reloptions,
# so pg_dump writes them into CREATE TABLE ... WITH (...) and a restore must
# give every table the same options back, whether the library is preloaded
# (ProcessUtility hook) or loaded on first use (the extension's event
# triggers handle the statement that loads it).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('options_dump');
$node->init;
$node->start;

my $tempdir = PostgreSQL::Test::Utils::tempdir;

# Everything that has options, as one text to compare.
my $options_query = q{
	SELECT string_agg(format('%s|%s|%s|%s|%s|%s|%s', relation, chunk_group_row_limit,
			stripe_row_limit, compression, compression_level, orderby, index_scan),
			E'\n' ORDER BY relation::text)
	  FROM engine.colcompress_options
	UNION ALL
	SELECT string_agg(format('%s|%s|%s|%s', relation, batch_size, compression,
			compression_level), E'\n' ORDER BY relation::text)
	  FROM engine.rowcompress_options
	UNION ALL
	SELECT string_agg(format('%s|%s', c.relname, c.reloptions), E'\n' ORDER BY c.relname)
	  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	 WHERE n.nspname IN ('public', 'other') AND c.reloptions IS NOT NULL
};

$node->safe_psql('postgres', 'CREATE DATABASE src');
$node->safe_psql('src', 'CREATE EXTENSION storage_engine');
$node->safe_psql(
	'src', q{
	CREATE SCHEMA other;
	CREATE TABLE events (id bigint, "Event Date" date, kind text, payload jsonb)
		USING colcompress
		WITH (compression = 'lz4', compression_level = 9, stripe_row_limit = 50000,
			  chunk_group_row_limit = 5000, orderby = '"Event Date" DESC, kind NULLS FIRST',
			  index_scan = false, autovacuum_enabled = false);
	CREATE TABLE plain_col (a int) USING colcompress;
	CREATE TABLE other.logs (line text) USING rowcompress
		WITH (compression = 'deflate', compression_level = 12, batch_size = 2000);
	CREATE TABLE plain_row (a int) USING rowcompress;
	CREATE TABLE parted (a int, b int) PARTITION BY RANGE (a);
	CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (10)
		USING colcompress WITH (orderby = 'b', compression = 'none');
	CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (10) TO (20)
		USING rowcompress WITH (batch_size = 100);
	CREATE MATERIALIZED VIEW mv USING colcompress WITH (orderby = 'x DESC', compression = 'zstd')
		AS SELECT 1 AS x;
	CREATE TABLE heap_t (a int) WITH (fillfactor = 70);
	CREATE TABLE converted (a int, b text) WITH (fillfactor = 50);
	ALTER TABLE converted SET ACCESS METHOD colcompress, SET (orderby = 'b', compression = 'pglz');
});

my $expected = $node->safe_psql('src', $options_query);
like($expected, qr/events\|5000\|50000\|lz4\|9\|"Event Date" DESC, kind ASC NULLS FIRST\|f/,
	'source options as set');
like($expected, qr/other\.logs\|2000\|deflate\|12/, 'rowcompress options as set');
like($expected, qr/converted\|\{compression=pglz,"orderby=b ASC"\}/,
	'SET ACCESS METHOD kept our options and dropped fillfactor');

my $dump = "$tempdir/src.dump";
my $sql = "$tempdir/src.sql";
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', 'src' ], 'pg_dump custom format');
$node->command_ok([ 'pg_dump', '-Fp', '-f', $sql, '-d', 'src' ], 'pg_dump plain format');

my $plain = slurp_file($sql);
like($plain, qr/compression='?lz4'?, compression_level='9'/, 'dump carries the options');

sub check_restore
{
	my ($db, $how) = @_;
	is($node->safe_psql($db, $options_query), $expected, "$how: same options");
}

# Not preloaded, restore into a new database: CREATE EXTENSION in the dump
# loads the library in the restoring session.
is($node->safe_psql('postgres', 'SHOW shared_preload_libraries'), '', 'not preloaded');
$node->safe_psql('postgres', 'CREATE DATABASE dst1');
$node->command_ok([ 'pg_restore', '-d', 'dst1', $dump ], 'pg_restore into a new database');
check_restore('dst1', 'loaded on first use, new database');

# Not preloaded, the extension already there (created in another session):
# the restoring session loads the library in the middle of a CREATE TABLE.
$node->safe_psql('postgres', 'CREATE DATABASE dst2');
$node->safe_psql('dst2', 'CREATE EXTENSION storage_engine');
$node->command_ok([ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-q', '-d', 'dst2', '-f', $sql ],
	'plain dump into a database that has the extension');
check_restore('dst2', 'loaded on first use, existing extension');

# Loaded on first use, ALTER TABLE: every safe_psql is a new session, which
# loads the library in the middle of the statement.
$node->safe_psql('dst1', 'ALTER TABLE events SET (autovacuum_enabled = true)');
$node->safe_psql('dst1',
	'ALTER TABLE events SET (stripe_row_limit = 60000), RESET (orderby)');
is( $node->safe_psql('dst1', q{SELECT reloptions FROM pg_class WHERE relname = 'events'}),
	'{autovacuum_enabled=true,compression=lz4,compression_level=9,stripe_row_limit=60000,chunk_group_row_limit=5000,index_scan=false}',
	'loaded on first use: ALTER TABLE keeps, sets and resets options');
my ($ret, $out, $err) = $node->psql('dst1', 'ALTER TABLE events SET (fillfactor = 50)');
like($err, qr/parameter "fillfactor" is not supported by access method "colcompress"/,
	'loaded on first use: refusals too');

# Preloaded: the ProcessUtility hook does the work.
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'storage_engine'");
$node->restart;
$node->safe_psql('postgres', 'CREATE DATABASE dst3');
$node->command_ok([ 'pg_restore', '-d', 'dst3', $dump ], 'pg_restore, preloaded');
check_restore('dst3', 'preloaded');

# pg_restore --single-transaction, preloaded, into an existing extension.
$node->safe_psql('postgres', 'CREATE DATABASE dst4');
$node->safe_psql('dst4', 'CREATE EXTENSION storage_engine');
$node->command_ok([ 'pg_restore', '--single-transaction', '-d', 'dst4', $dump ],
	'pg_restore --single-transaction');
check_restore('dst4', 'single transaction');

# The restored tables take further changes.
$node->safe_psql('dst3', q{ALTER TABLE events SET (compression = 'zstd')});
like($node->safe_psql('dst3',
		q{SELECT compression || ' ' || compression_level FROM engine.colcompress_options WHERE relation = 'events'::regclass}),
	qr/^zstd 3$/, 'restored table takes ALTER TABLE ... SET');

$node->stop;
done_testing();
