-- 0009_run_summaries: each succeeded run summarised per metric, the points of a series
-- (issue 15 §1, GET /api/v1/series). A series is one package × device model × mode × metric, in
-- the order the runs were created; the primary key is that order, so a series of 10,000 points
-- is one contiguous range of this WITHOUT ROWID table (no sort, no lookup into runs).
--
-- One row per (run, metric): displayed_ms, fully_drawn_ms, total_time_ms today; a later
-- per-run metric (jank, memory) is more rows, not more columns. The numbers are
-- analysis::Summarize over the run's counted launches (valid, not a warm-up; for a side-by-side
-- run the candidate build's only), computed by the orchestrator when the run succeeds, and for
-- runs that succeeded before this migration by the daemon's back-fill at start-up
-- (orchestrator/lab/run_summaries.h). count = 0 (the run has no counted launch with that value):
-- the row is kept, so that the back-fill does not come back to it, and every statistic is NULL.
--
-- package, device_model, mode and t are copies of the run's (t = runs.created_at), written from
-- `runs` by the insert itself; device_model is '' when the run did not know its phone's model
-- (runs.device_model NULL), as a key column cannot be NULL in a WITHOUT ROWID table. build_id,
-- version_code, fingerprint and compilation are what the run measured: its build, the
-- versionCode installed, ro.build.fingerprint, the compiler filter reached — what a change point
-- is explained by. ci_low / ci_high: the bootstrap CI (95 %) of the median; NULL below 2
-- launches. No foreign key (see 0001); retention deletes a run's summaries with its launches.
CREATE TABLE run_summaries (
  package TEXT NOT NULL,
  device_model TEXT NOT NULL,
  mode TEXT NOT NULL,
  metric TEXT NOT NULL,
  t INTEGER NOT NULL,
  run_id INTEGER NOT NULL,  -- runs.id
  count INTEGER NOT NULL,
  median REAL,
  p90 REAL,
  ci_low REAL,
  ci_high REAL,
  build_id INTEGER,
  version_code INTEGER,
  fingerprint TEXT,
  compilation TEXT,
  PRIMARY KEY (package, device_model, mode, metric, t, run_id)
) WITHOUT ROWID;
-- A run's rows: replaced when summarised again, deleted with the run, and the back-fill's
-- "has this run a summary" probe.
CREATE UNIQUE INDEX run_summaries_by_run ON run_summaries (run_id, metric);
