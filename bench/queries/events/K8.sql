-- title: FK lookup, 1,000 users
-- phase: key
SELECT * FROM :events WHERE user_id IN (:users_1000)
