-- Staging table holding the generated events exactly once; every table kind is
-- filled from it so all kinds hold identical rows.  UNLOGGED: it is scratch data.
CREATE UNLOGGED TABLE events_staging (
    id           bigint NOT NULL,
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
);
