-- Copy staging rows :lo..:hi into one kind's table.  :order_by is
-- "ORDER BY event_date, id" for colcompress (loaded sorted, as the seed does)
-- and empty otherwise; id ranges keep the global order across chunks.
INSERT INTO :table SELECT * FROM events_staging WHERE id BETWEEN :lo AND :hi :order_by;
