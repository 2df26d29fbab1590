"""Files a run leaves in its results directory: CSVs (every row stamped with
commit, versions, settings and machine), meta.json and summary.md.

Ratios in the summary are kind time / heap time in the same mode (below 1
is faster than heap) and heap size / kind size (above 1 is smaller than
heap), so each reads as "how much better than heap" the usual way round.
"""
import csv
import json
import math

from . import runner
from .kinds import ALL_KINDS, HEAP

MIB = 1024 * 1024
MODE_TEXT = {"serial": "serial — jit off, no parallel workers",
             "parallel": "parallel — jit on, {workers} workers per gather"}
SEED_NOTE = ("Seeds for comparison: cstore_fdw was 3–4× smaller than heap on TPC-H SF 10 "
             "(pglz); the columnstore index 5.0× with zstd level 5 (4.5× zstd-1, 5.3× zstd-9, "
             "3.5–3.8× lz4) on SF 1000; the seed system's events table: heap 388 MB, "
             "colcompress 95 MB (4×), rowcompress 106 MB, citus_columnar 48 MB.")


def _write_csv(path, stamp: dict, rows: list[dict]) -> None:
    if not rows:
        return
    fields = list(stamp) + list(rows[0])
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({**stamp, **r})


def _r(x, nd=3):
    return None if x is None else round(x, nd)


def write_csvs(out, stamp: dict, res, modes) -> None:
    workers = {m.name: m.workers for m in modes}
    jit = {m.name: m.jit for m in modes}
    _write_csv(out / "results.csv", stamp, [{
        "suite": t.suite, "mode": t.mode, "jit": jit.get(t.mode, ""),
        "max_parallel_workers_per_gather": workers.get(t.mode, ""),
        "query": t.qid, "title": t.title, "kind": t.kind, "status": t.status,
        "runs": len(t.times_ms), "median_ms": _r(t.median), "min_ms": _r(t.min),
        "max_ms": _r(t.max), "times_ms": ";".join(f"{x:.3f}" for x in t.times_ms),
        "result_rows": t.rows, "blocks": t.blocks, "note": t.note} for t in res.timings])
    _write_csv(out / "sizes.csv", stamp, [{
        "suite": ld.suite, "kind": ld.kind, "table": ld.table, "rows": ld.rows,
        "load_s": _r(ld.load_s), "index_s": _r(ld.index_s), "maint_s": _r(ld.maint_s),
        "total_bytes": ld.total_bytes, "data_bytes": ld.data_bytes, "main_bytes": ld.main_bytes,
        "index_bytes": ld.index_bytes, "notes": " | ".join(ld.notes)} for ld in res.loads])
    _write_csv(out / "churn.csv", stamp, [{
        "suite": c.suite, "kind": c.kind, "table": c.table, "rows_updated": c.rows_updated,
        "update_s": _r(c.update_s), "vacuum_s": _r(c.vacuum_s), "before_bytes": c.before_bytes,
        "after_update_bytes": c.after_update_bytes,
        "after_vacuum_bytes": ";".join(str(b) for b in c.after_vacuum_bytes),
        "note": c.note} for c in res.churn])
    _write_csv(out / "kinds.csv", stamp, [{
        "suite": k.suite, "kind": k.kind, "available": k.available, "reason": k.reason}
        for k in res.kinds])
    _write_csv(out / "codecs.csv", stamp, [{
        "codec": c.label, "options": json.dumps(c.options), "status": c.status, "reason": c.reason,
        "load_s": _r(c.load_s), "total_bytes": c.total_bytes, "data_bytes": c.data_bytes,
        "query_total_s": _r(c.query_s), "queries_ok": c.queries_ok,
        "queries_total": c.queries_total} for c in res.codecs])


# ---------------------------------------------------------------- markdown

def _ms(ms: float) -> str:
    if ms < 10:
        return f"{ms:.2f} ms"
    if ms < 1000:
        return f"{ms:.1f} ms"
    return f"{ms / 1000:.2f} s"


def _mib(b: int) -> str:
    return f"{b / MIB:,.1f} MiB"


def _ratio(x: float | None) -> str:
    return "" if x is None else f"{x:.2f}×"


def _geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def _kinds_in(res, suite):
    present = {k.kind for k in res.kinds if k.suite == suite}
    return [k.key for k in ALL_KINDS if k.key in present]


def _sizes_section(res, suite) -> list[str]:
    lines = ["| kind | status | rows | load | indexes | vacuum/merge | total size | data size "
             "| smaller than heap (total / data) |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    by_kind = {}
    for ld in res.loads:
        if ld.suite == suite:
            by_kind.setdefault(ld.kind, []).append(ld)
    heap = by_kind.get(HEAP.key, [])
    h_total = sum(ld.total_bytes for ld in heap)
    h_data = sum(ld.data_bytes for ld in heap)
    notes = []
    for key in _kinds_in(res, suite):
        st = res.kind_state(suite, key)
        if not st.available:
            lines.append(f"| {key} | n/a ({st.reason}) | | | | | | | |")
            continue
        lds = by_kind.get(key, [])
        total = sum(ld.total_bytes for ld in lds)
        data = sum(ld.data_bytes for ld in lds)
        ratio = (f"{_ratio(h_total / total if total else None)} / {_ratio(h_data / data if data else None)}")
        lines.append(
            f"| {key} | available | {sum(ld.rows for ld in lds):,} | {sum(ld.load_s for ld in lds):.1f} s "
            f"| {sum(ld.index_s for ld in lds):.1f} s | {sum(ld.maint_s for ld in lds):.1f} s "
            f"| {_mib(total)} | {_mib(data)} | {ratio} |")
        for ld in lds:
            notes += [f"{key} {ld.table}: {n}" for n in ld.notes]
    if notes:
        lines += ["", "Notes:", ""] + [f"- {n}" for n in notes]
    return lines


def _churn_section(res, suite) -> list[str]:
    rows = [c for c in res.churn if c.suite == suite]
    if not rows:
        return []
    lines = ["| kind | rows updated | UPDATE | VACUUMs | before | after UPDATE "
             "| after each VACUUM | last ÷ before |", "|---|---:|---:|---:|---:|---:|---|---:|"]
    for c in rows:
        after = " → ".join(_mib(b) for b in c.after_vacuum_bytes) or "-"
        last = c.after_vacuum_bytes[-1] if c.after_vacuum_bytes else None
        ratio = f"{last / c.before_bytes:.3f}" if last and c.before_bytes else "-"
        note = f" ({c.note})" if c.note else ""
        lines.append(f"| {c.kind}{note} | {c.rows_updated:,} | {c.update_s:.1f} s "
                     f"| {len(c.after_vacuum_bytes)} in {c.vacuum_s:.1f} s | {_mib(c.before_bytes)} "
                     f"| {_mib(c.after_update_bytes)} | {after} | {ratio} |")
    return lines


def _per_table_section(res, suite) -> list[str]:
    kinds = [k for k in _kinds_in(res, suite) if res.kind_state(suite, k).available and k != "duckdb"]
    rows = {}
    for ld in res.loads:
        if ld.suite == suite and ld.kind in kinds:
            rows.setdefault(ld.table, {})[ld.kind] = ld
    if not rows:
        return []
    lines = ["| table | rows | " + " | ".join(f"{k} total (data)" for k in kinds) + " |",
             "|---|---:|" + "---:|" * len(kinds)]
    for table, lds in rows.items():
        cells = []
        heap = lds.get(HEAP.key)
        for k in kinds:
            ld = lds.get(k)
            if ld is None:
                cells.append("")
                continue
            cell = f"{_mib(ld.total_bytes)} ({_mib(ld.data_bytes)})"
            if heap and k != HEAP.key and ld.data_bytes:
                cell += f" {_ratio(heap.data_bytes / ld.data_bytes)}"
            cells.append(cell)
        n = next(iter(lds.values())).rows
        lines.append(f"| {table} | {n:,} | " + " | ".join(cells) + " |")
    return lines


def _by_query(timings):
    """Query ids in first-seen order, and each query's timings by kind."""
    order, by = [], {}
    for t in timings:
        if t.qid not in by:
            order.append(t.qid)
        by.setdefault(t.qid, {})[t.kind] = t
    return order, by


def _queries_section(res, suite, mode) -> list[str]:
    ts = [t for t in res.timings if t.suite == suite and t.mode == mode]
    if not ts:
        return []
    kinds = _kinds_in(res, suite)
    order, by = _by_query(ts)
    lines = ["| query | title | " + " | ".join(kinds) + " |", "|---|---|" + "---:|" * len(kinds)]
    ratios = {k: [] for k in kinds}
    totals = {k: 0.0 for k in kinds}
    complete = {k: True for k in kinds}
    for qid in order:
        row = by[qid]
        heap = row.get(HEAP.key)
        hmed = heap.median if heap and heap.status == "ok" else None
        cells = []
        for k in kinds:
            t = row.get(k)
            if t is None or t.status != "ok":
                complete[k] = False
                cells.append("n/a" if t is None or t.status == "n/a" else f"**{t.status.upper()}**")
                continue
            totals[k] += t.median
            cell = _ms(t.median)
            if hmed and k != HEAP.key:
                ratios[k].append(t.median / hmed)
                cell += f" ({_ratio(t.median / hmed)})"
            cells.append(cell)
        title = next(iter(row.values())).title.replace("|", "\\|")
        lines.append(f"| {qid} | {title} | " + " | ".join(cells) + " |")
    lines.append("| **total** | sum of medians | " + " | ".join(
        (_ms(totals[k]) if complete[k] and totals[k] else "") for k in kinds) + " |")
    lines.append("| **geomean** | time ÷ heap | " + " | ".join(
        ("1.00×" if k == HEAP.key else _ratio(_geomean(ratios[k]))) for k in kinds) + " |")
    return lines


def _speedup_section(res, suite) -> list[str]:
    """Each kind's parallel speed-up over its own serial run of a query
    (serial median ÷ parallel median), when both modes ran."""
    ts = [t for t in res.timings if t.suite == suite and t.status == "ok"]
    serial = {(t.qid, t.kind): t.median for t in ts if t.mode == "serial"}
    parallel = {(t.qid, t.kind): t.median for t in ts if t.mode == "parallel"}
    if not serial or not parallel:
        return []
    kinds = _kinds_in(res, suite)
    order, _ = _by_query([t for t in ts if t.mode == "parallel"])
    lines = ["| query | " + " | ".join(kinds) + " |", "|---|" + "---:|" * len(kinds)]
    for qid in order:
        cells = []
        for k in kinds:
            s, p = serial.get((qid, k)), parallel.get((qid, k))
            cells.append(_ratio(s / p) if s and p else "")
        lines.append(f"| {qid} | " + " | ".join(cells) + " |")
    return lines


def _blocks_section(res, suite, mode) -> list[str]:
    """Data each query touched in shared buffers (EXPLAIN ANALYZE BUFFERS),
    against heap's."""
    ts = [t for t in res.timings if t.suite == suite and t.mode == mode and t.blocks is not None]
    if not ts:
        return []
    kinds = _kinds_in(res, suite)
    order, by = _by_query(ts)
    lines = ["| query | " + " | ".join(kinds) + " |", "|---|" + "---:|" * len(kinds)]
    for qid in order:
        row = by[qid]
        heap = row.get(HEAP.key)
        cells = []
        for k in kinds:
            t = row.get(k)
            if t is None:
                cells.append("")
                continue
            cell = _mib(t.blocks * 8192)
            if heap and heap.blocks and k != HEAP.key:
                cell += f" ({_ratio(t.blocks / heap.blocks)})"
            cells.append(cell)
        lines.append(f"| {qid} | " + " | ".join(cells) + " |")
    return lines


def _codec_section(res) -> list[str]:
    if not res.codecs:
        return []
    heap = next((c for c in res.codecs if c.label == "heap"), None)
    lines = ["| configuration | status | load | total size | data size | smaller than heap (data) "
             "| total query time | queries |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for c in res.codecs:
        if c.status != "ok":
            lines.append(f"| {c.label} | {c.status} ({c.reason}) | | | | | | |")
            continue
        ratio = _ratio(heap.data_bytes / c.data_bytes) if heap and c.data_bytes else ""
        qs = f"{c.query_s:.2f} s" if c.query_s is not None else ""
        extra = f" ({c.reason})" if c.reason else ""
        lines.append(f"| {c.label} | ok{extra} | {c.load_s:.1f} s | {_mib(c.total_bytes)} "
                     f"| {_mib(c.data_bytes)} | {ratio} | {qs} | {c.queries_ok}/{c.queries_total} |")
    return lines


def write_summary(out, meta: dict, res, modes, charts: dict) -> None:
    m, s = meta["machine"], meta["server"]
    ext = meta["extension_version"] or f"n/a ({meta['extension_reason']})"
    mode_lines = "; ".join(MODE_TEXT[md.name].format(workers=md.workers) for md in modes)
    status = ("OK — every result matched heap" if not res.failures
              else f"FAILED — {len(res.failures)} correctness failure(s), see the end")
    L = [f"# storage_engine benchmark — {meta['run_id']}", "",
         f"**{status}**", "",
         "| | |", "|---|---|",
         f"| commit | `{meta['commit']}` |",
         f"| PostgreSQL | {s['server_version']} (jit available: {s['jit_available']}) |",
         f"| storage_engine | {ext} |",
         f"| DuckDB | {meta['duckdb_version'] or 'n/a'} |",
         f"| machine | {m['cores']} cores, {m['memory_gib']} GiB, {m['cpu']}, {m['os']} |",
         f"| server settings | shared_buffers {s['shared_buffers']}, work_mem {s['work_mem']}, "
         f"max_parallel_workers {s['max_parallel_workers']}, "
         f"huge pages {s.get('huge_pages_status') or s.get('huge_pages') or 'unknown'} |",
         f"| modes | {mode_lines} |",
         f"| timing | {meta['runs']} run(s) after 1 warm-up"
         + (f" (queries under {runner.SHORT_MS:g} ms: until {runner.SHORT_BUDGET_MS:g} ms of runs, at most {runner.SHORT_MAX_RUNS})"
            if meta['runs'] >= 3 else "")
         + ", taking turns across kinds, median; results checked against heap first |",
         f"| command | `{meta['command']}` |", ""]
    for suite, heading in (("events", f"events — {meta.get('events_rows') or 0:,} rows"),
                           ("tpch", f"TPC-H — SF {meta.get('tpch_sf')}")):
        if not any(k.suite == suite for k in res.kinds):
            continue
        L += [f"## {heading}", "", "### Table kinds and sizes", ""] + _sizes_section(res, suite) + [""]
        if suite == "tpch":
            L += ["Per table (total incl. indexes, data in parentheses, data ratio vs heap):", ""]
            L += _per_table_section(res, suite) + [""]
        if suite in charts.get("sizes", {}):
            L += [f"![sizes]({charts['sizes'][suite]})", ""]
        for md in modes:
            sec = _queries_section(res, suite, md.name)
            if not sec:
                continue
            L += [f"### {MODE_TEXT[md.name].format(workers=md.workers)}", ""]
            chart = charts.get("queries", {}).get((suite, md.name))
            if chart:
                L += [f"![{suite} {md.name}]({chart})", ""]
            L += sec + ["", "Cells: median time (time ÷ heap time; below 1.00× is faster than heap).", ""]
            blocks = _blocks_section(res, suite, md.name)
            if blocks:
                L += ["Data touched in shared buffers by one run (EXPLAIN ANALYZE BUFFERS: "
                      "blocks hit or read × 8 kB; ÷ heap):", ""] + blocks + [""]
        speedup = _speedup_section(res, suite)
        if speedup:
            L += ["### Parallel speed-up", "",
                  "Each kind's serial median ÷ its parallel median (above 1.00× the parallel "
                  "mode is faster; it also has JIT on where the server has it, and our "
                  "parallel scans take the session's scan helpers in place of parallel "
                  "workers):", ""] + speedup + [""]
        churn = _churn_section(res, suite)
        if churn:
            L += ["### After an UPDATE of 10% of rows and VACUUM", "",
                  "Data size (pg_table_size) before, after `UPDATE ... WHERE id % 10 = 0`, "
                  "and after each VACUUM:", ""] + churn + [""]
    if res.codecs:
        L += ["## Compression study (TPC-H in colcompress)", ""] + _codec_section(res) + [""]
        if charts.get("codecs"):
            L += [f"![codecs]({charts['codecs']})", ""]
    if any(k.suite in ("events", "tpch") for k in res.kinds):
        L += [SEED_NOTE, ""]
    if res.notes:
        L += ["## Notes", ""] + [f"- {n}" for n in res.notes] + [""]
    if res.failures:
        L += ["## Correctness failures", "", "```"] + res.failures + ["```", ""]
    (out / "summary.md").write_text("\n".join(L))


def write_meta(out, meta: dict) -> None:
    (out / "meta.json").write_text(json.dumps(meta, indent=2, default=str) + "\n")
