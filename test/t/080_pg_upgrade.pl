# pg_upgrade keeps colcompress and rowcompress tables attached to their
# metadata: the upgraded cluster returns the same rows through scans and
# indexes, reports the same options and stripes, verifies clean, takes new
# writes, and gives a table created afterwards a storage id of its own
# (pitfall: metadata detached from its tables by pg_upgrade, citus#5437,
# citus#6570).  This file upgrades within the version under test;
# 081_pg_upgrade_from15.pl from PostgreSQL 15 to 18.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use Test::More;
use StorageEngineUpgrade;

upgrade_and_check('same', PostgreSQL::Test::Cluster->new('same_old'), undef);

done_testing();
