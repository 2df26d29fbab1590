-- Transactions and visibility: the shared body (test/sql/common/txn.psql),
-- run for colcompress from test/sql, so that psql names the file the same on
-- every machine
\set am colcompress
\set verify engine.colcompress_verify
\getenv abs_srcdir PG_ABS_SRCDIR
\cd :abs_srcdir/sql
\i common/txn.psql
