-- title: LIKE text scan
SELECT COUNT(*), SUM(amount) FROM :events WHERE url LIKE '/page/1%'
