"""What a run measured, as plain records; report.py and charts.py read them.

Status values of a Timing: ok, n/a (kind unavailable), mismatch (result
differs from heap's), error (the query failed), timeout.  Only ok rows carry
times; mismatch and error are failures and make the run exit 1.
"""
import statistics
from dataclasses import dataclass, field


@dataclass
class Timing:
    suite: str
    mode: str
    qid: str
    title: str
    kind: str
    status: str
    times_ms: list = field(default_factory=list)
    rows: int | None = None
    note: str = ""
    # shared buffers the query touched (hit + read), from one EXPLAIN
    # (ANALYZE, BUFFERS) after the timed runs; PostgreSQL targets only
    blocks: int | None = None

    @property
    def median(self) -> float | None:
        return statistics.median(self.times_ms) if self.times_ms else None

    @property
    def min(self) -> float | None:
        return min(self.times_ms) if self.times_ms else None

    @property
    def max(self) -> float | None:
        return max(self.times_ms) if self.times_ms else None


@dataclass
class TableLoad:
    """One loaded table of one kind: rows, times and sizes."""
    suite: str
    kind: str
    table: str
    rows: int
    load_s: float
    index_s: float = 0.0
    maint_s: float = 0.0          # VACUUM/ANALYZE, merge
    total_bytes: int = 0          # pg_total_relation_size: data + indexes + toast
    data_bytes: int = 0           # pg_table_size: data + toast, no indexes
    main_bytes: int = 0           # pg_relation_size: main fork only
    notes: list = field(default_factory=list)

    @property
    def index_bytes(self) -> int:
        return self.total_bytes - self.data_bytes


@dataclass
class KindState:
    suite: str
    kind: str
    available: bool
    reason: str = ""


@dataclass
class CodecResult:
    """One line of the compression study (TPC-H data in colcompress)."""
    label: str                    # zstd-5, lz4, ... or heap (the reference)
    options: dict
    status: str                   # ok | n/a | failed
    reason: str = ""
    load_s: float = 0.0
    total_bytes: int = 0
    data_bytes: int = 0
    query_s: float | None = None  # sum of the queries' median times
    queries_ok: int = 0
    queries_total: int = 0


@dataclass
class Churn:
    """A table after an UPDATE of a tenth of its rows and a few VACUUMs
    (target: back within 5% of the freshly loaded size)."""
    suite: str
    kind: str
    table: str
    rows_updated: int
    update_s: float
    vacuum_s: float               # all the VACUUMs
    before_bytes: int             # pg_table_size before the UPDATE
    after_update_bytes: int
    after_vacuum_bytes: list      # after each VACUUM
    note: str = ""


@dataclass
class Results:
    timings: list = field(default_factory=list)
    loads: list = field(default_factory=list)
    kinds: list = field(default_factory=list)
    codecs: list = field(default_factory=list)
    churn: list = field(default_factory=list)
    failures: list = field(default_factory=list)   # human-readable, one per failure
    notes: list = field(default_factory=list)      # suite-level remarks for the summary
    timed_out: set = field(default_factory=set)    # (query family, qid, kind) never retried

    def kind_state(self, suite: str, kind: str) -> KindState | None:
        for k in self.kinds:
            if k.suite == suite and k.kind == kind:
                return k
        return None

    def set_kind(self, suite: str, kind: str, available: bool, reason: str = "") -> None:
        st = self.kind_state(suite, kind)
        if st is None:
            self.kinds.append(KindState(suite, kind, available, reason))
        else:
            st.available, st.reason = available, reason
