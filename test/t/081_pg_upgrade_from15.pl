# pg_upgrade from PostgreSQL 15 to 18 keeps colcompress and rowcompress
# tables attached to their metadata, and PostgreSQL 18 reads what 15 wrote
# (the checks of 080_pg_upgrade.pl).  Runs in the PostgreSQL 18 run, when
# PostgreSQL 15 has the extension installed (the project's CI builds both).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use Test::More;
use StorageEngineUpgrade;

my $pg15 = '/usr/lib/postgresql/15';

plan skip_all => 'upgrades to PostgreSQL 18: this is the PostgreSQL '
  . ($ENV{SE_PG_VERSION} // '?') . ' run'
  unless ($ENV{SE_PG_VERSION} // '') eq '18';
plan skip_all => "storage_engine is not installed in $pg15"
  unless -f "$pg15/lib/storage_engine.so"
  && -f '/usr/share/postgresql/15/extension/storage_engine.control';

# Debian's PostgreSQL 15.20 gives every column it creates an attribute
# option, pg_attver, that PostgreSQL 18 does not know: pg_upgrade's schema
# restore then fails for any table, heap alike.  The old cluster's user
# columns lose it first.  PostgreSQL 18's initdb turns data checksums on,
# 15's leaves them off, and pg_upgrade needs both alike.
upgrade_and_check('from15', PostgreSQL::Test::Cluster->new('from15_old', install_path => $pg15),
	q{UPDATE pg_attribute SET attoptions = NULL
	   WHERE attrelid >= 16384 AND array_to_string(attoptions, ',') LIKE '%pg_attver=%'},
	extra => ['--no-data-checksums']);

done_testing();
