"""Result-set comparison: a query's time counts only if its result equals the
reference (heap's) result.

Rules, in order of strictness:
  * rows are compared as a multiset, and also in order when the query orders
    its output (Query.ordered);
  * int, Decimal, text, dates, json, arrays: exactly equal ("strict"), except
    trailing blanks of char(n), which DuckDB does not pad;
  * double precision / real (Python float): equal within REL_TOL, because a
    parallel sum adds in a different order;
  * against DuckDB ("loose"): every number is compared as a float within
    LOOSE_REL_TOL, since DuckDB returns double where PostgreSQL returns
    numeric (avg, division) and stores real as float32; JSON text from
    DuckDB is parsed before comparing to jsonb values.
"""
import datetime
import decimal
import json
import math

REL_TOL = 1e-9
LOOSE_REL_TOL = 1e-6
_NUMBER = (int, float, decimal.Decimal)


def _norm(v):
    """Canonical form of a value for sorting and comparing."""
    if isinstance(v, str):
        return v.rstrip(" ")
    if isinstance(v, (list, tuple)):
        return [_norm(x) for x in v]
    if isinstance(v, dict):
        return {k: _norm(x) for k, x in v.items()}
    return v


def _sort_key(row):
    """Type-tolerant key so two sides sort alike despite float noise:
    numbers become rounded floats, everything else its repr."""
    key = []
    for v in row:
        if v is None:
            key.append((0, ""))
        elif isinstance(v, bool):
            key.append((1, str(v)))
        elif isinstance(v, _NUMBER):
            f = float(v)
            key.append((2, "%.6g" % f if math.isfinite(f) else str(f)))
        elif isinstance(v, (datetime.datetime, datetime.date)):
            key.append((3, v.isoformat()))
        else:
            key.append((4, repr(_norm(v))))
    return key


def _values_equal(a, b, loose: bool) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, _NUMBER) and isinstance(b, _NUMBER):
        if loose or isinstance(a, float) or isinstance(b, float):
            tol = LOOSE_REL_TOL if loose else REL_TOL
            return math.isclose(float(a), float(b), rel_tol=tol, abs_tol=tol)
        return a == b
    if loose and isinstance(a, str) != isinstance(b, str):
        # DuckDB hands JSON back as text; PostgreSQL's jsonb arrives parsed.
        try:
            a = json.loads(a) if isinstance(a, str) else a
            b = json.loads(b) if isinstance(b, str) else b
        except ValueError:
            return False
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_values_equal(x, y, loose) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_values_equal(a[k], b[k], loose) for k in a)
    return _norm(a) == _norm(b)


def _rows_equal(r1, r2, loose: bool) -> bool:
    return len(r1) == len(r2) and all(_values_equal(a, b, loose) for a, b in zip(r1, r2))


def _show(row, limit=160) -> str:
    s = repr(tuple(row))
    return s if len(s) <= limit else s[:limit] + "...)"


def compare(expected: list, actual: list, ordered: bool, loose: bool = False) -> str | None:
    """None when the results match, else a one-paragraph description of the
    first difference (for the mismatch report)."""
    if len(expected) != len(actual):
        return f"row count differs: expected {len(expected)}, got {len(actual)}"
    if ordered:
        for i, (e, a) in enumerate(zip(expected, actual)):
            if not _rows_equal(e, a, loose):
                return f"row {i + 1} differs (ordered result):\n    expected {_show(e)}\n    got      {_show(a)}"
        return None
    se = sorted(expected, key=_sort_key)
    sa = sorted(actual, key=_sort_key)
    for i, (e, a) in enumerate(zip(se, sa)):
        if not _rows_equal(e, a, loose):
            return f"row sets differ (compared unordered):\n    expected {_show(e)}\n    got      {_show(a)}"
    return None
