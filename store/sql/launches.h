// The SQL of the `launches` table (schema/0001_init.sql, 0004_launch_conditions.sql,
// 0006_launch_builds.sql). Internal
// to store/.
#pragma once

namespace droidlab::store::sql {

inline constexpr char kInsertLaunch[] =
    "INSERT INTO launches (run_id, iteration, displayed_ms, fully_drawn_ms, total_time_ms,"
    " wait_time_ms, launch_state, pid, intent_at_ms, fork_at_ms, displayed_at_ms, valid,"
    " invalid_reason, warmup, thermal_status, battery_temp_tenths_c, cooldown_wait_ms,"
    " build_id)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)";

// An iteration found faulted after it was stored (a late ANR: run_executor.cpp); its first
// reason stays the one it was given first, if it already had one.
inline constexpr char kInvalidateLaunch[] =
    "UPDATE launches SET valid = 0, invalid_reason = coalesce(invalid_reason, ?3)"
    " WHERE run_id = ?1 AND iteration = ?2";

inline constexpr char kDeleteLaunchesOfRun[] = "DELETE FROM launches WHERE run_id = ?1";

// A run's launches after iteration ?2, at most ?3 (-1: all); the page key (iteration) last.
inline constexpr char kLaunchesOfRun[] =
    "SELECT run_id, iteration, displayed_ms, fully_drawn_ms, total_time_ms, wait_time_ms,"
    " launch_state, pid, intent_at_ms, fork_at_ms, displayed_at_ms, valid, invalid_reason,"
    " warmup, thermal_status, battery_temp_tenths_c, cooldown_wait_ms, build_id,"
    " iteration FROM launches WHERE run_id = ?1 AND iteration > ?2 ORDER BY iteration LIMIT ?3";

// A package's succeeded runs and their counted launches (valid, not warm-up), for the history
// chart (joins `runs`). A launch of another build than the run's (a side-by-side run's baseline
// build, 0006_launch_builds.sql) is not the run's history, nor is a calibration run (an A/A of
// one build, issue 15 §3: the noise floor's); json_extract is reached only for launches that
// name a build, as every launch of those runs does.
inline constexpr char kLaunchHistory[] =
    "SELECT r.id, r.serial, r.device_model, r.mode, r.created_at, l.displayed_ms,"
    " l.fully_drawn_ms, l.total_time_ms"
    " FROM runs AS r JOIN launches AS l ON l.run_id = r.id"
    " WHERE r.package = ?1 AND r.created_at >= ?2 AND +r.status = 'succeeded'"
    " AND (?3 IS NULL OR r.device_model = ?3) AND (?4 IS NULL OR r.mode = ?4) AND l.valid = 1"
    " AND l.warmup = 0"
    " AND (l.build_id IS NULL OR (l.build_id = json_extract(r.spec, '$.build')"
    " AND json_extract(r.spec, '$.kind') IS NOT 'calibration'))"
    " ORDER BY r.created_at, r.id, l.iteration";

}  // namespace droidlab::store::sql
