-- title: FK lookup, 100 users
-- phase: key
SELECT * FROM :events WHERE user_id IN (:users_100)
