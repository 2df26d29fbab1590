-- DuckDB has no jsonb @>; json_contains is its containment test.
SELECT COUNT(*), AVG(amount) FROM :events WHERE json_contains(metadata, '{"os":"android"}')
