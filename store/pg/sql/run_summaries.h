// The PostgreSQL SQL of the `run_summaries` table (schema/postgresql/0009_run_summaries.sql): a
// succeeded run's summary per metric, the points of a series. ../../sql/run_summaries.h in
// PostgreSQL's dialect. Internal to store/.
#pragma once

namespace droidlab::store::pg::sql {

// The key columns come from `runs` itself, so a summary always files under its run's package,
// model, mode and created_at; a run deleted meanwhile inserts nothing. The same (run, metric)
// again replaces the row (SQLite's INSERT OR REPLACE; run_summaries_by_run is unique, and the
// primary key holds run_id and metric too, so no other key can conflict). The parameters are
// cast: in a SELECT list a NULL parameter would otherwise be taken as text.
inline constexpr char kInsertRunSummary[] =
    "INSERT INTO run_summaries (package, device_model, mode, metric, t, run_id, count,"
    " median, p90, ci_low, ci_high, build_id, version_code, fingerprint, compilation,"
    " hot_launches)"
    " SELECT package, coalesce(device_model, ''), mode, $2::text, created_at, id, $3::bigint,"
    " $4::double precision, $5::double precision, $6::double precision, $7::double precision,"
    " $8::bigint, $9::bigint, $10::text, $11::text, $12::bigint FROM runs WHERE id = $1"
    " ON CONFLICT (run_id, metric) DO UPDATE SET package = EXCLUDED.package,"
    " device_model = EXCLUDED.device_model, mode = EXCLUDED.mode, t = EXCLUDED.t,"
    " count = EXCLUDED.count, median = EXCLUDED.median, p90 = EXCLUDED.p90,"
    " ci_low = EXCLUDED.ci_low, ci_high = EXCLUDED.ci_high, build_id = EXCLUDED.build_id,"
    " version_code = EXCLUDED.version_code, fingerprint = EXCLUDED.fingerprint,"
    " compilation = EXCLUDED.compilation, hot_launches = EXCLUDED.hot_launches";

// One series, oldest first: a range of the primary key (the equalities fix its text columns,
// so the order is t, run_id). Runs with no counted launch of the metric (count = 0) are not
// points.
inline constexpr char kSeries[] =
    "SELECT run_id, metric, t, count, median, p90, ci_low, ci_high, build_id, version_code,"
    " fingerprint, compilation, hot_launches FROM run_summaries"
    " WHERE package = $1 AND device_model = $2 AND mode = $3 AND metric = $4 AND t >= $5"
    " AND t <= $6 AND count > 0 ORDER BY t, run_id";

// The series a package has, in byte order of model, mode and metric as SQLite orders them.
inline constexpr char kSeriesOfPackage[] =
    "SELECT device_model, mode, metric, count(*) AS points, min(t) AS first_t,"
    " max(t) AS last_t FROM run_summaries WHERE package = $1 AND count > 0"
    " GROUP BY device_model, mode, metric"
    " ORDER BY device_model COLLATE \"C\", mode COLLATE \"C\", metric COLLATE \"C\"";

// A run's summaries, by metric (byte order).
inline constexpr char kRunSummariesOfRun[] =
    "SELECT run_id, metric, t, count, median, p90, ci_low, ci_high, build_id, version_code,"
    " fingerprint, compilation, hot_launches FROM run_summaries WHERE run_id = $1"
    " ORDER BY metric COLLATE \"C\"";

// Succeeded runs with no summary yet, by id after $1, at most $2: the back-fill's pages. A
// negative limit is SQLite's "no limit" (LIMIT NULL is PostgreSQL's).
inline constexpr char kRunsWithoutSummaries[] =
    "SELECT id FROM runs WHERE id > $1 AND status = 'succeeded'"
    " AND NOT EXISTS (SELECT 1 FROM run_summaries AS s WHERE s.run_id = runs.id)"
    " ORDER BY id LIMIT CASE WHEN $2 < 0 THEN NULL ELSE $2 END";

}  // namespace droidlab::store::pg::sql
