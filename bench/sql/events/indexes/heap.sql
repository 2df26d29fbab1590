-- Indexes of events_heap, as the seed benchmark builds them.
ALTER TABLE :table ADD PRIMARY KEY (id);
CREATE INDEX ON :table (event_date);
CREATE INDEX ON :table (user_id);
CREATE INDEX ON :table (event_type);
CREATE INDEX ON :table USING gin (metadata jsonb_path_ops);
CREATE INDEX ON :table USING gin (tags);
