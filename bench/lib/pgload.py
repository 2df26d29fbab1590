"""Steps shared by every PostgreSQL load (events and TPC-H): build indexes,
vacuum/analyze, measure sizes.

A kind that cannot build an index or run VACUUM still gets benchmarked: the
statement's error becomes a note in the report instead of failing the run,
because an access method under construction may support scans before it
supports every index type.
"""
import time

from . import progress
from .conn import first_line, psycopg


def run_noting(conn, statements: list[str], label: str) -> tuple[float, list[str]]:
    """Run statements one by one; return (seconds spent, notes of failures)."""
    spent, notes = 0.0, []
    for stmt in statements:
        t0 = time.perf_counter()
        try:
            conn.execute(stmt)
        except psycopg.Error as e:
            notes.append(f"{' '.join(stmt.split())[:80]}: {first_line(e)}")
            progress.log(f"  note: {label}: {notes[-1]}")
        spent += time.perf_counter() - t0
    return spent, notes


def vacuum_analyze(conn, table: str) -> tuple[float, list[str]]:
    """VACUUM (ANALYZE) the table, or ANALYZE it when VACUUM is unsupported:
    heap needs the visibility map for index-only scans, all need statistics."""
    t0 = time.perf_counter()
    try:
        conn.execute(f"VACUUM (ANALYZE) {table}")
        return time.perf_counter() - t0, []
    except psycopg.Error as e:
        note = f"VACUUM {table}: {first_line(e)}"
    _, notes = run_noting(conn, [f"ANALYZE {table}"], table)
    return time.perf_counter() - t0, [note] + notes


def sizes(conn, table: str) -> tuple[int, int, int]:
    """(pg_total_relation_size, pg_table_size, pg_relation_size) in bytes."""
    row = conn.execute(
        "SELECT pg_total_relation_size(c), pg_table_size(c), pg_relation_size(c) "
        "FROM CAST(%s AS regclass) AS c", (table,)).fetchone()
    return tuple(int(x) for x in row)


def function_exists(conn, schema: str, name: str) -> bool:
    return conn.execute(
        "SELECT EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
        "WHERE n.nspname = %s AND p.proname = %s)", (schema, name)).fetchone()[0]


def settle(conn) -> None:
    """CHECKPOINT before a timed load, so that a kind loaded after another
    does not pay for the other's dirty buffers and WAL: heap's load of the
    events writes about 400 MB of WAL, and the checkpoint it triggers ran
    during the next kind's load on the same two cores.  Skipped without the
    privilege (pg_checkpoint or superuser)."""
    try:
        conn.execute("CHECKPOINT")
    except psycopg.Error:
        pass


def drop_quietly(conn, sql: str) -> None:
    try:
        conn.execute(sql)
    except psycopg.Error:
        pass
