-- title: PK lookup, 1 id
-- phase: key
SELECT * FROM :events WHERE id = :ids_1
