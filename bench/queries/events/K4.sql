-- title: PK lookup, IN 1,000 ids
-- phase: key
SELECT * FROM :events WHERE id IN (:ids_1000)
