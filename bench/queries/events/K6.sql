-- title: FK lookup, 10 users
-- phase: key
SELECT * FROM :events WHERE user_id IN (:users_10)
