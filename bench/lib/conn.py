"""Connecting to PostgreSQL and preparing the benchmark database.

Where to connect: the standard PG* environment variables when any is set;
otherwise the project's local cluster, whose settings `scripts/cluster.sh env`
prints as `export PGHOST=...` lines.  Every failure here is a SetupError
(exit 2) with a message saying what to do.
"""
import os
import shlex
import subprocess

from .errors import SetupError
from .sqltext import BENCH_DIR

REPO_ROOT = BENCH_DIR.parent
CLUSTER_SCRIPT = REPO_ROOT / "scripts" / "cluster.sh"
_PG_VARS = ("PGHOST", "PGHOSTADDR", "PGPORT", "PGUSER", "PGDATABASE", "PGSERVICE")
EXTENSION = "storage_engine"

try:
    import psycopg
except ImportError as e:  # pragma: no cover - depends on the environment
    raise SetupError(
        "python package psycopg is missing: run scripts/install-deps.sh "
        "(or pip install -r bench/requirements.txt)") from e


def resolve_environment() -> str:
    """Make sure PG* variables point at a server; return a description of it."""
    if not any(os.environ.get(v) for v in _PG_VARS):
        if not CLUSTER_SCRIPT.exists():
            raise SetupError(
                "no PG* environment variables are set and the project's cluster "
                f"script {CLUSTER_SCRIPT} does not exist: set PGHOST/PGPORT/PGUSER "
                "to a running PostgreSQL with storage_engine installed")
        try:
            out = subprocess.run(["bash", str(CLUSTER_SCRIPT), "env"], check=True,
                                 capture_output=True, text=True, timeout=120).stdout
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            err = getattr(e, "stderr", "") or ""
            raise SetupError(f"`scripts/cluster.sh env` failed: {err.strip() or e}") from e
        for line in out.splitlines():
            words = shlex.split(line, comments=True)
            if words and words[0] == "export":
                words = words[1:]
            for w in words:
                if "=" in w and w.split("=", 1)[0].startswith("PG"):
                    k, v = w.split("=", 1)
                    os.environ[k] = v
        source = "scripts/cluster.sh env"
    else:
        source = "PG* environment"
    desc = " ".join(f"{v}={os.environ[v]}" for v in _PG_VARS if os.environ.get(v))
    return f"{desc or 'libpq defaults'} (from {source})"


def connect(dbname: str | None = None):
    """An autocommit connection in UTC (timestamptz results compare alike)."""
    # prepare_threshold None: psycopg would otherwise prepare a statement run
    # five times, and a prepared plan keeps the mode (workers, jit) it was
    # planned in when the runner switches modes on the same connection.
    kwargs = {"autocommit": True, "application_name": "storage_engine_bench",
              "prepare_threshold": None}
    if dbname:
        kwargs["dbname"] = dbname
    try:
        conn = psycopg.connect(**kwargs)
    except psycopg.OperationalError as e:
        raise SetupError(
            f"cannot connect to PostgreSQL ({e.__class__.__name__}): {str(e).strip()}\n"
            "Is the server running?  Start the project's cluster (scripts/cluster.sh start) "
            "or point PGHOST/PGPORT/PGUSER at one.") from e
    conn.execute("SET TimeZone = 'UTC'")
    return conn


def recreate_database(name: str) -> None:
    """Drop and create the benchmark database with the C collation, so ORDER BY
    on text sorts the same in PostgreSQL and DuckDB (and on every machine)."""
    maint = os.environ.get("PGDATABASE") or "postgres"
    if maint == name:
        maint = "postgres"
    with connect(maint) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        c.execute(f"CREATE DATABASE \"{name}\" TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C'")


def ensure_extension(conn, allow_missing: bool) -> tuple[str | None, str | None]:
    """Create storage_engine; return (version, None) or (None, reason) when it is
    missing and allow_missing is set.  Missing otherwise is a SetupError."""
    row = conn.execute("SELECT default_version FROM pg_available_extensions WHERE name = %s",
                       (EXTENSION,)).fetchone()
    reason = None
    if row is None:
        reason = f"extension {EXTENSION} is not installed in this server"
    else:
        try:
            conn.execute(f"CREATE EXTENSION IF NOT EXISTS {EXTENSION}")
        except psycopg.Error as e:
            reason = f"CREATE EXTENSION {EXTENSION} failed: {first_line(e)}"
    if reason is None:
        v = conn.execute("SELECT extversion FROM pg_extension WHERE extname = %s",
                         (EXTENSION,)).fetchone()
        return v[0], None
    if allow_missing:
        return None, reason
    raise SetupError(f"{reason}.\nBuild and install it (make install, or the project's "
                     "scripts), or pass --allow-missing-extension to benchmark heap alone.")


def first_line(err: Exception) -> str:
    """The first line of a server error, for one-line reasons in reports."""
    s = str(err).strip()
    return s.splitlines()[0] if s else err.__class__.__name__
