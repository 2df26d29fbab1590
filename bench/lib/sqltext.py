"""SQL text handling shared by every module: file lookup, variables, splitting.

The SQL lives in plain files under bench/sql/ and bench/queries/ so it can be
read, diffed and run by hand.  Variables use psql's syntax, `:name`, so a file
also runs in psql (`psql -v events=events_heap -f Q1.sql`).  Only names the
caller supplies are replaced; `::casts`, `'12:30'` literals and unknown names
are left alone.
"""
import re
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent.parent
SQL_DIR = BENCH_DIR / "sql"
QUERY_DIR = BENCH_DIR / "queries"

_VAR = re.compile(r"(?<![:\w]):([A-Za-z_][A-Za-z0-9_]*)")


def render(sql: str, variables: dict) -> str:
    """Replace each `:name` whose name is in `variables` by its value."""
    def sub(m):
        name = m.group(1)
        return str(variables[name]) if name in variables else m.group(0)
    return _VAR.sub(sub, sql)


def strip_comments(sql: str) -> str:
    """Drop `--` line comments (outside string literals)."""
    out, i, n = [], 0, len(sql)
    while i < n:
        c = sql[i]
        if c == "'":
            j = i + 1
            while j < n:
                if sql[j] == "'" and (j + 1 >= n or sql[j + 1] != "'"):
                    break
                j += 2 if sql[j] == "'" else 1
            out.append(sql[i:j + 1])
            i = j + 1
        elif sql.startswith("--", i):
            j = sql.find("\n", i)
            i = n if j < 0 else j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def split_statements(script: str) -> list[str]:
    """Split a script on `;` outside string literals; drop comments and empties.

    Our scripts contain no dollar-quoted bodies, which keeps this simple.
    """
    text = strip_comments(script)
    stmts, cur, in_str = [], [], False
    for c in text:
        if c == "'":
            in_str = not in_str
        if c == ";" and not in_str:
            stmts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    stmts.append("".join(cur))
    return [s.strip() for s in stmts if s.strip()]


def read_sql(relpath: str) -> str:
    """Text of bench/sql/<relpath>."""
    return (SQL_DIR / relpath).read_text()


def script_statements(relpath: str, variables: dict) -> list[str]:
    """Rendered statements of bench/sql/<relpath>; [] when the file does not exist."""
    path = SQL_DIR / relpath
    if not path.exists():
        return []
    return split_statements(render(path.read_text(), variables))


def quote_literal(s: str) -> str:
    """A SQL string literal (for paths handed to DuckDB)."""
    return "'" + s.replace("'", "''") + "'"


def has_top_level_order_by(sql: str) -> bool:
    """True when ORDER BY appears outside parentheses (i.e. orders the result,
    not a WITHIN GROUP or window clause)."""
    text = strip_comments(sql)
    text = re.sub(r"'(?:[^']|'')*'", "''", text)
    depth, flat = 0, []
    for c in text:
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0:
            flat.append(c)
    return re.search(r"\border\s+by\b", "".join(flat), re.IGNORECASE) is not None
