"""Differential DML fuzzing of the access methods against heap.

The same random statements (INSERT ... SELECT, also from the table itself,
UPDATE of values and of the unique key, UPDATE by subquery, DELETE, INSERT
... ON CONFLICT DO UPDATE / DO NOTHING, DELETE ... RETURNING, MERGE,
aggregates, SELECT ... FOR UPDATE, TRUNCATE, VACUUM, each access method's
rewrites (VACUUM FULL, repack, merge), and transactions of
several of them with savepoints, committed or rolled back; or each inside
PL/pgSQL blocks with EXCEPTION clauses, nested, that read the table and
fail at random, over rows the transaction buffers outside them) run on a
heap table, a colcompress table and a rowcompress table with small stripes
and batches.  Every statement must give the three
the same result (rows returned, rows affected, or the same kind of error),
and after every step the tables must hold the same rows, read through plans
chosen at random (scans, index scans, our custom scans off).

    dml_differential.py CONNINFO SEED STEPS [PREFIX]

PREFIX (default df) names the tables, so that several runs can share a
database at once.

Exits 1 on the first difference, naming the seed, step and statement.
"""
import random
import sys

import psycopg

KINDS = {"h": "heap", "c": "colcompress", "r": "rowcompress"}
OPTIONS = {"heap": "",
           "colcompress": " WITH (stripe_row_limit = 2000, chunk_group_row_limit = 1000, orderby = 'k DESC')",
           "rowcompress": " WITH (batch_size = 1000)"}
PLANS = ["",
         "SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off",
         "SET LOCAL enable_indexscan = off",
         "SET LOCAL storage_engine.enable_custom_scan = off"]


class Fuzz:
    def __init__(self, conninfo, seed, prefix):
        self.prefix = prefix
        self.rnd = random.Random(seed)
        self.seed = seed
        self.conn = psycopg.connect(conninfo, autocommit=True)
        self.notices = []
        self.conn.add_notice_handler(lambda d: self.notices.append(d.message_primary))
        self.cur = self.conn.cursor()
        self.next_id = 1
        for k, am in KINDS.items():
            self.cur.execute(f"DROP TABLE IF EXISTS {self.prefix}_{k}")
            self.cur.execute(f"CREATE TABLE {self.prefix}_{k} (id int, k int, t text, j jsonb) USING {am}{OPTIONS[am]}")
            self.cur.execute(f"CREATE UNIQUE INDEX ON {self.prefix}_{k} (id)")
        if self.rnd.random() < 0.7:
            for k in KINDS:
                self.cur.execute(f"CREATE INDEX ON {self.prefix}_{k} (k)")

    def statement(self):
        rnd = self.rnd
        lo = rnd.randint(1, max(self.next_id, 2))
        hi = lo + rnd.randint(0, 300)
        r = rnd.random()
        if r < 0.25:
            n = rnd.randint(1, 400)
            first = self.next_id
            self.next_id += n
            return ("INSERT INTO T SELECT g, g % 37, md5(g::text), jsonb_build_object('g', g % 11) "
                    f"FROM generate_series({first}, {first + n - 1}) g")
        if r < 0.40:
            return f"UPDATE T SET k = k + 1, t = t || 'u' WHERE id BETWEEN {lo} AND {hi}"
        if r < 0.50:
            return f"UPDATE T SET id = id + 1000000 WHERE id BETWEEN {lo} AND {lo + 3}"
        if r < 0.60:
            return f"DELETE FROM T WHERE id BETWEEN {lo} AND {hi} AND k % 3 = {rnd.randint(0, 2)}"
        if r < 0.68:
            return (f"INSERT INTO T VALUES ({lo}, -1, 'up', '{{}}') "
                    "ON CONFLICT (id) DO UPDATE SET k = T.k * 2, t = excluded.t")
        if r < 0.72:
            return f"DELETE FROM T WHERE k = {rnd.randint(0, 40)} RETURNING id"
        if r < 0.75:
            return "VACUUM T"
        if r < 0.76:
            return "REWRITE T"
        if r < 0.78:
            return ("MERGE INTO T USING (SELECT g AS id FROM generate_series(%d, %d) g) s ON T.id = s.id "
                    "WHEN MATCHED AND T.k %% 2 = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET k = T.k + 5 "
                    "WHEN NOT MATCHED THEN INSERT VALUES (s.id, 7, 'm', '{}')" % (lo, lo + 50))
        if r < 0.82:
            return f"SELECT count(*), sum(k), min(t), max(id) FROM T WHERE k BETWEEN {rnd.randint(0, 20)} AND {rnd.randint(15, 40)}"
        if r < 0.85:
            return (f"INSERT INTO T SELECT id + 2000000, k, t || 'c', j FROM T "
                    f"WHERE id BETWEEN {lo} AND {lo + 20} ON CONFLICT (id) DO NOTHING")
        if r < 0.88:
            return (f"UPDATE T SET k = -k WHERE id IN (SELECT id FROM T WHERE k = {rnd.randint(0, 40)} "
                    "ORDER BY id LIMIT 5) RETURNING id, k")
        if r < 0.90:
            return f"SELECT id, k FROM T WHERE k = {rnd.randint(0, 40)} ORDER BY id LIMIT 10 FOR UPDATE"
        if r < 0.91:
            return "TRUNCATE T"
        return f"UPDATE T SET j = j || jsonb_build_object('x', k) WHERE k = {rnd.randint(0, 40)}"

    # what REWRITE T runs on each kind: each access method's online
    # rewrites (merge on colcompress too: it only re-sorts by orderby)
    REWRITES = {"h": ["VACUUM FULL T"],
                "c": ["CALL engine.colcompress_repack('T')",
                      "CALL engine.colcompress_repack('T', 1.0)",
                      "SELECT FROM engine.colcompress_merge('T')"],
                "r": ["CALL engine.rowcompress_repack('T')"]}

    def on(self, sql, k):
        """sql with the table placeholder T naming PREFIX_<k>."""
        table = f"{self.prefix}_{k}"
        if sql == "REWRITE T":
            return self.rnd.choice(self.REWRITES[k]).replace("'T'", f"'{table}'").replace(" T", f" {table}")
        words = sql.replace("T.", f"{table}.").split(" ")
        return " ".join(table if w == "T" else w for w in words)

    def run(self, sql, in_transaction):
        """Runs sql on the three tables; the result or error of each."""
        outs = {}
        for k in KINDS:
            if in_transaction:
                self.cur.execute("SAVEPOINT each")
            try:
                self.cur.execute(self.on(sql, k))
                if sql == "REWRITE T":
                    outs[k] = "done"
                else:
                    outs[k] = sorted(self.cur.fetchall()) if self.cur.description else self.cur.rowcount
                if in_transaction:
                    self.cur.execute("RELEASE SAVEPOINT each")
            except psycopg.Error as e:
                outs[k] = "ERROR " + type(e).__name__
                if in_transaction:
                    self.cur.execute("ROLLBACK TO SAVEPOINT each")
        return outs

    def run_in_blocks(self, sql, fail, read):
        """Runs sql on the three tables inside nested PL/pgSQL blocks (one
        more subtransaction for each), reading the table after it when read
        and failing the inner block when fail; the SQLSTATE each ends with."""
        outs = {}
        for k in KINDS:
            table = f"{self.prefix}_{k}"
            body = f"EXECUTE $q${self.on(sql, k)}$q$;"
            if read:
                body += f" PERFORM count(*), sum(k) FROM {table};"
            if fail:
                body += " RAISE EXCEPTION 'undo';"
            self.notices = []
            self.cur.execute(
                "DO $b$ BEGIN BEGIN BEGIN " + body +
                " EXCEPTION WHEN raise_exception THEN NULL; END;"
                " EXCEPTION WHEN OTHERS THEN RAISE NOTICE 'sqlstate %', SQLSTATE; END; END $b$")
            outs[k] = list(self.notices)
        return outs

    def contents(self):
        """What each table holds, each read through a plan chosen at random."""
        res = {}
        for k in KINDS:
            self.cur.execute("BEGIN")
            for setting in filter(None, self.rnd.choice(PLANS).split("; ")):
                self.cur.execute(setting)
            self.cur.execute(f"SELECT md5(string_agg(id || ':' || k || ':' || t || ':' || j::text, ',' "
                             f"ORDER BY id)), count(*) FROM {self.prefix}_{k}")
            row = self.cur.fetchone()
            self.cur.execute(f"SELECT count(*) FROM {self.prefix}_{k} WHERE k BETWEEN 5 AND 9")
            res[k] = row + self.cur.fetchone()
            self.cur.execute("COMMIT")
        return res

    def fail(self, step, what, sql, outs):
        print(f"seed {self.seed} step {step}: {what} differ for: {sql}\n  {outs}")
        sys.exit(1)

    def step(self, step):
        if self.rnd.random() < 0.15:
            # statements inside blocks, over rows buffered outside them
            sqls = [s for s in (self.statement() for _ in range(self.rnd.randint(2, 5)))
                    if not s.startswith(("VACUUM", "SELECT", "REWRITE"))]
            self.cur.execute("BEGIN")
            for sql in sqls:
                if self.rnd.random() < 0.3:
                    outs = self.run(sql, True)
                else:
                    outs = self.run_in_blocks(sql, self.rnd.random() < 0.4,
                                              self.rnd.random() < 0.5)
                if len(set(map(str, outs.values()))) != 1:
                    self.cur.execute("ROLLBACK")
                    self.fail(step, "results", sql, outs)
            self.cur.execute("ROLLBACK" if self.rnd.random() < 0.3 else "COMMIT")
            sql = "; ".join(sqls)
        elif self.rnd.random() < 0.2:
            sqls = [s for s in (self.statement() for _ in range(self.rnd.randint(2, 5)))
                    if not s.startswith(("VACUUM", "REWRITE"))]
            self.cur.execute("BEGIN")
            for sql in sqls:
                outs = self.run(sql, True)
                if len(set(map(str, outs.values()))) != 1:
                    self.fail(step, "results", sql, outs)
            self.cur.execute("ROLLBACK" if self.rnd.random() < 0.3 else "COMMIT")
            sql = "; ".join(sqls)
        else:
            sql = self.statement()
            outs = self.run(sql, False)
            if len(set(map(str, outs.values()))) != 1:
                self.fail(step, "results", sql, outs)
        contents = self.contents()
        if len(set(contents.values())) != 1:
            self.fail(step, "contents", sql, contents)


def main():
    conninfo, seed, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    fuzz = Fuzz(conninfo, seed, sys.argv[4] if len(sys.argv) > 4 else "df")
    for step in range(steps):
        fuzz.step(step)
    for k in KINDS:
        fuzz.cur.execute(f"DROP TABLE {fuzz.prefix}_{k}")
    print(f"seed {seed}: {steps} steps, heap, colcompress and rowcompress agree")


if __name__ == "__main__":
    main()
