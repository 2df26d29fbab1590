-- title: PK lookup, IN 10 ids
-- phase: key
SELECT * FROM :events WHERE id IN (:ids_10)
