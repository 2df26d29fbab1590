"""Table kinds: what is compared, how a table of each kind is created, and
whether a kind is available in this server.

A PostgreSQL kind is "available" when CREATE TABLE ... USING <am>, a trial
INSERT and a read-back SELECT all succeed; anything else makes it
unavailable with the server's error as the reason, shown as "n/a (reason)"
and left out of charts.  Nothing is ever faked.
"""
from dataclasses import dataclass, field

from .conn import first_line, psycopg


@dataclass(frozen=True)
class Kind:
    key: str            # label in reports: heap, colcompress, ...
    am: str | None      # access method; None for DuckDB
    short: str          # table / schema suffix: events_<short>, tpch_<short>
    color: str          # chart colour
    options: dict = field(default_factory=dict, compare=False)

    def using(self, options: dict | None = None) -> str:
        """The `USING am WITH (...)` clause for CREATE TABLE."""
        if self.am is None or self.am == "heap":
            return ""
        opts = {**self.options, **(options or {})}
        clause = f"USING {self.am}"
        if opts:
            parts = ", ".join(f"{k} = {_lit(v)}" for k, v in opts.items())
            clause += f" WITH ({parts})"
        return clause


def _lit(v) -> str:
    return str(v) if isinstance(v, (int, float)) else "'" + str(v).replace("'", "''") + "'"


HEAP = Kind("heap", "heap", "heap", "#4c72b0")
COLCOMPRESS = Kind("colcompress", "colcompress", "col", "#dd8452")
ROWCOMPRESS = Kind("rowcompress", "rowcompress", "row", "#55a868")
CITUS = Kind("citus_columnar", "columnar", "cit", "#8172b3")
DUCKDB = Kind("duckdb", None, "duckdb", "#937860")
PG_KINDS = (HEAP, COLCOMPRESS, ROWCOMPRESS, CITUS)
ALL_KINDS = PG_KINDS + (DUCKDB,)
BY_KEY = {k.key: k for k in ALL_KINDS}
ALIASES = {"col": "colcompress", "row": "rowcompress", "cit": "citus_columnar",
           "citus": "citus_columnar", "columnar": "citus_columnar"}


def parse_list(text: str) -> list[Kind]:
    """Kinds named on the command line (keys or short aliases); heap always first."""
    keys = []
    for w in (x.strip().lower() for x in text.split(",") if x.strip()):
        key = ALIASES.get(w, w)
        if key not in BY_KEY:
            raise ValueError(f"unknown table kind {w!r}; choose from {', '.join(BY_KEY)}")
        keys.append(key)
    if "heap" not in keys:
        keys.insert(0, "heap")  # heap is the reference every result is checked against
    return [k for k in ALL_KINDS if k.key in keys]


def _ensure_citus(conn) -> str | None:
    """Create citus_columnar (or citus) when the server has it; reason if not."""
    avail = {r[0] for r in conn.execute(
        "SELECT name FROM pg_available_extensions WHERE name IN ('citus_columnar', 'citus')")}
    if not avail:
        return "neither citus_columnar nor citus is available in this server"
    errors = []
    for ext in ("citus_columnar", "citus"):
        if ext in avail:
            try:
                conn.execute(f"CREATE EXTENSION IF NOT EXISTS {ext}")
                return None
            except psycopg.Error as e:
                errors.append(f"{ext}: {first_line(e)}")
    return "; ".join(errors)


def probe(conn, kind: Kind, extension_reason: str | None, options: dict | None = None,
          name: str = "bench_probe") -> str | None:
    """None when the kind works in this server, else why not (one line)."""
    if kind.am in (COLCOMPRESS.am, ROWCOMPRESS.am) and extension_reason:
        return extension_reason
    if kind is CITUS:
        reason = _ensure_citus(conn)
        if reason:
            return reason
    table = f"{name}_{kind.short}"
    try:
        conn.execute(f"DROP TABLE IF EXISTS {table}")
        conn.execute(f"CREATE TABLE {table} (a int, b text) {kind.using(options)}")
        conn.execute(f"INSERT INTO {table} VALUES (1, 'probe'), (2, NULL)")
        n = conn.execute(f"SELECT count(*), sum(a) FROM {table}").fetchone()
        if tuple(n) != (2, 3):
            return f"trial insert read back wrong rows: {tuple(n)}"
        return None
    except psycopg.Error as e:
        return first_line(e)
    finally:
        try:
            conn.execute(f"DROP TABLE IF EXISTS {table}")
        except psycopg.Error:
            pass
