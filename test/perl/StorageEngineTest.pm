# Shared set-up of the project's TAP tests: a node with the extension.
package StorageEngineTest;

use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use Exporter 'import';

our @EXPORT = qw(new_engine_node crash_node storage_id_counts test_file);

# A started node with storage_engine preloaded and created in "postgres";
# conf => "..." adds settings to postgresql.conf, the rest goes to init.
sub new_engine_node
{
	my ($name, %params) = @_;
	my $conf = delete $params{conf} // '';
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init(%params);
	$node->append_conf('postgresql.conf', "shared_preload_libraries = 'storage_engine'\n$conf");
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION storage_engine');
	return $node;
}

# SIGKILL the postmaster and every process it started, as a power loss or
# the OOM killer would (killing only the postmaster leaves its backends
# running, and they would go on to commit).
sub crash_node
{
	my ($node) = @_;
	my $pid = $node->{_pid} or die 'node is not running';
	my @children = split /\s+/, `ps -o pid= --ppid $pid`;
	kill 'KILL', $pid;
	kill 'KILL', grep { /^\d+$/ } @children;
	# wait until they are all gone
	for my $i (1 .. 100)
	{
		last unless kill 0, $pid, grep { /^\d+$/ } @children;
		select(undef, undef, undef, 0.1);
	}
	# the node object thinks the server is still up
	$node->{_pid} = undef;
	unlink $node->data_dir . '/postmaster.pid';
}

# Writes $text to the file $name in the test's directory (a pgbench
# script, say); returns its path.
sub test_file
{
	my ($name, $text) = @_;
	my $path = "$ENV{TESTDIR}/$name";
	open(my $fh, '>', $path) or die "could not write $path: $!";
	print $fh $text;
	close($fh);
	return $path;
}

# "N|M": the tables of ours in database $db that hold a storage id, and the
# distinct ids among them; equal unless two tables share metadata.
sub storage_id_counts
{
	my ($node, $db) = @_;
	return $node->safe_psql($db, q{
		SELECT count(s.id), count(DISTINCT s.id)
		  FROM pg_class c JOIN pg_am a ON a.oid = c.relam,
			   LATERAL engine.storage_id(c.oid) s(id)
		 WHERE a.amname IN ('colcompress', 'rowcompress')});
}

1;
