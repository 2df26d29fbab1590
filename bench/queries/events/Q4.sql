-- title: GROUP BY event_type + p95
SELECT event_type, COUNT(*), SUM(amount), AVG(duration_ms), percentile_disc(0.95) WITHIN GROUP (ORDER BY duration_ms) FROM :events GROUP BY event_type
