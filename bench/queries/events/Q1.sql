-- title: COUNT(*)
SELECT COUNT(*) FROM :events
