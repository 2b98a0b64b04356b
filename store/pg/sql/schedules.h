// The PostgreSQL form of ../../sql/schedules.h (schema/postgresql/0001_init.sql). Internal to
// store/. `enabled` is BIGINT 0 / 1, as SQLite's.
#pragma once

namespace droidlab::store::pg::sql {

inline constexpr const char* kInsertSchedule =
    "INSERT INTO schedules (cron, timezone, run_spec, enabled, created_at)"
    " VALUES ($1, $2, $3, $4, $5) RETURNING id";
inline constexpr const char* kDeleteSchedule = "DELETE FROM schedules WHERE id = $1";
inline constexpr const char* kSetScheduleEnabled =
    "UPDATE schedules SET enabled = $2 WHERE id = $1";
// As SQLite's (store/sql/schedules.h): a firing is recorded once. Under READ COMMITTED the
// second of two concurrent UPDATEs waits for the first's commit and then sees its value.
inline constexpr const char* kSetScheduleFired =
    "UPDATE schedules SET last_fired_at = $2 WHERE id = $1 AND coalesce(last_fired_at, -1) < $2";
inline constexpr const char* kScheduleLastFired =
    "SELECT last_fired_at FROM schedules WHERE id = $1";

#define DROIDLAB_PG_SCHEDULE_COLUMNS \
  "id, cron, timezone, run_spec, enabled, last_fired_at, created_at"
inline constexpr const char* kSchedules =
    "SELECT " DROIDLAB_PG_SCHEDULE_COLUMNS " FROM schedules ORDER BY id";
inline constexpr const char* kScheduleById =
    "SELECT " DROIDLAB_PG_SCHEDULE_COLUMNS " FROM schedules WHERE id = $1";
#undef DROIDLAB_PG_SCHEDULE_COLUMNS

}  // namespace droidlab::store::pg::sql
