-- 0018_run_claims: the PostgreSQL form of schema/0018_run_claims.sql, which says what the
-- columns mean; only the types differ (schema/README.md).
ALTER TABLE runs ADD COLUMN host TEXT;
ALTER TABLE runs ADD COLUMN lease_until BIGINT;
ALTER TABLE runs ADD COLUMN cancel_requested BIGINT NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN pool BIGINT NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN pool_model TEXT;
ALTER TABLE runs ADD COLUMN pool_sdk BIGINT;

CREATE TABLE run_pool_labels (
  run_id BIGINT NOT NULL,
  label TEXT NOT NULL,
  PRIMARY KEY (run_id, label)
);

CREATE INDEX runs_unclaimed ON runs (id) WHERE status = 'queued' AND host IS NULL;
CREATE INDEX runs_by_host ON runs (host) WHERE host IS NOT NULL;
