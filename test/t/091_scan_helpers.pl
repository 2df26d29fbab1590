# Scan helpers (storage_engine.scan_helpers) around a query: they live as
# long as their session, or until idle too long; a cancel or an error in
# the leader stops them; a helper that dies leaves an error, never a short
# result; a helper whose lock is not free declines instead of waiting, so a
# queued ALTER TABLE cannot leave the leader waiting for its helper; and a
# database whose sessions ended can be dropped at once.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use StorageEngineTest;

my $node = new_engine_node('scan_helpers', allows_streaming => 1, conf => q{
storage_engine.scan_helpers = 2
max_parallel_workers_per_gather = 2
parallel_setup_cost = 0
parallel_tuple_cost = 0
min_parallel_table_scan_size = 0
});
$node->safe_psql('postgres', q{
	CREATE TABLE big (g int, x int, t text) USING colcompress
		WITH (stripe_row_limit = 5000, chunk_group_row_limit = 1000);
	INSERT INTO big SELECT i % 10, i, md5(i::text) FROM generate_series(1, 100000) i;
	ANALYZE big;
	-- slows a scan down: 0.2 ms a row the filter keeps
	CREATE FUNCTION slow(x int) RETURNS bool LANGUAGE plpgsql PARALLEL SAFE AS $$
	BEGIN
		PERFORM pg_sleep(0.0002);
		RETURN true;
	END $$;
});
my $expected = $node->safe_psql('postgres', q{
	SET max_parallel_workers_per_gather = 0;
	SELECT count(*), sum(x) FROM big});
my $agg = 'SELECT count(*), sum(x) FROM big';
my $slow = 'SELECT count(*) FROM big WHERE x % 3 = 0 AND slow(x)';

# The helpers of the session with backend pid $pid, in state $state if given.
sub helpers_of
{
	my ($pid, $state) = @_;
	my $cond = defined $state ? "AND state = '$state'" : '';
	return $node->safe_psql('postgres', qq{
		SELECT count(*) FROM pg_stat_activity
		 WHERE backend_type = 'storage_engine scan helper'
		   AND application_name = 'storage_engine scan helper for PID $pid' $cond});
}

# Helpers that joined one run of $sql in session $s, the leader waiting for
# its helpers (they start with the session's first helped query).
sub joined_in
{
	my ($s, $sql) = @_;
	my $plan = $s->query_safe(qq{
		SET parallel_leader_participation = off;
		EXPLAIN (ANALYZE, FORMAT JSON) $sql;
		RESET parallel_leader_participation;});
	return $plan =~ /"Helpers Joined": (\d+)/ ? $1 : die "no helpers in $plan";
}

# --- helpers live with their session ---
my $s = $node->background_psql('postgres', on_error_stop => 0);
my $pid = $s->query_safe('SELECT pg_backend_pid()');
is($s->query_safe($agg), $expected, 'helped aggregation equals the serial one');
cmp_ok(joined_in($s, $agg), '>=', 1, 'helpers took part');
cmp_ok(helpers_of($pid), '>=', 1, 'the session keeps its helpers between queries');
$s->quit;
ok($node->poll_query_until('postgres', qq{
	SELECT count(*) = 0 FROM pg_stat_activity
	 WHERE application_name = 'storage_engine scan helper for PID $pid'}),
	'helpers exit when their session ends');

# --- and not longer than the idle timeout ---
$s = $node->background_psql('postgres', on_error_stop => 0);
$pid = $s->query_safe('SELECT pg_backend_pid()');
$s->query_safe("SET storage_engine.scan_helper_idle_timeout = '300ms'");
cmp_ok(joined_in($s, $agg), '>=', 1, 'helpers took part (short idle timeout)');
ok($node->poll_query_until('postgres', qq{
	SELECT count(*) = 0 FROM pg_stat_activity
	 WHERE application_name = 'storage_engine scan helper for PID $pid'}),
	'idle helpers exit after storage_engine.scan_helper_idle_timeout');
is($s->query_safe($agg), $expected, 'the session starts helpers again when it needs them');

# --- a cancel in the leader stops its helpers ---
$s->query_safe("RESET storage_engine.scan_helper_idle_timeout");
cmp_ok(joined_in($s, $agg), '>=', 1, 'helpers running before the cancel');
$s->{stderr} = '';
$s->query("SET statement_timeout = '500ms'; $slow; RESET statement_timeout");
like($s->{stderr}, qr/canceling statement due to statement timeout/,
	'the slow query was cancelled');
# the scan's whole share would take the helpers several seconds
ok($node->poll_query_until('postgres', qq{
	SELECT count(*) = 0 FROM pg_stat_activity
	 WHERE application_name = 'storage_engine scan helper for PID $pid'
	   AND state = 'active'}),
	'the helpers stopped with the leader');
$s->{stderr} = '';
is($s->query_safe($agg), $expected, 'the session goes on after the cancel');

# --- a helper that dies mid-scan leaves an error, not fewer rows ---
$s->{stderr} = '';
$s->{stdin} .= "SET parallel_leader_participation = off; $slow;\n";
$s->{run}->pump_nb();
ok($node->poll_query_until('postgres', qq{
	SELECT count(*) > 0 FROM pg_stat_activity
	 WHERE application_name = 'storage_engine scan helper for PID $pid'
	   AND state = 'active'}),
	'a helper runs the slow query');
$node->safe_psql('postgres', qq{
	SELECT pg_terminate_backend(pid) FROM pg_stat_activity
	 WHERE application_name = 'storage_engine scan helper for PID $pid'
	   AND state = 'active'});
my $out = $s->query('RESET parallel_leader_participation');
like($s->{stderr}, qr/scan helper exited before it finished/,
	'the leader reports the helper that died');
unlike($out, qr/^\d+$/m, 'and returns no count');
$s->{stderr} = '';
is($s->query_safe($agg), $expected, 'the session goes on with new helpers');

# --- a helper whose lock is not free declines: no wait, no deadlock ---
$s->query_safe("BEGIN; SELECT count(*) FROM big WHERE x = 1");
my $alter = $node->background_psql('postgres', on_error_stop => 0);
$alter->{stdin} .= "ALTER TABLE big ADD COLUMN z int;\n";
$alter->{run}->pump_nb();
ok($node->poll_query_until('postgres', q{
	SELECT count(*) = 1 FROM pg_stat_activity
	 WHERE wait_event_type = 'Lock' AND query LIKE 'ALTER TABLE big%'}),
	'ALTER TABLE waits for the leader');
is($s->query_safe($agg), $expected,
	'the leader answers while an ALTER TABLE waits behind it');
is(joined_in($s, $agg), 0, 'no helper took part: they declined');
$s->query_safe('COMMIT');
$alter->query_safe('SELECT 1');
$alter->quit;
is($s->query_safe($agg), $expected, 'helpers again after the ALTER TABLE');
cmp_ok(joined_in($s, $agg), '>=', 1, 'and they take part');
$s->quit;

# --- on a hot standby, with its snapshots from the primary's WAL ---
$node->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($node, 'base', has_streaming => 1);
$standby->start;
$node->safe_psql('postgres',
	'INSERT INTO big SELECT i % 10, i, md5(i::text) FROM generate_series(100001, 120000) i');
$node->wait_for_catchup($standby);
my $on_primary = $node->safe_psql('postgres', $agg);
my $r = $standby->background_psql('postgres', on_error_stop => 0);
is($r->query_safe($agg), $on_primary, 'a helped aggregation on the standby');
cmp_ok(joined_in($r, $agg), '>=', 1, 'helpers took part on the standby');
is($r->query_safe("SET parallel_leader_participation = off; $agg"), $on_primary,
	'the helpers alone give the same on the standby');
$r->quit;
$standby->stop;

# --- a database whose sessions ended is dropped at once ---
$node->safe_psql('postgres', 'CREATE DATABASE helped');
$node->safe_psql('helped', q{
	CREATE EXTENSION storage_engine;
	CREATE TABLE t (x int) USING colcompress;
	INSERT INTO t SELECT generate_series(1, 50000);});
is($node->safe_psql('helped', q{
	SET parallel_leader_participation = off;
	SELECT count(*) FROM t}), '50000', 'a helped query in another database');
my ($ret, $stdout, $stderr) = $node->psql('postgres', 'DROP DATABASE helped');
is($ret, 0, 'DROP DATABASE after the session ended') or diag $stderr;

done_testing();
