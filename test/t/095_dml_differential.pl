# Differential DML fuzzing (test/fuzz/dml_differential.py): random
# statements and transactions on heap, colcompress and rowcompress tables
# give the same results and leave the same rows, with autovacuum visiting
# the tables every second as they change (a VACUUM that rewrote a table
# under a statement's snapshot once failed that statement).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

# the system's Python: the tests run as the PostgreSQL OS user, who may not
# reach the project's virtual environment
my $python = '/usr/bin/python3';
plan skip_all => "no $python with psycopg (scripts/install-deps.sh installs python3-psycopg)"
  unless -x $python && system($python, '-c', 'import psycopg') == 0;

my $node = PostgreSQL::Test::Cluster->new('dml_differential');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'storage_engine'
autovacuum_naptime = 1
autovacuum_vacuum_threshold = 100
autovacuum_vacuum_scale_factor = 0
autovacuum_vacuum_insert_threshold = 100
autovacuum_vacuum_insert_scale_factor = 0
autovacuum_analyze_threshold = 100
autovacuum_analyze_scale_factor = 0
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION storage_engine');

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

$node->stop;
done_testing();
