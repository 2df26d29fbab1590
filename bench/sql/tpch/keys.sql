-- The usual TPC-H keys: every primary key, plus the two foreign-key indexes
-- without which PostgreSQL runs the correlated subqueries of Q17 and Q20 as
-- one lineitem scan per outer row.  Run with search_path on the kind's schema;
-- a statement a kind cannot run is noted in the report, not fatal.
ALTER TABLE region   ADD PRIMARY KEY (r_regionkey);
ALTER TABLE nation   ADD PRIMARY KEY (n_nationkey);
ALTER TABLE part     ADD PRIMARY KEY (p_partkey);
ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey);
ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey);
ALTER TABLE customer ADD PRIMARY KEY (c_custkey);
ALTER TABLE orders   ADD PRIMARY KEY (o_orderkey);
ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber);
CREATE INDEX ON lineitem (l_partkey, l_suppkey);
CREATE INDEX ON orders (o_custkey);
