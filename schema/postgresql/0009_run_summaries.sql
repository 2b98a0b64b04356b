-- 0009_run_summaries: the PostgreSQL form of schema/0009_run_summaries.sql,
-- which says what each table and column means; the comments here say only where the two
-- differ (the types: schema/README.md).

CREATE TABLE run_summaries (
  package TEXT NOT NULL,
  device_model TEXT NOT NULL,
  mode TEXT NOT NULL,
  metric TEXT NOT NULL,
  t BIGINT NOT NULL,
  run_id BIGINT NOT NULL,
  count BIGINT NOT NULL,
  median DOUBLE PRECISION,
  p90 DOUBLE PRECISION,
  ci_low DOUBLE PRECISION,
  ci_high DOUBLE PRECISION,
  build_id BIGINT,
  version_code BIGINT,
  fingerprint TEXT,
  compilation TEXT,
  PRIMARY KEY (package, device_model, mode, metric, t, run_id)
);
CREATE UNIQUE INDEX run_summaries_by_run ON run_summaries (run_id, metric);
