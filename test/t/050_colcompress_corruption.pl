# Damaged bytes on disk give an ERROR naming the table, never a crash, and
# colcompress_verify reports the damage.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use StorageEngineTest;

my $node = new_engine_node('corrupt');
$node->safe_psql('postgres', q{
	CREATE TABLE damaged (id int, payload text) USING colcompress;
	INSERT INTO damaged SELECT g, md5(g::text) FROM generate_series(1, 30000) g;
	CHECKPOINT;
});
my $path = $node->data_dir . '/' .
  $node->safe_psql('postgres', "SELECT pg_relation_filepath('damaged')");
$node->stop;

# overwrite 64 bytes inside the first data page (block 1; block 0 is the metapage)
open(my $fh, '+<', $path) or die "open $path: $!";
binmode $fh;
seek($fh, 8192 + 200, 0) or die;
print $fh ("\xA5" x 64);
close $fh;
$node->start;

my ($ret, $out, $err) = $node->psql('postgres', 'SELECT sum(id), count(payload) FROM damaged');
isnt($ret, 0, 'reading the damaged table fails');
like($err, qr/damaged|invalid page/, 'with a data corruption error');
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is still up');
ok($node->safe_psql('postgres',
		"SELECT count(*) FROM engine.colcompress_verify('damaged')") > 0,
	'colcompress_verify reports the damage');

# a damaged compression dictionary: its own checksum catches it (past the
# page checksums), naming stripe and column, and verify reports it (digests
# of varying length: hex digests alone would be packed characters, which
# take no dictionary)
$node->safe_psql('postgres', q{
	CREATE TABLE dict_damaged (id int, payload text) USING colcompress;
	INSERT INTO dict_damaged SELECT g, md5(g::text) || ':' || g FROM generate_series(1, 30000) g;
	CHECKPOINT;
});
# where the payload column's dictionary lies: stream offset -> page, as
# src/format/storage.h lays streams out (a MAXALIGNed page header, then
# payload bytes)
my ($first_block, $dict_offset) = split /\|/, $node->safe_psql('postgres', q{
	SELECT first_block, attr_dict_offset[2] FROM engine.stripe
	 WHERE storage_id = engine.storage_id('dict_damaged')});
isnt($dict_offset, '-1', 'the payload column has a dictionary');
my $payload_per_page = 8192 - 24;
my $inside = $dict_offset + 8 + 100;	# past the header, in the bytes
my $dict_path = $node->data_dir . '/' .
  $node->safe_psql('postgres', "SELECT pg_relation_filepath('dict_damaged')");
$node->stop;
open($fh, '+<', $dict_path) or die "open $dict_path: $!";
binmode $fh;
seek($fh, ($first_block + int($inside / $payload_per_page)) * 8192 + 24 +
	  $inside % $payload_per_page, 0) or die;
print $fh ("\x5A" x 16);
close $fh;
$node->start;

($ret, $out, $err) = $node->psql('postgres',
	'SET ignore_checksum_failure = on; SELECT count(payload) FROM dict_damaged');
isnt($ret, 0, 'reading the column with the damaged dictionary fails');
like($err, qr/data of table "dict_damaged" is damaged/, 'with a data corruption error');
like($err, qr/column "payload": dictionary checksum mismatch/,
	'naming the column and the dictionary');
is($node->safe_psql('postgres',
		'SET ignore_checksum_failure = on; SELECT count(id) FROM dict_damaged'),
	'30000', 'columns without the damage still read');
like($node->safe_psql('postgres', q{
		SET ignore_checksum_failure = on;
		SELECT string_agg(problem, '; ') FROM engine.colcompress_verify('dict_damaged')}),
	qr/dictionary checksum mismatch/, 'colcompress_verify reports the dictionary');
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is still up');

$node->stop;
done_testing();
