-- The events table in DuckDB, filled from the CSV export of the PostgreSQL
-- staging table (:csv), so DuckDB holds the very same rows.
CREATE TABLE events (
    id BIGINT, created_at TIMESTAMPTZ, event_date DATE, user_id INTEGER,
    session_id VARCHAR, amount DECIMAL(15,4), price DOUBLE, quantity INTEGER,
    duration_ms INTEGER, score REAL, country_code VARCHAR, browser VARCHAR,
    url VARCHAR, is_mobile BOOLEAN, event_type VARCHAR, metadata JSON,
    tags VARCHAR[]
);
INSERT INTO events
SELECT id, created_at, event_date, user_id, session_id, amount, price,
       quantity, duration_ms, score, country_code, browser, url, is_mobile,
       event_type, metadata::JSON, tags::JSON::VARCHAR[]
FROM read_csv(:csv, header = true, columns = {
    'id': 'BIGINT', 'created_at': 'TIMESTAMPTZ', 'event_date': 'DATE',
    'user_id': 'INTEGER', 'session_id': 'VARCHAR', 'amount': 'DECIMAL(15,4)',
    'price': 'DOUBLE', 'quantity': 'INTEGER', 'duration_ms': 'INTEGER',
    'score': 'REAL', 'country_code': 'VARCHAR', 'browser': 'VARCHAR',
    'url': 'VARCHAR', 'is_mobile': 'BOOLEAN', 'event_type': 'VARCHAR',
    'metadata': 'VARCHAR', 'tags': 'VARCHAR'});
