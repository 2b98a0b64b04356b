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

// A package's succeeded runs and their counted launches (valid, not warm-up), for the history
// chart, as SQLite's kLaunchHistory. The run's build is compared as JSON (a number equals the
// build_id whatever its spelling, 5 or 5.0), never cast: a spec whose "build" is not a number
// matches no launch instead of failing the query. spec->>'kind' is NULL without a kind.
inline constexpr const char* kLaunchHistory =
    "SELECT r.id, r.serial, r.device_model, r.mode, r.created_at, l.displayed_ms,"
    " l.fully_drawn_ms, l.total_time_ms"
    " FROM runs AS r JOIN launches AS l ON l.run_id = r.id"
    " WHERE r.package = $1 AND r.created_at >= $2 AND r.status = 'succeeded'"
    " AND ($3::text IS NULL OR r.device_model = $3) AND ($4::text IS NULL OR r.mode = $4)"
    " AND l.valid = 1 AND l.warmup = 0"
    " AND (l.build_id IS NULL OR ((r.spec->'build')::jsonb = to_jsonb(l.build_id)"
    " AND (r.spec->>'kind') IS DISTINCT FROM 'calibration'))"
    " ORDER BY r.created_at, r.id, l.iteration";

}  // namespace droidlab::store::pg::sql
