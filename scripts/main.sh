#!/usr/bin/env bash
# scripts/main.sh: the project's main job, from a fresh checkout.
#
# Installs what is missing, builds and installs the extension into
# PostgreSQL 18 (SE_PG=15 for Debian's 15), starts the local cluster
# (.pgdata/, see scripts/cluster.sh), creates the extension, shows it working
# on a small table, and runs the benchmark comparison.  Extra arguments go
# to bench/run (for example --rows 100000 --runs 1).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

v=${SE_PG:-$SE_DEFAULT_VERSION}
bash "$SE_ROOT/scripts/install-deps.sh"
se_grant_access "$SE_ROOT"
se_build "$v"
# huge pages, as a server with 2 GB of shared_buffers has (scripts/cluster.sh)
SE_PG=$v SE_HUGE_PAGES=${SE_HUGE_PAGES:-1} bash "$SE_ROOT/scripts/cluster.sh" start
eval "$(SE_PG=$v bash "$SE_ROOT/scripts/cluster.sh" env)"

se_log "extension check on PostgreSQL $v"
psql -X -v ON_ERROR_STOP=1 -q <<'SQL'
CREATE EXTENSION IF NOT EXISTS storage_engine;
SELECT engine.version();
SELECT amname AS access_method FROM pg_am WHERE amname IN ('colcompress', 'rowcompress') ORDER BY 1;
SQL
psql -X -v ON_ERROR_STOP=1 -q -f "$SE_ROOT/scripts/demo.sql"

if [ -x "$SE_ROOT/bench/run" ]; then
	se_log "running the benchmark (bench/run $*)"
	"$SE_ROOT/bench/run" "$@"
else
	se_log "no benchmark kit in this checkout (bench/run); set-up done"
fi
se_log "local cluster is running: eval \"\$(scripts/cluster.sh env)\" && psql"
