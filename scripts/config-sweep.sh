#!/usr/bin/env bash
# scripts/config-sweep.sh: run the regression and isolation tiers under
# settings that change plans and code paths but must not change results,
# and report, per setting, what changed beyond plans: results the tests
# compare with heap ("DIFFERENT"), errors, crashes.  Plans and counters
# differ under most of these settings, so the tiers' own verdicts are not
# the point; the lines this prints are.  Not part of CI (about a minute per
# setting); run it before a release and after changing a fast path.
#
#   scripts/config-sweep.sh [--pg 15|18] [NAME]...
#
# Known and harmless: under "parallel", heap's parallel plans add floats
# in another order, so a few digests of float sums over heap differ from
# ours (ours equal to our serial results); under "index_paths" on
# PostgreSQL 15, its Aggregate sorts the rows of a float avg into groups
# first and adds them in that order (differences near 1e-12).  Under
# "repeatable_read" and "serializable", the isolation specs written for
# READ COMMITTED end in serialization failures, heap's sessions as ours:
# what to check there is that the heap rows the specs print beside ours
# still match them.  Everything else it prints is a bug until shown
# otherwise: a parallel BRIN build that missed rows was found this way.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

v=18
names=()
while [ $# -gt 0 ]; do
	case "$1" in
		--pg) v=$2; shift 2 ;;
		-*) echo "usage: $0 [--pg 15|18] [NAME]..." >&2; exit 2 ;;
		*) names+=("$1"); shift ;;
	esac
done

if [ "$v" -ge 16 ]; then single="debug_parallel_query = regress"; else single="force_parallel_mode = regress"; fi
declare -A configs=(
	[parallel]="parallel_setup_cost = 0\nparallel_tuple_cost = 0\nmin_parallel_table_scan_size = 0\nmin_parallel_index_scan_size = 0\nmax_parallel_workers_per_gather = 2"
	[parallel_single]="$single"
	[repeatable_read]="default_transaction_isolation = 'repeatable read'"
	[serializable]="default_transaction_isolation = 'serializable'"
	[small_shared_buffers]="shared_buffers = 256kB"
	[small_write_buffers]="storage_engine.write_buffer_memory = 1024"
	[plain_encodings]="storage_engine.enable_dictionary_encoding = off\nstorage_engine.enable_packed_encoding = off"
	[no_dictionary_cache]="storage_engine.dictionary_cache_size = 0"
	[no_custom_scan]="storage_engine.enable_custom_scan = off"
	[no_pruning]="storage_engine.enable_pruning = off\nstorage_engine.enable_vectorized_filter = off"
	[no_vector_agg]="storage_engine.enable_vectorized_aggregation = off"
	[index_paths]="enable_seqscan = off"
	[jit]="jit = on\njit_above_cost = 0\njit_inline_above_cost = 0\njit_optimize_above_cost = 0"
)
[ ${#names[@]} -gt 0 ] || names=($(printf '%s\n' "${!configs[@]}" | sort))

# test.sh empties .test-out: the logs go beside it
logs="$SE_ROOT/.test-out-sweep"
mkdir -p "$logs"
flagged=0
for name in "${names[@]}"; do
	[ -n "${configs[$name]:-}" ] || se_die "no setting named $name"
	SE_EXTRA_CONF="${configs[$name]}" bash "$SE_ROOT/scripts/test.sh" --pg "$v" \
		--tier regress --tier isolation > "$logs/$name.log" 2>&1
	found=$(cat "$SE_ROOT/.test-out/pg$v/regress/regression.diffs" \
				"$SE_ROOT/.test-out/pg$v/isolation/regression.diffs" 2>/dev/null |
			grep -E '^\+.*(DIFFERENT|ERROR|FATAL|PANIC|TRAP|server closed|damaged|corrupt)' || true)
	if [ -n "$found" ]; then
		flagged=$((flagged + 1))
		echo "== $name: changed more than plans"
		echo "$found" | head -n 20
	else
		echo "== $name: plans only ($(tail -n 1 "$logs/$name.log"))"
	fi
done
[ "$flagged" -eq 0 ]
