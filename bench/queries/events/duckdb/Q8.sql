-- DuckDB has no array @>; list_has_all is its containment test.
SELECT COUNT(*), AVG(price) FROM :events WHERE list_has_all(tags, ['tag_5'])
