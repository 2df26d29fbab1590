-- title: FK lookup, 1 user
-- phase: key
SELECT * FROM :events WHERE user_id = :users_1
