#include "store/pg/schedule_writes.h"

#include <string>

#include "store/pg/sql/schedules.h"

namespace droidlab::store::pg::writes {

namespace {

// One statement on one schedule; kNotFound when it changed no row.
Status WriteSchedule(Connection& db, const char* statement, const Params& params,
                     const std::string& what) {
  auto result = db.Query(statement, params, what);
  if (!result) return result.error();
  if (result->affected() == 0) {
    return MakeStoreError(StoreErrorCode::kNotFound, what + ": no such schedule");
  }
  return OkStatus();
}

}  // namespace

StoreResult<int64_t> InsertSchedule(Connection& db, const NewSchedule& schedule) {
  Params params;
  params.Text(schedule.cron)
      .Text(schedule.timezone)
      .Text(schedule.run_spec_json)
      .Int64(schedule.enabled ? 1 : 0)  // BIGINT 0 / 1, as SQLite's
      .Int64(schedule.created_at);
  auto result = db.Query(sql::kInsertSchedule, params, "storing a schedule");
  if (!result) return result.error();
  return result->Int64(0, "id");
}

Status DeleteSchedule(Connection& db, int64_t schedule_id) {
  Params params;
  params.Int64(schedule_id);
  return WriteSchedule(db, sql::kDeleteSchedule, params,
                       "deleting schedule " + std::to_string(schedule_id));
}

Status SetScheduleEnabled(Connection& db, int64_t schedule_id, bool enabled) {
  Params params;
  params.Int64(schedule_id).Int64(enabled ? 1 : 0);
  return WriteSchedule(db, sql::kSetScheduleEnabled, params,
                       "enabling schedule " + std::to_string(schedule_id));
}

Status MarkScheduleFired(Connection& db, int64_t schedule_id, int64_t fired_at) {
  Params params;
  params.Int64(schedule_id).Int64(fired_at);
  return WriteSchedule(db, sql::kSetScheduleFired, params,
                       "recording a firing of schedule " + std::to_string(schedule_id));
}

}  // namespace droidlab::store::pg::writes
