-- Key phase: btrees the K1-K8 lookups need, built after the Q queries ran so
-- they cannot change the Q plans.
CREATE INDEX ON :table (id);
CREATE INDEX ON :table (user_id);
