# A streaming replica returns the same results as the primary after loads,
# a TRUNCATE and a rewrite, replayed from WAL.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use StorageEngineTest;

my $primary = new_engine_node('primary', allows_streaming => 1);
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;

$primary->safe_psql('postgres', q{
	CREATE TABLE r (id int, d date, amount numeric, tags text[], meta jsonb) USING colcompress;
	INSERT INTO r SELECT g, '2024-01-01'::date + g % 365, g * 1.25,
		ARRAY['t' || g % 7], jsonb_build_object('k', g % 13)
	  FROM generate_series(1, 400000) g;
	CREATE TABLE gone (a int) USING colcompress;
	INSERT INTO gone SELECT generate_series(1, 1000);
	TRUNCATE gone;
	INSERT INTO gone SELECT generate_series(1, 10);
	CREATE TABLE rewritten (a int) USING colcompress;
	INSERT INTO rewritten SELECT generate_series(1, 5000);
	VACUUM FULL rewritten;
	CREATE TABLE narrow (a int) USING colcompress;
	INSERT INTO narrow SELECT generate_series(1, 100000);
	CREATE INDEX narrow_brin ON narrow USING brin (a) WITH (pages_per_range = 4);
	INSERT INTO narrow SELECT generate_series(100001, 150000);
});
$primary->wait_for_catchup($standby);

my @queries = (
	'SELECT count(*), sum(id), sum(amount) FROM r',
	'SELECT d, count(*), sum(amount) FROM r GROUP BY d ORDER BY d LIMIT 20',
	"SELECT tags[1], count(*) FROM r GROUP BY 1 ORDER BY 1",
	"SELECT meta->>'k', max(id) FROM r GROUP BY 1 ORDER BY 1",
	'SELECT count(*), sum(a) FROM gone',
	'SELECT count(*), sum(a) FROM rewritten',
	"SELECT count(*) FROM engine.colcompress_verify('r')",
	# through the BRIN index: the relation's empty pages past its streams
	# (format/tid_blocks.c) were replayed too
	'SET enable_seqscan = off; SET storage_engine.enable_custom_scan = off; '
	  . 'SELECT count(*), sum(a) FROM narrow WHERE a > 149990 OR a < 5',
);
foreach my $q (@queries)
{
	is($standby->safe_psql('postgres', $q), $primary->safe_psql('postgres', $q),
		"standby agrees: $q");
}

is($standby->safe_psql('postgres',
		'SET enable_seqscan = off; SET storage_engine.enable_custom_scan = off; '
		  . 'SELECT count(*) FROM narrow WHERE a > 149990 OR a < 5'),
	'14', 'the standby finds the last rows through BRIN');

$standby->stop;
$primary->stop;
done_testing();
