#!/usr/bin/env bash
# scripts/config-sweep.sh: the sweep tier of scripts/test.sh under every
# setting it knows (se_sweep_setting in scripts/lib.sh), not only the few CI
# runs: the regression and isolation suites under settings that change
# plans and code paths but must not change results, each setting reported
# as "plans only" or with what changed beyond plans.  About a minute per
# setting; run it after changing a fast path or the write path.
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
# still match them.  Everything else it reports is a bug until shown
# otherwise: a parallel BRIN build that missed rows was found this way.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

v=$SE_DEFAULT_VERSION
names=""
while [ $# -gt 0 ]; do
	case "$1" in
		--pg) v=$2; shift 2 ;;
		-*) echo "usage: $0 [--pg 15|18] [NAME]..." >&2; exit 2 ;;
		*) names="$names $1"; shift ;;
	esac
done

SE_SWEEP="${names:-$SE_SWEEP_ALL}" exec bash "$SE_ROOT/scripts/test.sh" --pg "$v" --tier sweep
