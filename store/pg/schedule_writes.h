// The PostgreSQL form of ../schedule_writes.h: `schedules`. Same arguments (a pg::Connection
// for the Database), results and error codes; each runs inside its caller's transaction.
// Internal to store/.
#pragma once

#include <cstdint>

#include "store/error.h"
#include "store/pg/connection.h"
#include "store/records.h"

namespace droidlab::store::pg::writes {

StoreResult<int64_t> InsertSchedule(Connection& db, const NewSchedule& schedule);  // the new id
// Each kNotFound for an unknown schedule.
Status DeleteSchedule(Connection& db, int64_t schedule_id);
Status SetScheduleEnabled(Connection& db, int64_t schedule_id, bool enabled);
Status MarkScheduleFired(Connection& db, int64_t schedule_id, int64_t fired_at);

}  // namespace droidlab::store::pg::writes
