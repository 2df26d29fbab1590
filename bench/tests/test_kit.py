"""Unit tests of the kit's pure logic (no server needed):
    python -m unittest discover -s bench/tests -t .
The end-to-end self-test is `bench/run --smoke`."""
import datetime
import unittest
from decimal import Decimal

from bench.lib import check, events, queries, report, runner, sqltext, tpch
from bench.lib.results import Results, Timing


class RenderTest(unittest.TestCase):
    def test_only_known_names_are_replaced(self):
        sql = "SELECT x::text, '12:30', :events, :unknown FROM :events WHERE a = :lo::bigint"
        out = sqltext.render(sql, {"events": "events_heap", "lo": 5})
        self.assertEqual(out, "SELECT x::text, '12:30', events_heap, :unknown FROM events_heap "
                              "WHERE a = 5::bigint")

    def test_json_literal_untouched(self):
        sql = """WHERE metadata @> '{"os":"android"}'"""
        self.assertEqual(sqltext.render(sql, {"os": "x", "android": "y"}), sql)

    def test_split_statements_keeps_semicolons_in_strings(self):
        stmts = sqltext.split_statements("-- c; x\nSELECT ';'; SELECT 2;\n")
        self.assertEqual(stmts, ["SELECT ';'", "SELECT 2"])

    def test_top_level_order_by(self):
        self.assertFalse(sqltext.has_top_level_order_by(
            "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY d) FROM t GROUP BY 1"))
        self.assertTrue(sqltext.has_top_level_order_by("SELECT a FROM t ORDER BY a"))
        self.assertFalse(sqltext.has_top_level_order_by("SELECT 'order by' FROM t -- order by"))


class CompareTest(unittest.TestCase):
    def test_float_tolerance_and_exact_numeric(self):
        self.assertIsNone(check.compare([(1.0000000000001,)], [(1.0,)], ordered=True))
        self.assertIsNotNone(check.compare([(Decimal("1.0001"),)], [(Decimal("1.0002"),)], ordered=True))
        self.assertIsNone(check.compare([(Decimal("1.50"),)], [(Decimal("1.5"),)], ordered=True))

    def test_unordered_vs_ordered(self):
        a, b = [("x", 1), ("y", 2)], [("y", 2), ("x", 1)]
        self.assertIsNone(check.compare(a, b, ordered=False))
        self.assertIn("row 1", check.compare(a, b, ordered=True))

    def test_row_count(self):
        self.assertIn("row count", check.compare([(1,)], [], ordered=False))

    def test_loose_mode_for_duckdb(self):
        pg = [("A    ", Decimal("2.3333333333333333"), {"os": "ios"}, datetime.date(2024, 1, 1))]
        duck = [("A", 2.333333333333333, '{"os":"ios"}', datetime.date(2024, 1, 1))]
        self.assertIsNone(check.compare(pg, duck, ordered=True, loose=True))
        self.assertIsNotNone(check.compare(pg, duck, ordered=True, loose=False))


class QueryFilesTest(unittest.TestCase):
    def test_suites_complete(self):
        ev = [q.qid for q in queries.load("events")]
        self.assertEqual(ev, [f"Q{i}" for i in range(1, 11)] + [f"K{i}" for i in range(1, 13)])
        self.assertEqual([q.qid for q in queries.load("tpch")], [f"Q{i}" for i in range(1, 23)])

    def test_directives(self):
        q3 = queries.load("events", ["Q3"])[0]
        self.assertFalse(q3.ordered)
        self.assertEqual(queries.load("events", ["K1"])[0].phase, "key")
        self.assertNotEqual(queries.load("events", ["Q6"])[0].duckdb_sql,
                            queries.load("events", ["Q6"])[0].sql)

    def test_every_variable_is_supplied(self):
        evars = {"events": "t", **events.lookup_variables(1000)}
        for q in queries.load("events"):
            for d in ("pg", "duckdb"):
                self.assertNotRegex(q.text(d, evars), r"(?<![:\w]):[a-z_]", q.qid)
        for q in queries.load("tpch"):
            self.assertNotRegex(q.text("pg", tpch.variables(0.1)), r"(?<![:\w]):[a-z_]", q.qid)


class VariablesTest(unittest.TestCase):
    def test_lookup_keys_exist(self):
        v = events.lookup_variables(100_000)
        ids = [int(x) for x in v["ids_1000"].split(", ")]
        self.assertEqual(len(ids), 1000)
        self.assertTrue(all(1 <= i <= 100_000 for i in ids))
        users = [int(x) for x in v["users_100"].split(", ")]
        self.assertTrue(all(1 <= u <= 50_000 for u in users))

    def test_q11_fraction(self):
        self.assertEqual(tpch.variables(1)["q11_fraction"], "0.0001")
        self.assertEqual(tpch.variables(10)["q11_fraction"], "0.00001")


class BlocksReportTest(unittest.TestCase):
    def test_blocks_against_heap(self):
        res = Results()
        for kind in ("heap", "colcompress"):
            res.set_kind("events", kind, True)
        res.timings = [Timing("events", "serial", "Q1", "t", "heap", "ok", [1.0], blocks=1024),
                       Timing("events", "serial", "Q1", "t", "colcompress", "ok", [1.0], blocks=256),
                       Timing("events", "serial", "Q2", "t", "heap", "ok", [1.0], blocks=None)]
        lines = report._blocks_section(res, "events", "serial")
        self.assertEqual(lines[0], "| query | heap | colcompress |")
        self.assertEqual(lines[2], "| Q1 | 8.0 MiB | 2.0 MiB (0.25×) |")
        self.assertEqual(len(lines), 3)
        self.assertEqual(report._blocks_section(res, "events", "parallel"), [])


class SpeedupReportTest(unittest.TestCase):
    def test_serial_over_parallel(self):
        res = Results()
        for kind in ("heap", "colcompress"):
            res.set_kind("events", kind, True)
        res.timings = [Timing("events", "serial", "Q2", "t", "heap", "ok", [120.0]),
                       Timing("events", "parallel", "Q2", "t", "heap", "ok", [80.0]),
                       Timing("events", "serial", "Q2", "t", "colcompress", "ok", [10.0]),
                       Timing("events", "parallel", "Q2", "t", "colcompress", "error", [])]
        lines = report._speedup_section(res, "events")
        self.assertEqual(lines[0], "| query | heap | colcompress |")
        self.assertEqual(lines[2], "| Q2 | 1.50× |  |")
        res.timings = [t for t in res.timings if t.mode == "serial"]
        self.assertEqual(report._speedup_section(res, "events"), [])


class _FakeKind:
    def __init__(self, key):
        self.key = key


class _FakeTarget:
    """A target whose runs are logged; its result is rows."""

    def __init__(self, label, rows, log):
        self.label, self.rows, self.log = label, rows, log
        self.kind = _FakeKind(label)
        self.dialect = "postgres"
        self.variables = {}
        self.mode = None

    def set_mode(self, mode):
        self.mode = mode

    def run(self, sql, fetch):
        self.log.append((self.label, fetch, self.mode.name))
        return self.rows if fetch else None


class _FakeQuery:
    qid, title, ordered = "K1", "lookup", False

    def text(self, dialect, variables):
        return "SELECT 1"


class TurnsTest(unittest.TestCase):
    def test_targets_take_turns_and_a_mismatch_is_not_timed(self):
        log = []
        targets = [_FakeTarget("heap", [(1,)], log), _FakeTarget("colcompress", [(1,)], log),
                   _FakeTarget("rowcompress", [(2,)], log)]
        res = Results()
        runner.run_queries("events", [_FakeQuery()], targets, [runner.Mode("serial", False, 0)],
                           3, {}, res)
        self.assertEqual([e[:2] for e in log[:3]],
                         [("heap", True), ("colcompress", True), ("rowcompress", True)])
        timed = [label for label, fetch, _ in log if not fetch]
        self.assertEqual(timed[:4], ["heap", "colcompress", "heap", "colcompress"])
        self.assertNotIn("rowcompress", timed)
        by_kind = {t.kind: t for t in res.timings}
        self.assertEqual(by_kind["rowcompress"].status, "mismatch")
        self.assertEqual(len(by_kind["heap"].times_ms), len(by_kind["colcompress"].times_ms))
        self.assertGreaterEqual(len(by_kind["heap"].times_ms), 3)
        self.assertEqual(res.failures[0].split()[0], "MISMATCH")

    def test_modes_take_turns(self):
        """A query's timed runs alternate between the modes, each run in
        its own mode; every mode's warm-up comes first."""
        log = []
        targets = [_FakeTarget("heap", [(1,)], log), _FakeTarget("colcompress", [(1,)], log)]
        modes = runner.make_modes("both", 2)
        res = Results()
        runner.run_queries("events", [_FakeQuery()], targets, modes, 3, {}, res)
        self.assertEqual(log[:4], [("heap", True, "serial"), ("colcompress", True, "serial"),
                                   ("heap", True, "parallel"), ("colcompress", True, "parallel")])
        timed = [(label, mode) for label, fetch, mode in log if not fetch]
        self.assertEqual(timed[:8], [("heap", "serial"), ("colcompress", "serial"),
                                     ("heap", "parallel"), ("colcompress", "parallel")] * 2)
        self.assertEqual(sorted((t.mode, t.kind, t.status) for t in res.timings),
                         [("parallel", "colcompress", "ok"), ("parallel", "heap", "ok"),
                          ("serial", "colcompress", "ok"), ("serial", "heap", "ok")])


if __name__ == "__main__":
    unittest.main()
