-- title: array @> (GIN)
SELECT COUNT(*), AVG(price) FROM :events WHERE tags @> ARRAY['tag_5']
