-- 0015_launch_history_covering_key: nothing to change in SQLite. schema/postgresql/0015 makes
-- PostgreSQL's launches key carry the columns a package's launch history reads, so that the query
-- is answered from the key alone (issue 17 §1: p99 < 10 ms on 10 M launches). SQLite's launches
-- is already that: a WITHOUT ROWID table is the b-tree of its key (run_id, iteration) with every
-- column in it, so a run's launches are one range of one b-tree whatever else is asked.
-- A migration exists in both forms under one number (schema/README.md); this one only moves
-- SQLite's user_version to 15, by this no-op statement.
SELECT 1;
