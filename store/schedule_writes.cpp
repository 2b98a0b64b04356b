#include "store/schedule_writes.h"

#include <optional>
#include <string>

#include "store/schedule_fired.h"
#include "store/sql/schedules.h"
#include "store/sqlite.h"
#include "store/statements.h"

namespace droidlab::store::writes {

namespace {

// One statement on one schedule; kNotFound when it changed no row.
template <class Bind>
Status WriteSchedule(Database& db, const char* statement, Bind bind, const std::string& what) {
  if (auto s = RunCached(db, statement, bind, what); !s) return s;
  return NotFoundUnlessChanged(db, what + ": no such schedule");
}

}  // namespace

StoreResult<int64_t> InsertSchedule(Database& db, const NewSchedule& schedule) {
  auto s = RunCached(
      db, sql::kInsertSchedule,
      [&](Statement& st) {
        st.BindText(1, schedule.cron);
        st.BindText(2, schedule.timezone);
        st.BindText(3, schedule.run_spec_json);
        st.BindBool(4, schedule.enabled);
        st.BindInt64(5, schedule.created_at);
      },
      "storing a schedule");
  if (!s) return s.error();
  return db.LastInsertRowId();
}

Status DeleteSchedule(Database& db, int64_t schedule_id) {
  return WriteSchedule(
      db, sql::kDeleteSchedule, [&](Statement& st) { st.BindInt64(1, schedule_id); },
      "deleting schedule " + std::to_string(schedule_id));
}

Status SetScheduleEnabled(Database& db, int64_t schedule_id, bool enabled) {
  return WriteSchedule(
      db, sql::kSetScheduleEnabled,
      [&](Statement& st) {
        st.BindInt64(1, schedule_id);
        st.BindInt64(2, enabled ? 1 : 0);
      },
      "enabling schedule " + std::to_string(schedule_id));
}

Status MarkScheduleFired(Database& db, int64_t schedule_id, int64_t fired_at) {
  const std::string what = "recording a firing of schedule " + std::to_string(schedule_id);
  if (auto s = RunCached(
          db, sql::kSetScheduleFired,
          [&](Statement& st) {
            st.BindInt64(1, schedule_id);
            st.BindInt64(2, fired_at);
          },
          what);
      !s) {
    return s;
  }
  if (db.Changes() > 0) return OkStatus();
  // No row changed: no such schedule, or this firing (or a later one) is recorded already.
  bool exists = false;
  std::optional<int64_t> recorded;
  auto read = EachRow(
      db, sql::kScheduleLastFired, [&](Statement& st) { st.BindInt64(1, schedule_id); },
      [&](const Statement& st) {
        exists = true;
        ReadColumn(st, 0, recorded);
      },
      what);
  if (!read) return read;
  if (!exists) return MakeStoreError(StoreErrorCode::kNotFound, what + ": no such schedule");
  return FiredAlready(what, recorded.value_or(0));
}

}  // namespace droidlab::store::writes
