-- 0021_series_covering_key: nothing to change in SQLite. schema/postgresql/0021 makes
-- PostgreSQL's run_summaries key carry every column a series reads, so that GET /series is
-- answered from the key alone (issue 17 §1: the API's history queries p99 < 10 ms). SQLite's
-- run_summaries is already that: a WITHOUT ROWID table is the b-tree of its key (package,
-- device_model, mode, metric, t, run_id) with every column in it, so a series is one range of one
-- b-tree. A migration exists in both forms under one number (schema/README.md); this one only
-- moves SQLite's user_version to 21, by this no-op statement.
SELECT 1;
