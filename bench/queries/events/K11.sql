-- title: GROUP BY user_id (50k vals), LIMIT 20
-- phase: key
-- (ordered by the random amount sum, not by COUNT(*): every user has the same count, so a count order would pick arbitrary ties)
SELECT user_id, COUNT(*), SUM(amount) FROM :events GROUP BY user_id ORDER BY SUM(amount) DESC, user_id LIMIT 20
