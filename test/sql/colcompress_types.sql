-- the shared body, run for colcompress (test/sql/common/types.psql); from
-- test/sql, so that psql names the file the same on every machine
\set am colcompress
\getenv abs_srcdir PG_ABS_SRCDIR
\cd :abs_srcdir/sql
\i common/types.psql
