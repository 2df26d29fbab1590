-- events_col gets GIN indexes only, as the seed does: a btree makes the planner
-- prefer index scans, which bypass stripe pruning (Q5).  Key-lookup btrees are
-- added later, in the key phase (see ../key_indexes/).
CREATE INDEX ON :table USING gin (metadata jsonb_path_ops);
CREATE INDEX ON :table USING gin (tags);
