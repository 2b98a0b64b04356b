// The PostgreSQL forms of the writes of alerts and their deliveries (../alert_writes.h): the same
// arguments with a pg::Connection in place of the Database, the same results and errors. Each
// runs inside the writer's open transaction (a savepoint per task) and never begins or commits
// one. Internal to store/.
#pragma once

#include <cstdint>
#include <vector>

#include "store/error.h"
#include "store/pg/connection.h"
#include "store/records.h"

namespace droidlab::store::pg::writes {

// The alert and one pending delivery per webhook, due at alert.created_at; the alert's id.
// kConstraint when a delivery_id is already taken (the writer's savepoint then drops the alert
// too: nothing is stored).
StoreResult<int64_t> InsertAlert(Connection& connection, const NewAlert& alert,
                                 const std::vector<NewAlertDelivery>& deliveries);
// The attempt, and the delivery's state after it. kNotFound when the delivery is not pending or
// the attempt is not its next one (a second daemon, a replayed record).
Status RecordAlertAttempt(Connection& connection, const AlertAttemptRecord& record);
// kNotFound when the alert is not open.
Status ResolveAlert(Connection& connection, int64_t alert_id, int64_t resolved_at);

}  // namespace droidlab::store::pg::writes
