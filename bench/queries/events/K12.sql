-- title: GROUP BY + date filter 1 month
-- phase: key
SELECT event_type, COUNT(*), SUM(amount) FROM :events WHERE event_date BETWEEN '2024-01-01' AND '2024-01-31' GROUP BY event_type ORDER BY event_type
