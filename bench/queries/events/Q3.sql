-- title: GROUP BY country (10 vals)
-- compare: unordered   (every country has the same count: ORDER BY COUNT(*) leaves ties)
SELECT country_code, COUNT(*), AVG(score) FROM :events GROUP BY country_code ORDER BY COUNT(*) DESC
