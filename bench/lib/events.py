"""The events dataset: generate it once, copy it into each table kind.

Rows are generated inside PostgreSQL (sql/events/generate.sql) into an
unlogged staging table after setseed(), in chunks so progress can be shown;
each kind's table is then filled from staging by id ranges, so every kind
holds identical rows.  Chunks are a multiple of the stripe (150,000) and
batch (10,000) sizes so chunking adds no partial stripes.
"""
import time

from . import pgload, progress
from .conn import first_line, psycopg
from .kinds import COLCOMPRESS, Kind
from .results import Churn, TableLoad
from .sqltext import read_sql, render, script_statements

CHUNK = 750_000
SEED = 0.42
USERS = 50_000
TABLE_OPTIONS = {COLCOMPRESS.key: {"orderby": "event_date ASC"}}


def table_name(kind: Kind) -> str:
    return f"events_{kind.short}"


def _chunks(rows: int):
    lo = 1
    while lo <= rows:
        hi = min(rows, lo + CHUNK - 1)
        yield lo, hi
        lo = hi + 1


def generate_staging(conn, rows: int) -> float:
    """Create and fill events_staging with rows 1..rows; return seconds."""
    with progress.step(f"generating {rows:,} events rows (staging)") as s:
        conn.execute("DROP TABLE IF EXISTS events_staging")
        for stmt in script_statements("events/staging.sql", {}):
            conn.execute(stmt)
        conn.execute("SET max_parallel_workers_per_gather = 0")
        conn.execute("SELECT setseed(%s)", (SEED,))
        gen = read_sql("events/generate.sql")
        for lo, hi in _chunks(rows):
            conn.execute(render(gen, {"lo": lo, "hi": hi}))
            s.update(f"{hi:,} / {rows:,} rows", force=True)
        conn.execute("ALTER TABLE events_staging ADD PRIMARY KEY (id)")
        conn.execute("VACUUM (ANALYZE) events_staging")
        return s.elapsed


def load_kind(conn, kind: Kind, rows: int, options: dict | None) -> TableLoad:
    """Create events_<short> with the given table options, fill it from
    staging, index, vacuum, measure.  Raises psycopg.Error when the table
    cannot be created or filled."""
    table = table_name(kind)
    try:
        return _load(conn, kind, table, rows, options)
    except Exception:
        pgload.drop_quietly(conn, f"DROP TABLE IF EXISTS {table}")
        raise


def _load(conn, kind: Kind, table: str, rows: int, options: dict | None) -> TableLoad:
    tv = {"table": table}
    with progress.step(f"loading {table} ({kind.key})") as s:
        conn.execute(f"DROP TABLE IF EXISTS {table}")
        option_note = _create(conn, kind, tv, options)
        load_sql = read_sql("events/load.sql")
        load_s = 0.0
        pgload.settle(conn)
        for lo, hi in _chunks(rows):
            t0 = time.perf_counter()
            conn.execute(render(load_sql, {**tv, "lo": lo, "hi": hi}))
            load_s += time.perf_counter() - t0
            s.update(f"{hi:,} / {rows:,} rows", force=True)
        conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), {max(rows, 1)})")
        ld = TableLoad("events", kind.key, table, rows, load_s)
        if option_note:
            ld.notes.append(option_note)
        ld.maint_s, notes = _merge(conn, kind, table)
        ld.notes += notes
        s.update("building indexes", force=True)
        ld.index_s, notes = pgload.run_noting(
            conn, script_statements(f"events/indexes/{kind.key}.sql", tv), table)
        ld.notes += notes
        vac_s, notes = pgload.vacuum_analyze(conn, table)
        ld.maint_s += vac_s
        ld.notes += notes
        ld.total_bytes, ld.data_bytes, ld.main_bytes = pgload.sizes(conn, table)
    return ld


def _create(conn, kind: Kind, tv: dict, options: dict | None) -> str | None:
    """CREATE the table with the suite's options (orderby for colcompress).
    A kind that rejects them is created without, and the returned note says
    so: the benchmark runs on whatever the access method supports today."""
    def create(opts):
        for stmt in script_statements("events/table.sql", {**tv, "using": kind.using(opts)}):
            conn.execute(stmt)
    if options:
        try:
            create(options)
            return None
        except psycopg.Error as e:
            note = f"table options {options} rejected ({first_line(e)}); loaded without them"
            progress.log(f"  note: {tv['table']}: {note}")
            conn.execute(f"DROP TABLE IF EXISTS {tv['table']}")
    else:
        note = None
    create(None)
    return note


def _merge(conn, kind: Kind, table: str) -> tuple[float, list[str]]:
    """colcompress: the seed compacts the sorted table with colcompress_merge
    so stripes are globally ordered; run it when the extension has it."""
    if kind is not COLCOMPRESS or not pgload.function_exists(conn, "engine", "colcompress_merge"):
        return 0.0, []
    return pgload.run_noting(conn, [f"SELECT engine.colcompress_merge('{table}'::regclass)"], table)


def add_key_indexes(conn, kind: Kind, load: TableLoad | None) -> None:
    """Key phase: the btrees K1-K8 need on kinds that lack them (see
    sql/events/key_indexes/).  Built after the Q queries so they cannot
    change those plans; the build time and new size go into the load record."""
    table = table_name(kind)
    stmts = script_statements(f"events/key_indexes/{kind.key}.sql", {"table": table})
    if not stmts:
        return
    with progress.step(f"key phase: btree indexes on {table}"):
        spent, notes = pgload.run_noting(conn, stmts, table)
        pgload.run_noting(conn, [f"ANALYZE {table}"], table)
    if load is not None:
        if len(notes) < len(stmts):
            load.notes.append(f"key phase: {len(stmts) - len(notes)} btree(s) built in {spent:.1f}s")
        load.notes += [f"key phase: {n}" for n in notes]
        load.total_bytes, load.data_bytes, load.main_bytes = pgload.sizes(conn, table)


def lookup_variables(rows: int) -> dict:
    """:ids_N and :users_N for the K queries: N keys spread evenly over
    1..rows and 1..50,000, so lookups hit existing rows at any --rows."""
    v = {}
    for n in (1, 10, 100, 1000):
        v[f"ids_{n}"] = ", ".join(str(x) for x in _spread(n, max(rows, 1)))
        v[f"users_{n}"] = ", ".join(str(x) for x in _spread(n, USERS))
    return v


def _spread(n: int, upto: int) -> list[int]:
    return sorted({1 + (i * upto) // n + upto // (2 * n) for i in range(n)})


def export_csv(conn, path) -> float:
    """Write the staging rows as CSV for DuckDB; return seconds."""
    with progress.step("exporting events for DuckDB") as s, open(path, "wb") as f:
        done = 0
        with conn.cursor().copy(read_sql("events/export.sql")) as cp:
            for block in cp:
                f.write(block)
                done += len(block)
                s.update(f"{done / 1e6:,.0f} MB written")
        return s.elapsed




CHURN_VACUUMS = 4


def _rows_check(conn, kind, table: str):
    """What must survive an UPDATE and VACUUMs: the row count and the sum of
    the ids (which read the data, not only the metadata), and the number of
    problems the access method's verify function finds (None for heap)."""
    count, ids = conn.execute(f"SELECT count(*), sum(id) FROM {table}").fetchone()
    verify = f"{kind.key}_verify"
    problems = None
    if pgload.function_exists(conn, "engine", verify):
        problems = conn.execute(
            f"SELECT count(*) FROM engine.{verify}('{table}'::regclass)").fetchone()[0]
    return count, ids, problems


def churn(conn, kind, table: str) -> Churn:
    """UPDATE every tenth row, then run CHURN_VACUUMS VACUUMs (ours settle
    over three: rewrite, move, truncate), noting the size after each: the
    space an UPDATE-heavy workload leaves behind.  The rows must come out
    as they went in: a difference is reported as the note."""
    before = pgload.sizes(conn, table)[1]
    expected = _rows_check(conn, kind, table)
    with progress.step(f"{table}: UPDATE of 10% of rows, then VACUUM"):
        t0 = time.perf_counter()
        try:
            n = conn.execute(f"UPDATE {table} SET amount = amount + 1 WHERE id % 10 = 0").rowcount
        except psycopg.Error as e:
            return Churn("events", kind.key, table, 0, 0.0, 0.0, before, before, [],
                         f"UPDATE: {first_line(e)}")
        update_s = time.perf_counter() - t0
        after_update = pgload.sizes(conn, table)[1]
        sizes, note = [], ""
        t0 = time.perf_counter()
        for _ in range(CHURN_VACUUMS):
            try:
                conn.execute(f"VACUUM {table}")
            except psycopg.Error as e:
                note = f"VACUUM: {first_line(e)}"
                break
            sizes.append(pgload.sizes(conn, table)[1])
        vacuum_s = time.perf_counter() - t0
        try:
            found = _rows_check(conn, kind, table)
            if found[:2] != expected[:2] or found[2]:
                note = (note + "; " if note else "") + (
                    f"DAMAGED: count, sum(id), verify problems {found}, expected {expected}")
        except psycopg.Error as e:
            note = (note + "; " if note else "") + f"DAMAGED: {first_line(e)}"
    return Churn("events", kind.key, table, n, update_s, vacuum_s, before, after_update,
                 sizes, note)
