-- title: GROUP BY event_type (6 vals)
-- phase: key
SELECT event_type, COUNT(*), SUM(amount), AVG(duration_ms) FROM :events GROUP BY event_type ORDER BY event_type
