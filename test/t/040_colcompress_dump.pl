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

$node->stop;
done_testing();
