"""Compression study, after the seed's columnstore-index post: the TPC-H data
in colcompress under each codec and level, against size, load time and total
query time, with heap as the reference line.

Each configuration is loaded into its own schema, queried (in the first
selected mode, warm-up plus --study-runs runs, results checked against heap
like everywhere else), measured, and dropped before the next one to bound
disk use.  A codec the server refuses is reported as n/a with its reason.
"""
from . import progress, runner, tpch
from .conn import first_line, psycopg
from .kinds import COLCOMPRESS, HEAP, probe
from .results import CodecResult

CONFIGS = [
    ("zstd-1", {"compression": "zstd", "compression_level": 1}),
    ("zstd-5", {"compression": "zstd", "compression_level": 5}),
    ("zstd-9", {"compression": "zstd", "compression_level": 9}),
    ("lz4", {"compression": "lz4"}),
    ("pglz", {"compression": "pglz"}),
    ("none", {"compression": "none"}),
]
SUITE = "tpch-codecs"


def heap_reference(results, mode_name: str, n_queries: int) -> CodecResult:
    """The heap line of the study, from the main TPC-H run's numbers."""
    loads = [ld for ld in results.loads if ld.suite == "tpch" and ld.kind == HEAP.key]
    medians = [t.median for t in results.timings
               if t.suite == "tpch" and t.kind == HEAP.key and t.mode == mode_name and t.status == "ok"]
    return CodecResult("heap", {}, "ok", load_s=sum(ld.load_s for ld in loads),
                       total_bytes=sum(ld.total_bytes for ld in loads),
                       data_bytes=sum(ld.data_bytes for ld in loads),
                       query_s=sum(medians) / 1000.0, queries_ok=len(medians),
                       queries_total=n_queries)


def run(ctx, data_dir, queries, variables: dict, references: dict) -> None:
    res = ctx.results
    mode = ctx.modes[0]
    res.codecs.append(heap_reference(res, mode.name, len(queries)))
    col_state = res.kind_state("tpch", COLCOMPRESS.key)
    for label, options in CONFIGS:
        cr = CodecResult(label, options, "n/a", queries_total=len(queries))
        res.codecs.append(cr)
        if col_state is None or not col_state.available:
            cr.reason = "colcompress unavailable" + (f": {col_state.reason}" if col_state else "")
            continue
        cr.reason = probe(ctx.admin, COLCOMPRESS, ctx.extension_reason, options, name="codec_probe") or ""
        if cr.reason:
            progress.log(f"codec study: {label} n/a ({cr.reason})")
            continue
        schema = tpch.schema_name(COLCOMPRESS, "_" + label.replace("-", ""))
        kind_label = f"{COLCOMPRESS.key}:{label}"
        try:
            loads = tpch.load_kind(ctx.admin, COLCOMPRESS, schema, data_dir, options, kind_label)
        except psycopg.Error as e:
            cr.status, cr.reason = "failed", f"load failed: {first_line(e)}"
            tpch.drop_schema(ctx.admin, schema)
            continue
        for ld in loads:
            ld.suite = SUITE
        res.loads += loads
        cr.status = "ok"
        cr.load_s = sum(ld.load_s for ld in loads)
        cr.total_bytes = sum(ld.total_bytes for ld in loads)
        cr.data_bytes = sum(ld.data_bytes for ld in loads)
        conn = ctx.connect()
        target = runner.PgTarget(COLCOMPRESS, conn, variables, ctx.args.query_timeout,
                                 search_path=schema, label=kind_label)
        before = len(res.timings)
        runner.run_queries(SUITE, queries, [target], [mode], ctx.args.study_runs, references, res)
        conn.close()
        ok = [t for t in res.timings[before:] if t.status == "ok"]
        cr.queries_ok = len(ok)
        cr.query_s = sum(t.median for t in ok) / 1000.0
        if cr.queries_ok < len(queries):
            cr.reason = f"{len(queries) - cr.queries_ok} queries did not complete; total is partial"
        tpch.drop_schema(ctx.admin, schema)
