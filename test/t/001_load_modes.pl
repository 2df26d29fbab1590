# The library works both from shared_preload_libraries and loaded on first
# use, and the extension survives CREATE / DROP / CREATE in both modes.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('load_modes');
$node->init;
$node->start;

sub round_trip
{
	my ($mode) = @_;
	$node->safe_psql('postgres', 'CREATE EXTENSION storage_engine');
	is($node->safe_psql('postgres',
			"SELECT count(*) FROM pg_am WHERE amname IN ('colcompress', 'rowcompress')"),
		'2', "$mode: access methods created");
	like($node->safe_psql('postgres', 'SELECT engine.version()'),
		qr/^storage_engine /, "$mode: library answers");
	$node->safe_psql('postgres', 'DROP EXTENSION storage_engine');
	is($node->safe_psql('postgres',
			"SELECT count(*) FROM pg_namespace WHERE nspname = 'engine'"),
		'0', "$mode: schema dropped with the extension");
	$node->safe_psql('postgres', 'CREATE EXTENSION storage_engine');
	is($node->safe_psql('postgres', "SELECT count(*) FROM pg_extension WHERE extname = 'storage_engine'"),
		'1', "$mode: re-created");
	$node->safe_psql('postgres', 'DROP EXTENSION storage_engine');
}

# Loaded on first use.
is($node->safe_psql('postgres', 'SHOW shared_preload_libraries'), '',
	'not preloaded');
round_trip('loaded on first use');

# Preloaded: the prefix is reserved from postmaster start.
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'storage_engine'");
$node->restart;
is($node->safe_psql('postgres', 'SHOW shared_preload_libraries'),
	'storage_engine', 'preloaded');
my ($ret, $out, $err) = $node->psql('postgres', 'SET storage_engine.no_such_parameter = 1');
isnt($ret, 0, 'unknown parameter under the reserved prefix is refused');
like($err, qr/invalid configuration parameter name/, 'with a clear message');
round_trip('preloaded');

$node->stop;
done_testing();
