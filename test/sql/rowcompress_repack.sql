-- the shared body, run for rowcompress (test/sql/common/repack.psql); from test/sql,
-- so that psql names the file the same on every machine
\set am rowcompress
\getenv abs_srcdir PG_ABS_SRCDIR
\cd :abs_srcdir/sql
\i common/repack.psql
