"""The query sets: one .sql file per query, found by listing a directory.

bench/queries/<suite>/<ID>.sql holds the PostgreSQL text; an optional
bench/queries/<suite>/duckdb/<ID>.sql holds DuckDB's translation where its
syntax differs.  Leading `-- key: value` lines are directives:

  title:    short label for tables and charts
  compare:  ordered | unordered (default: ordered when the query has a
            top-level ORDER BY; say unordered when its ORDER BY leaves ties)
  phase:    main | key (events only: key queries run after the key-lookup
            btrees are built, see bench/sql/events/key_indexes/)

Adding a query is adding a file; nothing else needs to change.
"""
import fnmatch
import re
from dataclasses import dataclass

from .sqltext import QUERY_DIR, has_top_level_order_by, render, strip_comments

_DIRECTIVE = re.compile(r"^--\s*(title|compare|phase)\s*:\s*(.*?)\s*$")


@dataclass(frozen=True)
class Query:
    qid: str
    title: str
    sql: str            # PostgreSQL text, variables not yet rendered
    duckdb_sql: str     # DuckDB text (same as sql unless a translation exists)
    ordered: bool       # compare results in order
    phase: str

    def text(self, dialect: str, variables: dict) -> str:
        raw = self.duckdb_sql if dialect == "duckdb" else self.sql
        return render(strip_comments(raw).strip().rstrip(";"), variables)


def _sort_key(qid: str):
    m = re.match(r"([A-Za-z]*)(\d*)(.*)", qid)
    return (m.group(1), int(m.group(2) or 0), m.group(3))


def _parse(path, duck_path) -> Query:
    text = path.read_text()
    meta = {}
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        m = _DIRECTIVE.match(line)
        if m:
            meta[m.group(1)] = m.group(2)
    compare = meta.get("compare", "").split()
    ordered = (compare[0] == "ordered") if compare else has_top_level_order_by(text)
    return Query(
        qid=path.stem,
        title=meta.get("title", path.stem),
        sql=text,
        duckdb_sql=duck_path.read_text() if duck_path.exists() else text,
        ordered=ordered,
        phase=meta.get("phase", "main").split()[0],
    )


def load(suite: str, patterns: list[str] | None = None) -> list[Query]:
    """Queries of a suite in natural order (Q2 before Q10), filtered by glob
    patterns on the id (e.g. ["Q1", "K*"]) when given."""
    d = QUERY_DIR / suite
    out = []
    for path in d.glob("*.sql"):
        qid = path.stem
        if patterns and not any(fnmatch.fnmatchcase(qid.upper(), p.upper()) for p in patterns):
            continue
        out.append(_parse(path, d / "duckdb" / path.name))
    return sorted(out, key=lambda q: (q.phase != "main", _sort_key(q.qid)))
