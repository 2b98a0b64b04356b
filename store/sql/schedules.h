// The SQL of the `schedules` table (schema/0001_init.sql). Internal to store/.
#pragma once

namespace droidlab::store::sql {

inline constexpr char kInsertSchedule[] =
    "INSERT INTO schedules (cron, timezone, run_spec, enabled, created_at)"
    " VALUES (?1, ?2, ?3, ?4, ?5)";
inline constexpr char kDeleteSchedule[] = "DELETE FROM schedules WHERE id = ?1";
inline constexpr char kSetScheduleEnabled[] = "UPDATE schedules SET enabled = ?2 WHERE id = ?1";
inline constexpr char kSetScheduleFired[] = "UPDATE schedules SET last_fired_at = ?2 WHERE id = ?1";

// ReadSchedule in reader.cpp reads DROIDLAB_SCHEDULE_COLUMNS in this order.
#define DROIDLAB_SCHEDULE_COLUMNS "id, cron, timezone, run_spec, enabled, last_fired_at, created_at"
inline constexpr char kSchedules[] =
    "SELECT " DROIDLAB_SCHEDULE_COLUMNS " FROM schedules ORDER BY id";
inline constexpr char kScheduleById[] =
    "SELECT " DROIDLAB_SCHEDULE_COLUMNS " FROM schedules WHERE id = ?1";
#undef DROIDLAB_SCHEDULE_COLUMNS

}  // namespace droidlab::store::sql
