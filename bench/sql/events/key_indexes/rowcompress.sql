-- Key phase: events_row already has the user_id btree; add the id btree.
CREATE INDEX ON :table (id);
