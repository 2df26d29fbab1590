"""The two suites, each: load every available kind, run the queries in every
mode with the correctness check, hand the records to Results.

A kind that fails its probe or its load is recorded as unavailable with the
reason and the suite goes on without it; only heap is indispensable.
"""
from . import codec_study, duckdb_ref, events, progress, queries, runner, tpch
from .conn import first_line, psycopg
from .errors import ServerLost, SetupError
from .kinds import DUCKDB, HEAP, probe


def _open_duckdb(ctx, suite: str):
    """A fresh DuckDB file for this suite, or None (recorded as n/a)."""
    if not ctx.want_duckdb:
        return None
    if ctx.duckdb_reason:
        ctx.results.set_kind(suite, DUCKDB.key, False, ctx.duckdb_reason)
        return None
    return duckdb_ref.DuckDB(ctx.work_dir / f"{suite}.duckdb")


def _pg_targets(ctx, suite: str, variables_for, search_path_for=None) -> list:
    targets = []
    for kind in ctx.pg_kinds:
        st = ctx.results.kind_state(suite, kind.key)
        if st and st.available:
            targets.append(runner.PgTarget(
                kind, ctx.connect(), variables_for(kind), ctx.args.query_timeout,
                search_path=search_path_for(kind) if search_path_for else None))
    return targets


def _unavailable(ctx, suite: str) -> dict:
    return {k.kind: k.reason for k in ctx.results.kinds if k.suite == suite and not k.available}


def _load_pg_kinds(ctx, suite: str, options_for, load) -> None:
    """Probe and load every PostgreSQL kind; heap failing is a setup error,
    the server dying during a load is a failure (ServerLost)."""
    res = ctx.results
    for kind in ctx.pg_kinds:
        reason = probe(ctx.admin, kind, ctx.extension_reason)
        if reason is None:
            try:
                res.loads += load(kind, options_for(kind))
            except psycopg.Error as e:
                reason = f"load failed: {first_line(e)}"
                if ctx.admin.broken:
                    res.failures.append(f"SERVER LOST {suite}: loading {kind.key}: {reason}; "
                                        "the server most likely crashed, see its log")
                    res.set_kind(suite, kind.key, False, reason)
                    raise ServerLost(reason) from e
        if reason and kind is HEAP:
            raise SetupError(f"{suite}: cannot create or load the heap tables: {reason}")
        res.set_kind(suite, kind.key, reason is None, reason or "")
        if reason:
            progress.log(f"{suite}: {kind.key} is n/a ({reason})")


def run_events(ctx) -> None:
    """The seed's events benchmark: Q1-Q10 on the tables as the seed builds
    them, then the key phase (btrees for lookups) and K1-K12."""
    args, res = ctx.args, ctx.results
    qs = queries.load("events", args.queries)
    rows = args.rows
    events.generate_staging(ctx.admin, rows)
    _load_pg_kinds(ctx, "events", lambda k: events.TABLE_OPTIONS.get(k.key),
                   lambda k, opts: [events.load_kind(ctx.admin, k, rows, opts)])
    lookups = events.lookup_variables(rows)
    duck = _open_duckdb(ctx, "events")
    if duck is not None:
        try:
            csv = ctx.work_dir / "events.csv"
            events.export_csv(ctx.admin, csv)
            res.loads.append(duck.load_events(csv, rows))
            csv.unlink()
            res.set_kind("events", DUCKDB.key, True)
        except Exception as e:  # noqa: BLE001 - any DuckDB failure makes it n/a, reported
            res.set_kind("events", DUCKDB.key, False, f"load failed: {first_line(e)}")
            duck.close()
            duck = None
    targets = _pg_targets(ctx, "events", lambda k: {"events": events.table_name(k), **lookups})
    if duck is not None:
        targets.append(duckdb_ref.DuckTarget(duck, {"events": "events", **lookups}, args.query_timeout))
    refs = {}
    unavailable = _unavailable(ctx, "events")
    try:
        main = [q for q in qs if q.phase == "main"]
        keyq = [q for q in qs if q.phase == "key"]
        if main:
            runner.run_queries("events", main, targets, ctx.modes, args.runs, refs, res, unavailable)
        if keyq:
            for t in targets:
                if t.kind.am is not None:
                    load = next((ld for ld in res.loads if ld.suite == "events" and ld.kind == t.kind.key), None)
                    events.add_key_indexes(ctx.admin, t.kind, load)
            runner.run_queries("events", keyq, targets, ctx.modes, args.runs, refs, res, unavailable)
        # last: it changes the tables the queries read
        if args.churn:
            for t in targets:
                if t.kind.am is not None:
                    c = events.churn(ctx.admin, t.kind, events.table_name(t.kind))
                    res.churn.append(c)
                    # rows lost or damaged by UPDATE and VACUUM fail the run
                    if "DAMAGED" in c.note:
                        res.failures.append(f"churn {c.table}: {c.note}")
    finally:
        for t in targets:
            t.close()
        if duck is not None:
            duck.close()
        ctx.admin.execute("DROP TABLE IF EXISTS events_staging")


def run_tpch(ctx) -> None:
    """TPC-H at --sf on every kind, then the codec study (unless disabled)."""
    args, res = ctx.args, ctx.results
    qs = queries.load("tpch", args.queries)
    data_dir = tpch.ensure_data(args.sf, args.data_dir)
    variables = tpch.variables(args.sf)
    _load_pg_kinds(ctx, "tpch", lambda k: None,
                   lambda k, opts: tpch.load_kind(ctx.admin, k, tpch.schema_name(k), data_dir, opts))
    duck = _open_duckdb(ctx, "tpch")
    if duck is not None:
        try:
            res.loads.append(duck.load_tpch(data_dir))
            res.set_kind("tpch", DUCKDB.key, True)
        except Exception as e:  # noqa: BLE001 - reported as n/a
            res.set_kind("tpch", DUCKDB.key, False, f"load failed: {first_line(e)}")
            duck.close()
            duck = None
    targets = _pg_targets(ctx, "tpch", lambda k: variables, tpch.schema_name)
    if duck is not None:
        targets.append(duckdb_ref.DuckTarget(duck, variables, args.query_timeout))
    refs = {}
    try:
        runner.run_queries("tpch", qs, targets, ctx.modes, args.runs, refs, res, _unavailable(ctx, "tpch"))
    finally:
        for t in targets:
            t.close()
        if duck is not None:
            duck.close()
    if args.codec_study and qs:
        codec_study.run(ctx, data_dir, qs, variables, refs)
