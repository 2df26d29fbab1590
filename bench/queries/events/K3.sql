-- title: PK lookup, IN 100 ids
-- phase: key
SELECT * FROM :events WHERE id IN (:ids_100)
