"""Command line of bench/run: parse options, set up the database, run the
suites, write the report.  Exit codes: 0 ok, 1 correctness failure (a result
differs from heap's or a query fails), 2 setup error.
"""
import argparse
import datetime
import os
import shlex
import shutil
import sys
import traceback
from pathlib import Path

from .errors import ServerLost, SetupError
from .sqltext import BENCH_DIR

SMOKE = {"suite": "all", "rows": 100_000, "runs": 1, "sf": 0.01, "study_runs": 1,
         "query_timeout": 20.0}
DEFAULTS = {"suite": "events", "rows": 1_000_000, "runs": 3, "sf": 1.0, "study_runs": 1,
            "query_timeout": 600.0}


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="bench/run",
        description="storage_engine benchmark: the seed's events benchmark and TPC-H on heap, "
                    "colcompress, rowcompress (and citus columnar, DuckDB when present). "
                    "See bench/README.md.")
    p.add_argument("--suite", choices=["events", "tpch", "all"],
                   help="which benchmark (default: events)")
    p.add_argument("--rows", type=int, help="events rows (default 1,000,000)")
    p.add_argument("--sf", type=float, help="TPC-H scale factor (default 1; 0.01 for a quick check)")
    p.add_argument("--runs", type=int, help="timed runs per query after one warm-up (default 3)")
    p.add_argument("--mode", choices=["serial", "parallel", "both"], default="both",
                   help="serial: jit off, no workers; parallel: jit on, --workers per gather")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="parallel workers per gather / DuckDB threads in parallel mode (default: cores)")
    p.add_argument("--kinds", default="heap,colcompress,rowcompress,citus_columnar,duckdb",
                   help="comma-separated table kinds to compare (heap is always included)")
    p.add_argument("--queries", help="comma-separated query ids or globs, e.g. Q1,Q5,K*")
    p.add_argument("--codec-study", action=argparse.BooleanOptionalAction, default=True,
                   help="TPC-H compression study on colcompress (default on with --suite tpch/all)")
    p.add_argument("--churn", action=argparse.BooleanOptionalAction, default=True,
                   help="events: after the queries, UPDATE 10%% of rows and VACUUM; report sizes")
    p.add_argument("--study-runs", type=int, help="timed runs per query in the codec study (default 1)")
    p.add_argument("--query-timeout", type=float,
                   help="seconds before a query is canceled and reported as timeout, and not "
                        "retried on that kind (default 600; 20 with --smoke)")
    p.add_argument("--db", default="storage_engine_bench",
                   help="database to (re)create for the run (default storage_engine_bench)")
    p.add_argument("--out", type=Path, help="results directory (default bench/results/<timestamp>)")
    p.add_argument("--data-dir", type=Path, default=BENCH_DIR / "data",
                   help="cache of generated TPC-H files (default bench/data)")
    p.add_argument("--allow-missing-extension", action="store_true",
                   help="run even without storage_engine: its kinds are reported as n/a")
    p.add_argument("--smoke", action="store_true",
                   help="quick self-test of the kit: both suites, 100,000 rows, SF 0.01, 1 run, "
                        "20 s query timeout")
    args = p.parse_args(argv)
    base = SMOKE if args.smoke else DEFAULTS
    for k, v in base.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    args.queries = [x.strip() for x in args.queries.split(",") if x.strip()] if args.queries else None
    for name in ("rows", "runs", "study_runs"):
        if getattr(args, name) < (1 if name == "rows" else 0):
            p.error(f"--{name.replace('_', '-')} is too small")
    if args.sf <= 0 or args.query_timeout <= 0:
        p.error("--sf and --query-timeout must be positive")
    return args


def _out_dir(args, run_id) -> Path:
    if args.out:
        out = args.out
    else:
        out = BENCH_DIR / "results" / run_id
    out.mkdir(parents=True, exist_ok=True)
    if not args.out:
        latest = BENCH_DIR / "results" / "latest"
        try:
            if latest.is_symlink() or latest.exists():
                latest.unlink()
            latest.symlink_to(run_id)
        except OSError:
            pass
    return out


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    run_id = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    try:
        return _run(args, run_id)
    except SetupError as e:
        print(f"\nbench: setup error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nbench: interrupted", file=sys.stderr)
        return 2


def _run(args, run_id) -> int:
    # Imported here so a missing package becomes a SetupError with advice.
    from . import charts, conn, duckdb_ref, kinds, progress, report, runner, stamp, suites, tpch
    from .context import Context

    try:
        wanted = kinds.parse_list(args.kinds)
    except ValueError as e:
        raise SetupError(str(e)) from e
    progress.log(f"storage_engine benchmark {run_id}: suite {args.suite}, mode {args.mode}")
    where = conn.resolve_environment()
    progress.log(f"server: {where}")
    conn.connect().close()  # unreachable server: clear error before anything else
    conn.recreate_database(args.db)
    admin = conn.connect(args.db)
    ext_version, ext_reason = conn.ensure_extension(admin, args.allow_missing_extension)
    progress.log(f"extension storage_engine: {ext_version or 'n/a (' + ext_reason + ')'}")
    out = _out_dir(args, run_id)
    work = out / "work"
    work.mkdir(exist_ok=True)
    ctx = Context(args=args, dbname=args.db, admin=admin, extension_reason=ext_reason,
                  kinds=wanted, modes=runner.make_modes(args.mode, args.workers),
                  work_dir=work, duckdb_reason=duckdb_ref.unavailable_reason())
    meta = {
        "run_id": run_id, "commit": stamp.commit(), "command": "bench/run " + shlex.join(sys.argv[1:]),
        "extension_version": ext_version, "extension_reason": ext_reason,
        "duckdb_version": duckdb_ref.version(), "server": stamp.server(admin),
        "machine": stamp.machine(), "runs": args.runs, "modes": [m.__dict__ for m in ctx.modes],
        "events_rows": args.rows if args.suite in ("events", "all") else None,
        "tpch_sf": tpch.sf_text(args.sf) if args.suite in ("tpch", "all") else None,
        "kinds": [k.key for k in wanted], "connection": where,
    }
    failed_with = None
    try:
        if args.suite in ("events", "all"):
            suites.run_events(ctx)
        if args.suite in ("tpch", "all"):
            suites.run_tpch(ctx)
    except SetupError as e:
        failed_with = e
    except ServerLost:
        pass  # already recorded as a failure: exit 1 below
    except Exception as e:  # noqa: BLE001 - report what we have, then fail loudly
        traceback.print_exc()
        failed_with = SetupError(f"unexpected {e.__class__.__name__}: {e}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        _write_report(out, meta, ctx, report, charts, stamp)
        admin.close()
    progress.log(f"results: {out}/summary.md")
    if failed_with is not None:
        raise failed_with
    if ctx.results.failures:
        print(f"\nbench: {len(ctx.results.failures)} correctness failure(s):", file=sys.stderr)
        for f in ctx.results.failures:
            print("  " + f.replace("\n", "\n  "), file=sys.stderr)
        return 1
    progress.log("all results matched heap")
    return 0


def _write_report(out, meta, ctx, report, charts, stamp) -> None:
    res, m, s = ctx.results, meta["machine"], meta["server"]
    csv_stamp = {"run_id": meta["run_id"], "commit": meta["commit"],
                 "pg_version": s["server_version"], "extension_version": meta["extension_version"] or "",
                 "duckdb_version": meta["duckdb_version"], "cores": m["cores"],
                 "memory_gib": m["memory_gib"], "cpu": m["cpu"],
                 "shared_buffers": s["shared_buffers"], "work_mem": s["work_mem"],
                 "events_rows": meta["events_rows"] or "", "tpch_sf": meta["tpch_sf"] or "",
                 "runs_per_query": meta["runs"]}
    report.write_csvs(out, csv_stamp, res, ctx.modes)
    drawn = {"queries": {}, "sizes": {}}
    if charts.available():
        for suite, name in (("events", "events"), ("tpch", "TPC-H")):
            for md in ctx.modes:
                p = charts.query_chart(out, res, suite, md.name, f"{name}, {md.name} mode")
                if p:
                    drawn["queries"][(suite, md.name)] = p
            p = charts.size_chart(out, res, suite, f"{name}: size per table kind")
            if p:
                drawn["sizes"][suite] = p
        drawn["codecs"] = charts.codec_chart(out, res)
    else:
        res.notes.append("charts skipped: matplotlib is not installed")
    report.write_meta(out, meta)
    report.write_summary(out, meta, res, ctx.modes, drawn)
