-- Generate rows :lo..:hi of the events dataset (row g has id g).  Run after
-- setseed() in one session, in increasing chunks: random() is consumed in row
-- order, so the data does not depend on the chunk size.  The select-list order
-- fixes which random() draw feeds which column.
INSERT INTO events_staging
SELECT g,
       timestamptz '2024-01-01 00:00:00+00' + g * interval '30 seconds',
       date '2024-01-01' + (g / 2880)::integer,
       (g % 50000 + 1)::integer,
       md5(g::text),
       round((random() * 9999.99)::numeric, 4),
       random() * 999.99,
       (g % 100 + 1)::integer,
       (random() * 30000 + 50)::integer,
       random()::real,
       (ARRAY['BR','US','DE','FR','IN','GB','JP','CN','RU','CA'])[g % 10 + 1],
       (ARRAY['Chrome','Firefox','Safari','Edge','Opera','Samsung'])[g % 6 + 1],
       '/page/' || (g % 5000),
       g % 3 <> 0,
       (ARRAY['click','pageview','purchase','signup','search','logout'])[g % 6 + 1],
       jsonb_build_object(
           'os',       (ARRAY['android','ios','windows','macos','linux'])[g % 5 + 1],
           'version',  (12 + g % 8)::text,
           'app',      (ARRAY['mobile','web','desktop','tv'])[g % 4 + 1],
           'campaign', (ARRAY['summer','black_friday','organic','referral','email'])[g % 5 + 1],
           'revenue',  round((random() * 500)::numeric, 2),
           'ab_group', (ARRAY['A','B','C'])[g % 3 + 1],
           'premium',  g % 7 = 0),
       ARRAY['tag_' || (g % 20), 'cat_' || (g % 8)]
FROM generate_series(:lo::bigint, :hi::bigint) AS g;
