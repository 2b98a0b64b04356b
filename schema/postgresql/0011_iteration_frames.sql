-- 0011_iteration_frames: the PostgreSQL form of schema/0011_iteration_frames.sql,
-- which says what each table and column means; the comments here say only where the two
-- differ (the types: schema/README.md).

CREATE TABLE iteration_frames (
  run_id BIGINT NOT NULL,
  iteration BIGINT NOT NULL,
  total_frames BIGINT,
  janky_frames BIGINT,
  gfx_p50_ms BIGINT,
  gfx_p90_ms BIGINT,
  gfx_p95_ms BIGINT,
  gfx_p99_ms BIGINT,
  frame_rows BIGINT NOT NULL,
  counted BIGINT NOT NULL,
  refresh_period_ns BIGINT NOT NULL,
  p50_ms DOUBLE PRECISION,
  p90_ms DOUBLE PRECISION,
  p95_ms DOUBLE PRECISION,
  p99_ms DOUBLE PRECISION,
  over_16_7ms BIGINT NOT NULL,
  over_33ms BIGINT NOT NULL,
  over_50ms BIGINT NOT NULL,
  matrix_normal BIGINT NOT NULL,
  matrix_middle BIGINT NOT NULL,
  matrix_high BIGINT NOT NULL,
  matrix_frozen BIGINT NOT NULL,
  dropped_frames BIGINT NOT NULL,
  jank BIGINT NOT NULL,
  big_jank BIGINT NOT NULL,
  columns_json TEXT NOT NULL,
  rows_json TEXT NOT NULL,
  PRIMARY KEY (run_id, iteration)
);
