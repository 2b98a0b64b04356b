// The SQL of the `run_summaries` table (schema/0009_run_summaries.sql): a succeeded run's
// summary per metric, the points of a series. Internal to store/.
#pragma once

namespace droidlab::store::sql {

// The key columns come from `runs` itself, so a summary always files under its run's package,
// model, mode and created_at; a run deleted meanwhile inserts nothing. The same (run, metric)
// again replaces the row (run_summaries_by_run is unique).
inline constexpr char kInsertRunSummary[] =
    "INSERT OR REPLACE INTO run_summaries (package, device_model, mode, metric, t, run_id, count,"
    " median, p90, ci_low, ci_high, build_id, version_code, fingerprint, compilation,"
    " hot_launches)"
    " SELECT package, coalesce(device_model, ''), mode, ?2, created_at, id, ?3, ?4, ?5, ?6, ?7,"
    " ?8, ?9, ?10, ?11, ?12 FROM runs WHERE id = ?1";

inline constexpr char kDeleteRunSummariesOfRun[] = "DELETE FROM run_summaries WHERE run_id = ?1";

// One series, oldest first: a range of the primary key. Runs with no counted launch of the
// metric (count = 0) are not points.
inline constexpr char kSeries[] =
    "SELECT run_id, metric, t, count, median, p90, ci_low, ci_high, build_id, version_code,"
    " fingerprint, compilation, hot_launches FROM run_summaries"
    " WHERE package = ?1 AND device_model = ?2 AND mode = ?3 AND metric = ?4 AND t >= ?5"
    " AND t <= ?6 AND count > 0 ORDER BY package, device_model, mode, metric, t, run_id";

// The series a package has (a prefix of the primary key, in its order).
inline constexpr char kSeriesOfPackage[] =
    "SELECT device_model, mode, metric, count(*), min(t), max(t) FROM run_summaries"
    " WHERE package = ?1 AND count > 0 GROUP BY device_model, mode, metric"
    " ORDER BY device_model, mode, metric";

// A run's summaries, by metric.
inline constexpr char kRunSummariesOfRun[] =
    "SELECT run_id, metric, t, count, median, p90, ci_low, ci_high, build_id, version_code,"
    " fingerprint, compilation, hot_launches FROM run_summaries WHERE run_id = ?1"
    " ORDER BY metric";

// Succeeded runs with no summary yet (they finished before 0009, or the daemon stopped between
// a run's end and its summary), by id after ?1, at most ?2: the back-fill's pages.
inline constexpr char kRunsWithoutSummaries[] =
    "SELECT id FROM runs WHERE id > ?1 AND +status = 'succeeded'"
    " AND NOT EXISTS (SELECT 1 FROM run_summaries AS s WHERE s.run_id = runs.id)"
    " ORDER BY id LIMIT ?2";

}  // namespace droidlab::store::sql
