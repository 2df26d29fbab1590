-- DuckDB has no jsonb ? operator; json_exists tests for the key.
SELECT metadata->>'campaign', COUNT(*), SUM(amount) FROM :events WHERE json_exists(metadata, '$.campaign') GROUP BY 1 ORDER BY 3 DESC
