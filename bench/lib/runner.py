"""Timing loop: warm-up, correctness check against heap, N timed runs.

For every mode and query, on every target: the warm-up run's full result is
compared with the reference result (heap's, from the first mode), and only
a matching target is timed, the targets taking turns run by run.  So heap
in parallel mode is checked against heap in serial mode too.  Times are
wall-clock around execute() on the client: the server has finished and
sent the whole result, which is not converted to Python objects (that
happens only in the warm-up, for the check).
"""
import time
from dataclasses import dataclass

from . import check, progress
from .conn import first_line, psycopg
from .errors import ServerLost
from .kinds import Kind
from .results import Results, Timing


class QueryFailed(Exception):
    """The query raised an error on this target."""


class QueryTimeout(Exception):
    """The query ran longer than --query-timeout."""


@dataclass(frozen=True)
class Mode:
    """serial: jit off, no parallel workers.  parallel: jit on, `workers` per
    gather and as many scan helpers (storage_engine.scan_helpers; DuckDB gets
    as many threads)."""
    name: str
    jit: bool
    workers: int

    @property
    def threads(self) -> int:
        return max(1, self.workers)


def make_modes(which: str, workers: int) -> list[Mode]:
    modes = {"serial": Mode("serial", False, 0), "parallel": Mode("parallel", True, workers)}
    return list(modes.values()) if which == "both" else [modes[which]]


class PgTarget:
    """One table kind in PostgreSQL, on its own connection, so each keeps its
    mode settings and search_path (TPC-H kinds live in schemas tpch_<short>)."""
    dialect = "pg"

    def __init__(self, kind: Kind, conn, variables: dict, timeout_s: float,
                 search_path: str | None = None, label: str | None = None):
        self.kind, self.conn, self.variables = kind, conn, variables
        self.label = label or kind.key
        self.mode = None
        conn.execute(f"SET statement_timeout = {int(timeout_s * 1000)}")
        if search_path:
            conn.execute(f"SET search_path = {search_path}, public")

    def set_mode(self, mode: Mode) -> None:
        self.conn.execute(f"SET jit = {'on' if mode.jit else 'off'}")
        self.conn.execute(f"SET max_parallel_workers_per_gather = {mode.workers}")
        # our parallel scans take the session's helpers in place of workers
        # (a placeholder setting where the library is not loaded: harmless)
        self.conn.execute(f"SET storage_engine.scan_helpers = {mode.workers}")
        self.mode = mode

    def run(self, sql: str, fetch: bool):
        try:
            cur = self.conn.execute(sql)
            return cur.fetchall() if fetch else None
        except psycopg.errors.QueryCanceled as e:
            raise QueryTimeout(first_line(e)) from e
        except psycopg.Error as e:
            if self.conn.broken or self.conn.closed:
                raise ServerLost(first_line(e)) from e
            raise QueryFailed(first_line(e)) from e

    def blocks_touched(self, sql: str) -> int | None:
        """Shared buffers hit or read by one run of sql (EXPLAIN ANALYZE
        BUFFERS; the top node counts its children and parallel workers)."""
        try:
            plan = self.conn.execute(
                "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql.strip().rstrip(";")).fetchone()[0]
        except psycopg.Error:
            return None
        top = plan[0]["Plan"]
        return int(top.get("Shared Hit Blocks", 0)) + int(top.get("Shared Read Blocks", 0))

    def close(self) -> None:
        self.conn.close()


def _fmt_ms(ms: float) -> str:
    return f"{ms:.1f} ms" if ms < 1000 else f"{ms / 1000:.2f} s"


def run_queries(suite: str, queries, targets, modes, runs: int, references: dict,
                results: Results, unavailable: dict | None = None) -> None:
    """Run `queries` on every target in every mode, appending Timing records.

    references maps query id to the reference rows; the first target (heap)
    in the first mode fills it when empty.  unavailable maps kind -> reason,
    recorded as n/a.  A query's timed runs take turns across the targets
    and the modes, so that a slow minute of a shared machine falls on every
    kind and mode alike, not on whichever was being timed then: a K6 of
    3 ms on colcompress measured 1.5-3.7 ms from one minute to the next
    while heap's stayed put, and colcompress's Q2 ran 25 ms in one minute
    and 18 ms in the next, enough to move its parallel speed-up by a third
    when each mode's queries were timed minutes apart.
    """
    unavailable = unavailable or {}
    progress.log(f"== {suite}: {len(queries)} queries, mode(s) {', '.join(m.name for m in modes)}, "
                 f"{len(targets)} target(s), 1 warm-up + {runs} run(s) each"
                 + (" (more for short queries)" if runs >= 3 else "")
                 + ("; the modes take turns" if len(modes) > 1 else ""))
    for q in queries:
        runs_of = [_Run(suite, mode, q, t) for mode in modes for t in targets]
        try:
            for r in runs_of:
                r.warm_up(references, results)
            _time_in_turns(runs_of, runs, results)
            for r in runs_of:
                r.count_blocks()
        except ServerLost as e:
            _server_lost(runs_of, e, results)
            raise
        for mode in modes:
            cells = []
            for r in runs_of:
                if r.mode is not mode:
                    continue
                results.timings.append(r.tm)
                cells.append(f"{r.t.label} " + (_fmt_ms(r.tm.median) if r.tm.status == "ok"
                                                else r.tm.status.upper()))
            for kind, reason in unavailable.items():
                results.timings.append(Timing(suite, mode.name, q.qid, q.title, kind, "n/a", note=reason))
            progress.log(f"  {q.qid:<4} {q.title[:34]:<34} "
                         + (f"{mode.name:<8} " if len(modes) > 1 else "") + " | ".join(cells))


class _Run:
    """One query on one target in one mode: its warm-up, check and timings."""

    def __init__(self, suite, mode, q, t):
        self.q, self.t, self.mode = q, t, mode
        self.tm = Timing(suite, mode.name, q.qid, q.title, t.label, "ok")
        self.sql = q.text(t.dialect, t.variables)
        self.where = f"{suite} {q.qid} on {t.label} ({mode.name})"
        # A query that once exceeded --query-timeout on a kind is not retried
        # on that kind (other mode, codec study): one pathological plan must
        # not multiply the run time.
        self.slow_key = (suite.split("-")[0], q.qid, t.kind.key)
        self.timing = False
        self.lost = False

    def _on_server(self, work):
        """work(), marking the target lost when its server goes away."""
        try:
            return work()
        except ServerLost:
            self.lost = True
            raise

    def _in_mode(self, work):
        """work() with the target in this run's mode (the modes take turns)."""
        if self.t.mode is not self.mode:
            self.t.set_mode(self.mode)
        return work()

    def _run(self, fetch: bool):
        return self._on_server(lambda: self._in_mode(lambda: self.t.run(self.sql, fetch=fetch)))

    def warm_up(self, references: dict, results: Results) -> None:
        """The warm-up run, its result checked against the reference; the
        target is timed only when it matches."""
        tm, q, t = self.tm, self.q, self.t
        if self.slow_key in results.timed_out:
            tm.status, tm.note = "timeout", "skipped: exceeded --query-timeout earlier on this kind"
            return
        try:
            rows = self._run(fetch=True)
        except QueryTimeout as e:
            tm.status, tm.note = "timeout", str(e)
            results.timed_out.add(self.slow_key)
            return
        except QueryFailed as e:
            tm.status, tm.note = "error", str(e)
            results.failures.append(f"ERROR {self.where}: {e}")
            progress.log(f"  !! query failed: {self.where}: {e}")
            return
        tm.rows = len(rows)
        ref = references.get(q.qid)
        if ref is None and t.kind.key == "heap":
            references[q.qid] = rows
        elif ref is None:
            tm.status, tm.note = "n/a", "no heap result to check against"
            return
        else:
            diff = check.compare(ref, rows, q.ordered, loose=(t.dialect == "duckdb"))
            if diff:
                tm.status, tm.note = "mismatch", diff.splitlines()[0]
                results.failures.append(f"MISMATCH {self.where}: {diff}")
                progress.log(f"  !! RESULT MISMATCH {self.where}: {diff}")
                return
        self.timing = True

    def time_once(self, results: Results) -> None:
        """One timed run; a timeout or an error ends the target's timing."""
        tm = self.tm
        t0 = time.perf_counter()
        try:
            self._run(fetch=False)
        except QueryTimeout as e:
            tm.status, tm.note = "timeout", str(e)
            results.timed_out.add(self.slow_key)
            self.timing = False
            return
        except QueryFailed as e:
            tm.status, tm.note = "error", str(e)
            results.failures.append(f"ERROR {self.where}: {e}")
            self.timing = False
            return
        tm.times_ms.append((time.perf_counter() - t0) * 1000.0)

    def count_blocks(self) -> None:
        if self.tm.status == "ok" and hasattr(self.t, "blocks_touched"):
            self.tm.blocks = self._on_server(
                lambda: self._in_mode(lambda: self.t.blocks_touched(self.sql)))


def _time_in_turns(runs_of: list, runs: int, results: Results) -> None:
    """Timed runs, one target after another in turn, until each has had
    what _wants_run asks for it."""
    while True:
        due = [r for r in runs_of if r.timing and _wants_run(runs, r.tm.times_ms)]
        if not due:
            return
        for r in due:
            r.time_once(results)


def _server_lost(runs_of: list, e: ServerLost, results: Results) -> None:
    """Records the query's timings, the lost target's as an error."""
    for r in runs_of:
        if r.lost:
            msg = (f"SERVER LOST {r.where}: the server closed the connection ({e}); it most "
                   f"likely crashed on this query. Stopping the run; see the server log.")
            results.failures.append(msg)
            progress.log(f"  !! {msg}")
            r.tm.status, r.tm.note, r.tm.times_ms = "error", f"server lost: {e}", []
        results.timings.append(r.tm)


# Sub-millisecond lookups vary by a factor of two from run to run, so a
# median of three says little: a measuring run (--runs 3 or more) repeats a
# query faster than SHORT_MS until its timed runs add up to SHORT_BUDGET_MS,
# at most SHORT_MAX_RUNS times, on every kind alike.
SHORT_MS = 50.0
SHORT_BUDGET_MS = 250.0
SHORT_MAX_RUNS = 25


def _wants_run(runs: int, times_ms: list) -> bool:
    """Whether another timed run is due: `runs` of them, then more while
    the query is short."""
    n = len(times_ms)
    if n < runs:
        return True
    return (runs >= 3 and n < SHORT_MAX_RUNS and sorted(times_ms)[n // 2] < SHORT_MS
            and sum(times_ms) < SHORT_BUDGET_MS)
