#!/usr/bin/env bash
# test/fuzz/run.sh: build the decoder fuzz harness with AddressSanitizer and
# UndefinedBehaviorSanitizer against one PostgreSQL's headers, run it, and
# end with exactly one verdict line: "fuzz: ok (<n> iterations)" or
# "fuzz: FAILED ...".  Exits non-zero on any failure.
#
#   test/fuzz/run.sh [--pg-config PATH] [--seconds N] [--seed N]
#                    [--iterations N] [--target NAME]... [--libfuzzer]
#
# The harness is built into $FUZZ_BUILD_DIR (default test/fuzz/build), and
# failing inputs are saved there as crash-<target>-<iteration>.bin.
#
# --libfuzzer builds with clang -fsanitize=fuzzer instead and runs
# coverage-guided fuzzing for the given seconds over a corpus kept in the
# build dir, seeded from test/fuzz/corpus (FUZZ_TARGET=<name> in the
# environment fixes the target; otherwise the first input byte picks it).
#
# pglz comes from PostgreSQL's libpgcommon.  We link the _shlib variants
# of libpgcommon/libpgport by full path: they are the position-independent
# builds, which a PIE executable (the Debian gcc default) needs, and Debian
# keeps them in pg_config --pkglibdir rather than --libdir, so both are
# searched.
set -uo pipefail

# The whole script is one block, parsed before it runs, so that editing
# this file while a run is in progress cannot derail that run.
{
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

pg_config=pg_config
seconds=10
libfuzzer=0
harness_args=()
target_args=()
while [ $# -gt 0 ]; do
	case "$1" in
		--pg-config) pg_config=$2; shift 2 ;;
		--seconds) seconds=$2; shift 2 ;;
		--seed|--iterations) harness_args+=("$1" "$2"); shift 2 ;;
		--target) target_args+=("$1" "$2"); shift 2 ;;
		--libfuzzer) libfuzzer=1; shift ;;
		-h|--help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p;}' "$0"; exit 0 ;;
		*) echo "fuzz: FAILED (unknown argument $1)"; exit 2 ;;
	esac
done

fail() {
	echo "fuzz: FAILED ($*)"
	exit 1
}

command -v "$pg_config" >/dev/null 2>&1 || fail "pg_config not found: $pg_config"
inc_server=$("$pg_config" --includedir-server) || fail "pg_config --includedir-server"
inc=$("$pg_config" --includedir) || fail "pg_config --includedir"
libdir=$("$pg_config" --libdir)
pkglibdir=$("$pg_config" --pkglibdir)
pgversion=$("$pg_config" --version)

# The first of the named static libraries found in libdir or pkglibdir.
find_lib() {
	local name dir
	for name in "$@"; do
		for dir in "$libdir" "$pkglibdir"; do
			if [ -f "$dir/$name" ]; then
				echo "$dir/$name"
				return 0
			fi
		done
	done
	return 1
}
pgcommon=$(find_lib libpgcommon_shlib.a libpgcommon.a) ||
	fail "libpgcommon not found in $libdir or $pkglibdir (needed for pglz)"
pgport=$(find_lib libpgport_shlib.a libpgport.a) ||
	fail "libpgport not found in $libdir or $pkglibdir"

if [ "$libfuzzer" = 1 ]; then
	cc=${CC:-}
	if [ -z "$cc" ]; then
		for c in clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14; do
			if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
		done
	fi
	[ -n "$cc" ] && command -v "$cc" >/dev/null 2>&1 || fail "--libfuzzer needs clang"
	sanitize="-fsanitize=fuzzer,address,undefined -DFUZZ_LIBFUZZER"
else
	cc=${CC:-gcc}
	command -v "$cc" >/dev/null 2>&1 || fail "compiler $cc not found"
	sanitize="-fsanitize=address,undefined"
fi
# Headers of a gcc-built server declare gnu_printf formats clang ignores.
if "$cc" --version 2>/dev/null | grep -qi clang; then
	sanitize="$sanitize -Wno-ignored-attributes"
fi

# Each codec whose library headers exist is built, as the Makefile does.
defines=() libs=()
has_header() { printf '#include <%s>\n' "$1" | "$cc" -E - >/dev/null 2>&1; }
if has_header lz4.h; then defines+=(-DHAVE_LIBLZ4); libs+=(-llz4); fi
if has_header zstd.h; then defines+=(-DHAVE_LIBZSTD); libs+=(-lzstd); fi
if has_header libdeflate.h; then defines+=(-DHAVE_LIBDEFLATE); libs+=(-ldeflate); fi

# Sources: the harness and the pure (FRONTEND-safe) decoders it fuzzes.
# Listed by name: other files under src/ are server code.  A new fuzz
# target adds its decoder's files here.
sources=("$here/fuzz_codecs.c" "$root"/src/codec/codec.c "$root"/src/codec/codec_*.c
	"$root"/src/codec/value_encoding.c "$root"/src/codec/dict_encoding.c "$root"/src/codec/packed_encoding.c "$root"/src/codec/chars_encoding.c "$root"/src/codec/frames.c "$root"/src/codec/checksum.c
	"$root"/src/codec/numeric_format.c "$root"/src/vector/agg_distinct.c)

build=${FUZZ_BUILD_DIR:-$here/build}
mkdir -p "$build" || fail "cannot create $build"
bin="$build/fuzz_codecs"

echo "fuzz: building with $cc against $pgversion (${defines[*]:-no optional codecs})"
# shellcheck disable=SC2086
if ! "$cc" -O1 -g $sanitize -fno-sanitize-recover=all -fno-omit-frame-pointer \
	-Wall -Werror -Wmissing-prototypes -Wdeclaration-after-statement \
	-DFRONTEND "${defines[@]}" \
	-I"$root/src" -I"$inc_server" -I"$inc" \
	"${sources[@]}" -o "$bin" \
	"$pgcommon" "$pgport" "${libs[@]}" > "$build/build.log" 2>&1; then
	cat "$build/build.log"
	fail "build"
fi

export FUZZ_CRASH_DIR="$build"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:handle_abort=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

log="$build/run.log"
if [ "$libfuzzer" = 1 ]; then
	mkdir -p "$build/corpus"
	[ -d "$here/corpus" ] && cp -n "$here/corpus"/* "$build/corpus/" 2>/dev/null
	"$bin" -max_total_time="$seconds" -artifact_prefix="$build/" \
		-print_final_stats=1 "$build/corpus" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	[ "$rc" = 0 ] || fail "libFuzzer exit status $rc; see $log"
	echo "fuzz: ok (${runs:-0} iterations)"
	exit 0
fi

# Runs one built harness (extra arguments go to it); returns when it ended
# with "fuzz: ok".
run_harness() {
	local harness=$1 log=$2 rc last
	shift 2
	"$harness" --seconds "$seconds" "${harness_args[@]}" "$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	last=$(tail -n 1 "$log")
	if [ "$rc" = 0 ] && [[ $last =~ ^fuzz:\ ok\ \(([0-9]+)\ iterations\)$ ]]; then
		total=$((total + BASH_REMATCH[1]))
		return 0
	fi
	case "$last" in
		"fuzz: FAILED"*) exit 1 ;;
	esac
	fail "$(basename "$harness") exit status $rc; see $log"
}

# The row batch checker (src/rowstore/row_batch.c) has a harness of its own.
rowbatch="$build/fuzz_rowbatch"
# shellcheck disable=SC2086
if ! "$cc" -O1 -g $sanitize -fno-sanitize-recover=all -fno-omit-frame-pointer \
	-Wall -Werror -Wmissing-prototypes -Wdeclaration-after-statement \
	-DFRONTEND -I"$root/src" -I"$inc_server" -I"$inc" \
	"$here/fuzz_rowbatch.c" "$root/src/rowstore/row_batch.c" -o "$rowbatch" \
	"$pgport" > "$build/build_rowbatch.log" 2>&1; then
	cat "$build/build_rowbatch.log"
	fail "build of fuzz_rowbatch"
fi

total=0
run_harness "$bin" "$log" "${target_args[@]}"
# --target names the codec harness's targets; the row batch harness has one
[ ${#target_args[@]} -eq 0 ] && run_harness "$rowbatch" "$build/run_rowbatch.log"
echo "fuzz: ok ($total iterations)"
exit 0
}
