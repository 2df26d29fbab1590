#!/usr/bin/env bash
# scripts/cluster.sh: the project's local PostgreSQL cluster, kept inside
# the checkout (.pgdata/, ignored by git), on a unix socket and a port of its
# own so it never clashes with a system cluster.
#
#   scripts/cluster.sh start|stop|status|env|psql [args]
#
# Environment: SE_PG=15|18 picks the version (default 18); SE_CLUSTER_DIR
# overrides the data location (tests use their own); SE_PORT the port;
# SE_HUGE_PAGES=1 reserves huge pages for it (below).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

v=${SE_PG:-$SE_DEFAULT_VERSION}
base=${SE_CLUSTER_DIR:-$SE_ROOT/.pgdata}
data="$base/pg$v"
port=${SE_PORT:-$((55400 + v))}
# Unix socket paths are limited to about 100 bytes.
sock="$base/sock"
if [ ${#sock} -gt 80 ]; then
	sock="/tmp/storage_engine-sock-$(printf '%s' "$base" | sha1sum | cut -c1-12)"
fi

bindir() { se_bindir "$v"; }

# Huge pages for shared memory, as a production server with 2 GB of
# shared_buffers would have: without them every parallel worker, a new
# process, takes a page fault per 4 kB of shared buffers it touches, which
# was a fifth of a 10 ms parallel query here (docs/architecture.md).  With
# SE_HUGE_PAGES=1 (scripts/main.sh sets it for the benchmark) and as root,
# raises vm.nr_hugepages to what the cluster needs (PostgreSQL says how
# many: shared_memory_size_in_huge_pages), never lowers it; the pages stay
# reserved for the machine until set back (sysctl vm.nr_hugepages=0).
# Otherwise, or where the kernel refuses, the server uses normal pages
# (huge_pages = try).
reserve_huge_pages() {
	local want have
	[ "${SE_HUGE_PAGES:-0}" = 1 ] && [ "$(id -u)" -eq 0 ] && [ -w /proc/sys/vm/nr_hugepages ] || return 0
	want=$(se_as_pg "$(bindir)/postgres" -D "$data" -C shared_memory_size_in_huge_pages 2>/dev/null) || return 0
	case "$want" in '' | -1 | *[!0-9]*) return 0 ;; esac
	have=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)
	[ "${have:-0}" -lt "$want" ] || return 0
	want=$(($(cat /proc/sys/vm/nr_hugepages) + want - ${have:-0}))
	if echo "$want" >/proc/sys/vm/nr_hugepages 2>/dev/null; then
		se_log "reserved huge pages for shared memory: vm.nr_hugepages = $(cat /proc/sys/vm/nr_hugepages)"
	fi
}

do_start() {
	local b
	b=$(bindir)
	se_grant_access "$SE_ROOT"
	se_pg_dir "$base"
	se_pg_dir "$sock"
	if [ ! -f "$data/PG_VERSION" ]; then
		se_log "initialising PostgreSQL $v cluster in $data"
		se_as_pg "$b/initdb" -D "$data" -A trust -U "$(se_pg_user)" -E UTF8 --locale=C.UTF-8 >/dev/null
		cat >> "$data/postgresql.conf" <<CONF
# storage_engine local cluster
listen_addresses = ''
port = $port
unix_socket_directories = '$sock'
shared_preload_libraries = 'storage_engine'
shared_buffers = 2GB
# decompressed frames for index and bitmap scans, kept for every session
# (README: storage_engine.shared_frame_cache_size)
storage_engine.shared_frame_cache_size = 1GB
work_mem = 256MB
maintenance_work_mem = 1GB
max_wal_size = 8GB
max_worker_processes = 16
max_parallel_workers = $(nproc)
max_parallel_workers_per_gather = $(nproc)
logging_collector = off
CONF
	fi
	if se_as_pg "$b/pg_ctl" -D "$data" status >/dev/null 2>&1; then
		se_log "PostgreSQL $v already running on port $port"
		return 0
	fi
	reserve_huge_pages
	se_log "starting PostgreSQL $v on port $port (socket $sock)"
	se_as_pg "$b/pg_ctl" -D "$data" -l "$base/pg$v.log" -w -t 60 start >/dev/null ||
		{ tail -20 "$base/pg$v.log" >&2; se_die "PostgreSQL $v did not start"; }
}

do_stop() {
	[ -f "$data/PG_VERSION" ] || return 0
	se_as_pg "$(bindir)/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
}

do_env() {
	echo "export PGHOST='$sock' PGPORT=$port PGUSER=$(se_pg_user) PGDATABASE=postgres"
	echo "export PATH='$(bindir)':\"\$PATH\""
}

case "${1:-}" in
	start) do_start ;;
	stop) do_stop ;;
	status) se_as_pg "$(bindir)/pg_ctl" -D "$data" status ;;
	env) do_env ;;
	psql) shift; eval "$(do_env)"; exec "$(bindir)/psql" "$@" ;;
	*) echo "usage: $0 start|stop|status|env|psql [psql args]" >&2; exit 2 ;;
esac
