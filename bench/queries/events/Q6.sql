-- title: JSONB @> (GIN)
SELECT COUNT(*), AVG(amount) FROM :events WHERE metadata @> '{"os":"android"}'
