-- 0015_launch_history_covering_key: launches' primary key, (run_id, iteration) as before, now
-- carrying the columns a package's launch history reads (store/pg/sql/launches.h kLaunchHistory:
-- the filter's valid, warmup and build_id, the three timings), so that the query reads one
-- range of the key per run and none of the heap: an index-only scan. A PostgreSQL heap keeps
-- rows in the order they were written, and a lab's phones write their runs' launches
-- interleaved, so a run's 100 launches lie on ~100 heap pages (bench/README.md, issue 17 §1:
-- p99 13.2 ms in a heap written run after run, 39.7 ms interleaved). SQLite's WITHOUT ROWID
-- table is this already (schema/0015_launch_history_covering_key.sql).
--
-- The key itself is replaced rather than a second index added: the same uniqueness, the same
-- name, and one index to maintain per inserted launch, not two. INCLUDE columns are stored in
-- the key's leaf entries only; they are not part of the uniqueness or the order. Building it
-- reads the whole table once, under the migration's lock (~10 s for 10 M launches measured).
CREATE UNIQUE INDEX launches_covering_key ON launches (run_id, iteration)
  INCLUDE (valid, warmup, build_id, displayed_ms, total_time_ms, fully_drawn_ms);
ALTER TABLE launches DROP CONSTRAINT launches_pkey,
  ADD CONSTRAINT launches_pkey PRIMARY KEY USING INDEX launches_covering_key;

-- An index-only scan still reads the heap page of each row whose page the visibility map does
-- not yet mark all-visible, and only VACUUM marks it. By default autovacuum visits a table for
-- its inserts after 20 % of its rows (2 M launches of 10 M: months of a lab's newest runs, the
-- very ones a 30-day history asks for). Here every 10,000 inserted launches; such a VACUUM of an
-- insert-only table reads only the pages the visibility map does not mark (PostgreSQL 13+).
ALTER TABLE launches SET (autovacuum_vacuum_insert_threshold = 10000,
                          autovacuum_vacuum_insert_scale_factor = 0);
