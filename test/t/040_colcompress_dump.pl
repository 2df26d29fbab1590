# pg_dump / pg_restore of a database with colcompress tables restores
# identical data and the tables' access method.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use StorageEngineTest;

my $node = new_engine_node('dump');
$node->safe_psql('postgres', q{
	CREATE TABLE d1 (id int, label text, v numeric, j jsonb) USING colcompress;
	INSERT INTO d1 SELECT g, 'l' || g % 10, g / 3.0, jsonb_build_object('g', g)
	  FROM generate_series(1, 50000) g;
	INSERT INTO d1 VALUES (NULL, NULL, NULL, NULL);
	CREATE TABLE p (k int, v int) PARTITION BY RANGE (k);
	CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (1000) USING colcompress;
	INSERT INTO p SELECT g, g FROM generate_series(0, 999) g;
	CREATE MATERIALIZED VIEW mv USING colcompress AS SELECT label, count(*) FROM d1 GROUP BY label;
});

my $dump = "$PostgreSQL::Test::Utils::tmp_check/colcompress.dump";
$node->command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('postgres') ],
	'pg_dump');
$node->safe_psql('postgres', 'CREATE DATABASE restored');
$node->command_ok([ 'pg_restore', '-d', $node->connstr('restored'), $dump ],
	'pg_restore');

my @queries = (
	"SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname IN ('d1', 'p1', 'mv') ORDER BY 1",
	'SELECT md5(string_agg(d1::text, \',\' ORDER BY id NULLS FIRST)) FROM d1',
	'SELECT count(*), sum(v) FROM p',
	'SELECT * FROM mv ORDER BY label',
);
foreach my $q (@queries)
{
	is($node->safe_psql('restored', $q), $node->safe_psql('postgres', $q),
		"restored database agrees: $q");
}
is($node->safe_psql('restored', "SELECT count(*) FROM engine.colcompress_verify('d1')"),
	'0', 'restored table verifies clean');

# A restore into a database that already has tables of ours, more than the
# dumped one: the restored tables and those created afterwards take storage
# ids nobody holds (a dumped sequence position would set the target's back,
# and the next table would share another's metadata).
$node->safe_psql('postgres', 'CREATE DATABASE busy');
$node->safe_psql('busy', q{
	CREATE EXTENSION storage_engine;
	CREATE TABLE b1 (a int) USING colcompress;
	CREATE TABLE b2 (a int) USING rowcompress;
	CREATE TABLE b3 (a int) USING colcompress;
	CREATE TABLE b4 (a int) USING rowcompress;
	CREATE TABLE b5 (a int) USING colcompress;
	CREATE TABLE b6 (a int) USING colcompress;
	INSERT INTO b1 VALUES (1); INSERT INTO b2 VALUES (2); INSERT INTO b3 VALUES (3);
	INSERT INTO b4 VALUES (4); INSERT INTO b5 VALUES (5); INSERT INTO b6 VALUES (6);
});
# CREATE EXTENSION fails there (it exists); pg_restore goes on and exits 1
run_log([ 'pg_restore', '-d', $node->connstr('busy'), $dump ]);
$node->safe_psql('busy', q{
	CREATE TABLE after1 (a int) USING colcompress;
	INSERT INTO after1 VALUES (7);
	CREATE TABLE after2 (a int) USING rowcompress;
	INSERT INTO after2 VALUES (8);
});
is(storage_id_counts($node, 'busy'), '11|11', 'restored and later tables have storage ids of their own');
is($node->safe_psql('busy',
		'SELECT (SELECT sum(a) FROM b1) + (SELECT sum(a) FROM b2) + (SELECT sum(a) FROM b3) + '
		  . '(SELECT sum(a) FROM b4) + (SELECT sum(a) FROM b5) + (SELECT sum(a) FROM b6), '
		  . '(SELECT sum(a) FROM after1), (SELECT sum(a) FROM after2)'),
	'21|7|8', 'tables of the busy database keep their own rows');
is($node->safe_psql('busy', $queries[1]), $node->safe_psql('postgres', $queries[1]),
	'the busy database restored d1 whole');

$node->stop;
done_testing();
