-- One events table of a given kind (:using is "USING <am> WITH (...)" or empty).
CREATE TABLE :table (
    id           bigserial,
    created_at   timestamptz NOT NULL,
    event_date   date NOT NULL,
    user_id      integer NOT NULL,
    session_id   text NOT NULL,
    amount       numeric(15,4),
    price        double precision,
    quantity     integer,
    duration_ms  integer,
    score        real,
    country_code char(2),
    browser      text,
    url          text,
    is_mobile    boolean,
    event_type   text,
    metadata     jsonb,
    tags         text[]
) :using;
