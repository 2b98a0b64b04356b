// The writes of `schedules`, applied on the writer's connection inside its open transaction
// (writer.h). Internal to store/: Store wraps each in a durable write task.
#pragma once

#include <cstdint>

#include "store/error.h"
#include "store/records.h"

namespace droidlab::store {

class Database;

namespace writes {

StoreResult<int64_t> InsertSchedule(Database& db, const NewSchedule& schedule);  // the new id
// Each kNotFound for an unknown schedule.
Status DeleteSchedule(Database& db, int64_t schedule_id);
Status SetScheduleEnabled(Database& db, int64_t schedule_id, bool enabled);
Status MarkScheduleFired(Database& db, int64_t schedule_id, int64_t fired_at);

}  // namespace writes
}  // namespace droidlab::store
