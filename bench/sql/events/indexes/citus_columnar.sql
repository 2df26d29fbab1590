-- events_cit gets the same indexes as events_col (a failure is noted, not fatal).
CREATE INDEX ON :table USING gin (metadata jsonb_path_ops);
CREATE INDEX ON :table USING gin (tags);
