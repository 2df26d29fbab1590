-- Export of the staging rows for the DuckDB reference (COPY ... TO STDOUT).
-- jsonb and text[] leave as JSON text, which DuckDB reads back as JSON and VARCHAR[].
COPY (
    SELECT id, created_at, event_date, user_id, session_id, amount, price,
           quantity, duration_ms, score, country_code, browser, url, is_mobile,
           event_type, metadata::text AS metadata, to_json(tags)::text AS tags
    FROM events_staging ORDER BY id
) TO STDOUT (FORMAT csv, HEADER true)
