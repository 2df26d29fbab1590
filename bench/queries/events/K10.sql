-- title: GROUP BY country_code (10 vals)
-- phase: key
SELECT country_code, COUNT(*), SUM(amount), AVG(price) FROM :events GROUP BY country_code ORDER BY country_code
