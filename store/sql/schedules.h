// The SQL of the `schedules` table (schema/0001_init.sql). Internal to store/.
#pragma once

namespace droidlab::store::sql {

inline constexpr char kInsertSchedule[] =
    "INSERT INTO schedules (cron, timezone, run_spec, enabled, created_at)"
    " VALUES (?1, ?2, ?3, ?4, ?5)";
inline constexpr char kDeleteSchedule[] = "DELETE FROM schedules WHERE id = ?1";
inline constexpr char kSetScheduleEnabled[] = "UPDATE schedules SET enabled = ?2 WHERE id = ?1";
// A firing is recorded once: by the first daemon to record it, never over a later one (two
// daemons that both believed they did the lab's chores, in a partition, fire it once).
inline constexpr char kSetScheduleFired[] =
    "UPDATE schedules SET last_fired_at = ?2 WHERE id = ?1 AND coalesce(last_fired_at, -1) < ?2";
inline constexpr char kScheduleLastFired[] = "SELECT last_fired_at FROM schedules WHERE id = ?1";

// ReadSchedule in reader.cpp reads DROIDLAB_SCHEDULE_COLUMNS in this order.
#define DROIDLAB_SCHEDULE_COLUMNS "id, cron, timezone, run_spec, enabled, last_fired_at, created_at"
inline constexpr char kSchedules[] =
    "SELECT " DROIDLAB_SCHEDULE_COLUMNS " FROM schedules ORDER BY id";
inline constexpr char kScheduleById[] =
    "SELECT " DROIDLAB_SCHEDULE_COLUMNS " FROM schedules WHERE id = ?1";
#undef DROIDLAB_SCHEDULE_COLUMNS

}  // namespace droidlab::store::sql
