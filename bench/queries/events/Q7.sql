-- title: JSONB key + GROUP BY
SELECT metadata->>'campaign', COUNT(*), SUM(amount) FROM :events WHERE metadata ? 'campaign' GROUP BY 1 ORDER BY 3 DESC
