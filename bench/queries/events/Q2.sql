-- title: SUM/AVG numeric + double
SELECT SUM(amount), AVG(amount), SUM(price), AVG(price) FROM :events
