-- Indexes of events_row, as the seed builds them.
CREATE INDEX ON :table (event_date);
CREATE INDEX ON :table (user_id);
CREATE INDEX ON :table USING gin (metadata jsonb_path_ops);
CREATE INDEX ON :table USING gin (tags);
