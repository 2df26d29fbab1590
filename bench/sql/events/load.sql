-- Copy staging rows :lo..:hi into one kind's table: the same statement for
-- every kind, so load times compare.  Staging holds its rows in id order,
-- which is event_date order (generate.sql), so colcompress receives them
-- sorted as the seed loads it (ORDER BY event_date); its orderby option and
-- colcompress_merge keep stripes ordered whatever the input order.  An
-- ORDER BY here would charge colcompress alone for a sort of rows already
-- in order.
INSERT INTO :table SELECT * FROM events_staging WHERE id BETWEEN :lo AND :hi;
