#include "store/pg/schedule_writes.h"

#include <string>

#include "store/pg/sql/schedules.h"
#include "store/schedule_fired.h"

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
  const std::string what = "recording a firing of schedule " + std::to_string(schedule_id);
  Params params;
  params.Int64(schedule_id).Int64(fired_at);
  auto marked = db.Query(sql::kSetScheduleFired, params, what);
  if (!marked) return marked.error();
  if (marked->affected() > 0) return OkStatus();
  // No row changed: no such schedule, or this firing (or a later one) is recorded already.
  Params id;
  id.Int64(schedule_id);
  auto read = db.Query(sql::kScheduleLastFired, id, what);
  if (!read) return read.error();
  if (read->rows() == 0) {
    return MakeStoreError(StoreErrorCode::kNotFound, what + ": no such schedule");
  }
  auto recorded = read->OptionalInt64(0, 0);
  if (!recorded) return recorded.error();
  return FiredAlready(what, recorded->value_or(0));
}

}  // namespace droidlab::store::pg::writes
