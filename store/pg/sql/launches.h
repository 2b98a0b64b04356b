// The PostgreSQL form of ../../sql/launches.h (schema/postgresql/0001_init.sql,
// 0004_launch_conditions.sql, 0006_launch_builds.sql). Internal to store/. Launches are written
// with COPY (run_writes.cpp): kLaunchCopyColumns is its column list.
#pragma once

#include <array>

namespace droidlab::store::pg::sql {

// COPY launches (...) FROM STDIN, in this order. valid and warmup are BIGINT 0 / 1, as SQLite's.
inline constexpr std::array<const char*, 18> kLaunchCopyColumns = {
    "run_id",           "iteration",    "displayed_ms",    "fully_drawn_ms",
    "total_time_ms",    "wait_time_ms", "launch_state",    "pid",
    "intent_at_ms",     "fork_at_ms",   "displayed_at_ms", "valid",
    "invalid_reason",   "warmup",       "thermal_status",  "battery_temp_tenths_c",
    "cooldown_wait_ms", "build_id"};

// A run's launches after iteration $2, at most $3 (NULL: all); the page key is `iteration`.
inline constexpr const char* kLaunchesOfRun =
    "SELECT run_id, iteration, displayed_ms, fully_drawn_ms, total_time_ms, wait_time_ms,"
    " launch_state, pid, intent_at_ms, fork_at_ms, displayed_at_ms, valid, invalid_reason,"
    " warmup, thermal_status, battery_temp_tenths_c, cooldown_wait_ms, build_id"
    " FROM launches WHERE run_id = $1 AND iteration > $2 ORDER BY iteration LIMIT $3";

// A package's succeeded runs, each with the figures of its counted launches (valid, not
// warm-up): SQLite's kLaunchHistory returns the launches and ../reader.cpp summarises them per
// run; here the server does it and sends one row a run (82 rows, not 8,000, for 30 days of a
// busy package: the rows' transfer, reading and sort were most of the query's time). The same
// figures: launches and min / max / mean over the launches with a displayed_ms, the mean as
// sum / count in doubles, the medians by percentile_cont(0.5) (the mean of the two middle
// values of an even count, exact for integers below 2^52); a run with counted launches but no
// displayed_ms is a point with launches = 0. The run's build is compared as JSON (a number
// equals the build_id whatever its spelling, 5 or 5.0), never cast: a spec whose "build" is not
// a number matches no launch instead of failing the query. spec->>'kind' is NULL without a kind.
//
// The runs are found first, by runs_by_package (package, created_at), and then each run's
// launches, one range of launches_pkey, summarised in a LATERAL aggregate: no sort of the
// launches across runs (what GROUP BY costs), and the MATERIALIZED CTE keeps that order. As one
// join the planner misjudges a run's launches (ANALYZE's sample of a 10 M-row table puts ~290
// launches under a run_id, not 100), finds a nested loop over 80 runs dear, and chooses a
// parallel plan with a sequential scan of every run instead. `counted > 0`: a run none of whose
// launches count is no point, as in SQLite's join (bench/pg_store_bench.cpp, bench/README.md).
inline constexpr const char* kLaunchHistory =
    "WITH r AS MATERIALIZED (SELECT id, serial, device_model, mode, created_at, spec FROM runs"
    " WHERE package = $1 AND created_at >= $2 AND status = 'succeeded'"
    " AND ($3::text IS NULL OR device_model = $3) AND ($4::text IS NULL OR mode = $4))"
    " SELECT r.id, r.serial, r.device_model, r.mode, r.created_at, a.launches,"
    " a.displayed_min_ms, a.displayed_max_ms, a.displayed_mean_ms, a.displayed_median_ms,"
    " a.total_time_median_ms, a.fully_drawn_median_ms"
    " FROM r, LATERAL (SELECT count(*) AS counted, count(l.displayed_ms) AS launches,"
    " min(l.displayed_ms) AS displayed_min_ms, max(l.displayed_ms) AS displayed_max_ms,"
    " sum(l.displayed_ms)::float8 / nullif(count(l.displayed_ms), 0) AS displayed_mean_ms,"
    " percentile_cont(0.5) WITHIN GROUP (ORDER BY l.displayed_ms) AS displayed_median_ms,"
    " percentile_cont(0.5) WITHIN GROUP (ORDER BY l.total_time_ms) AS total_time_median_ms,"
    " percentile_cont(0.5) WITHIN GROUP (ORDER BY l.fully_drawn_ms) AS fully_drawn_median_ms"
    " FROM launches AS l WHERE l.run_id = r.id AND l.valid = 1 AND l.warmup = 0"
    " AND (l.build_id IS NULL OR ((r.spec->'build')::jsonb = to_jsonb(l.build_id)"
    " AND (r.spec->>'kind') IS DISTINCT FROM 'calibration'))) AS a"
    " WHERE a.counted > 0"
    " ORDER BY r.created_at, r.id";

}  // namespace droidlab::store::pg::sql
