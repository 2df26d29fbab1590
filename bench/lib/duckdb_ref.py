"""DuckDB as an outside reference: same rows, same queries, one thread in
serial mode and `workers` threads in parallel mode.

The events rows come from the PostgreSQL staging table through a CSV export
(sql/events/export.sql, sql/duckdb/events.sql); TPC-H from the same CSV
files PostgreSQL loads.  The database is a file in the run's work directory,
so its size is reported beside the PostgreSQL kinds; it is deleted after
the run.  Queries use bench/queries/<suite>/duckdb/<ID>.sql where DuckDB's
syntax differs.
"""
import os
import threading
import time

from . import progress, tpch
from .kinds import DUCKDB
from .results import TableLoad
from .runner import Mode, QueryFailed, QueryTimeout
from .sqltext import quote_literal, read_sql, render, split_statements

try:
    import duckdb
except ImportError:  # reported as "n/a (reason)" by unavailable_reason()
    duckdb = None


def unavailable_reason() -> str | None:
    if duckdb is None:
        return "python package duckdb is not installed (pip install -r bench/requirements.txt)"
    return None


def version() -> str:
    return duckdb.__version__ if duckdb else ""


class DuckDB:
    """A file-backed DuckDB database holding one suite's tables."""

    def __init__(self, path):
        self.path = str(path)
        for p in (self.path, self.path + ".wal"):
            if os.path.exists(p):
                os.remove(p)
        self.con = duckdb.connect(self.path)
        self.con.execute("SET TimeZone = 'UTC'")

    def _script(self, text: str, variables: dict) -> None:
        for stmt in split_statements(render(text, variables)):
            self.con.execute(stmt)

    def load_events(self, csv_path, rows: int) -> TableLoad:
        with progress.step("duckdb: loading events") as s:
            self._script(read_sql("duckdb/events.sql"), {"csv": quote_literal(str(csv_path))})
            self.con.execute("CHECKPOINT")
            load_s = s.elapsed
        n = self.con.execute("SELECT count(*) FROM events").fetchone()[0]
        if n != rows:
            raise RuntimeError(f"duckdb loaded {n} events rows, expected {rows}")
        size = self.size()
        return TableLoad("events", DUCKDB.key, "events", n, load_s,
                         total_bytes=size, data_bytes=size, main_bytes=size)

    def load_tpch(self, data_dir) -> TableLoad:
        """Load all TPC-H tables; one record for the lot, since DuckDB
        reports a database file size, not a size per table."""
        self._script(read_sql("tpch/schema.sql"), {"using": ""})
        total_rows = 0
        with progress.step("duckdb: loading TPC-H") as s:
            for table in tpch.TABLES:
                path = quote_literal(str(tpch.table_file(data_dir, table)))
                self.con.execute(f"COPY {table} FROM {path} (HEADER true)")
                total_rows += self.con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                s.update(f"{table} loaded", force=True)
            self.con.execute("CHECKPOINT")
            load_s = s.elapsed
        size = self.size()
        return TableLoad("tpch", DUCKDB.key, "(all tables)", total_rows, load_s,
                         total_bytes=size, data_bytes=size, main_bytes=size)

    def size(self) -> int:
        return os.path.getsize(self.path)

    def close(self) -> None:
        self.con.close()
        for p in (self.path, self.path + ".wal"):
            if os.path.exists(p):
                os.remove(p)


class DuckTarget:
    """Runner target over a DuckDB database (see runner.PgTarget)."""
    dialect = "duckdb"

    def __init__(self, db: DuckDB, variables: dict, timeout_s: float):
        self.kind, self.label, self.db = DUCKDB, DUCKDB.key, db
        self.variables, self.timeout_s = variables, timeout_s
        self.mode = None

    def set_mode(self, mode: Mode) -> None:
        self.db.con.execute(f"SET threads = {mode.threads}")
        self.mode = mode

    def run(self, sql: str, fetch: bool):
        timer = threading.Timer(self.timeout_s, self.db.con.interrupt)
        timer.start()
        t0 = time.monotonic()
        try:
            rows = self.db.con.execute(sql).fetchall()
        except duckdb.Error as e:
            if time.monotonic() - t0 >= self.timeout_s:
                raise QueryTimeout(f"canceled after {self.timeout_s:.0f}s") from e
            raise QueryFailed(str(e).splitlines()[0]) from e
        finally:
            timer.cancel()
        return rows if fetch else None

    def close(self) -> None:
        pass
