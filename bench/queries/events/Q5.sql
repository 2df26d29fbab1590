-- title: date range 1 month
SELECT event_date, COUNT(*), SUM(amount), AVG(price) FROM :events WHERE event_date BETWEEN '2024-01-01' AND '2024-01-31' GROUP BY event_date ORDER BY event_date
