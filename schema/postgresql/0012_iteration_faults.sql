-- 0012_iteration_faults: the PostgreSQL form of schema/0012_iteration_faults.sql,
-- which says what each table and column means; the comments here say only where the two
-- differ (the types: schema/README.md).

CREATE TABLE iteration_faults (
  run_id BIGINT NOT NULL,
  iteration BIGINT NOT NULL,
  seq BIGINT NOT NULL,
  kind TEXT NOT NULL,
  time TEXT NOT NULL,
  at_ms BIGINT,
  pid BIGINT,
  process_name TEXT NOT NULL,
  reason TEXT NOT NULL,
  stack TEXT NOT NULL,
  duration_ms BIGINT,
  PRIMARY KEY (run_id, iteration, seq)
);
