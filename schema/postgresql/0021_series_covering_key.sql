-- 0021_series_covering_key: run_summaries' primary key, (package, device_model, mode, metric, t,
-- run_id) as before, now carrying every other column a series reads (store/pg/sql/run_summaries.h
-- kSeries: count, the median, p90 and its CI, the build, versionCode, fingerprint, compilation and
-- hot launches), so that GET /series reads one range of the key and none of the heap: an
-- index-only scan, as 0015 made the launch history. A PostgreSQL heap keeps rows in the order
-- they were written, and runs end interleaved across packages and phones, so a series of 1,000
-- points lay on ~900 heap pages, read through a bitmap and then sorted (bench/README.md, issue
-- 17 §1). SQLite's WITHOUT ROWID table is this already (schema/0021_series_covering_key.sql).
--
-- The key itself is replaced rather than a second index added: the same uniqueness, the same
-- name, one index to maintain per summary written. INCLUDE columns are stored in the key's leaf
-- entries only; they are not part of the uniqueness or the order.
CREATE UNIQUE INDEX run_summaries_covering_key
  ON run_summaries (package, device_model, mode, metric, t, run_id)
  INCLUDE (count, median, p90, ci_low, ci_high, build_id, version_code, fingerprint, compilation,
           hot_launches);
ALTER TABLE run_summaries DROP CONSTRAINT run_summaries_pkey,
  ADD CONSTRAINT run_summaries_pkey PRIMARY KEY USING INDEX run_summaries_covering_key;

-- An index-only scan reads the heap page of each row the visibility map does not yet mark
-- all-visible, and only VACUUM marks it; by default autovacuum visits a table for its inserts
-- after 20 % of its rows. A run writes a summary per metric when it ends, a few a run: here
-- autovacuum visits every 1,000 rows written, which on an insert-mostly table reads only the
-- pages not yet marked.
ALTER TABLE run_summaries SET (autovacuum_vacuum_insert_threshold = 1000,
                               autovacuum_vacuum_insert_scale_factor = 0);
