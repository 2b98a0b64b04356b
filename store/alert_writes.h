// The writes of alerts and their deliveries (schema/0010_alerts.sql), applied on the writer's
// connection inside its open transaction (writer.h). Internal to store/: Store wraps each in a
// durable write task.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/error.h"
#include "store/records.h"

namespace droidlab::store {

class Database;

namespace writes {

// The alert and one pending delivery per webhook, due at alert.created_at; the alert's id.
// kConstraint when a delivery_id is already taken (nothing is stored then).
StoreResult<int64_t> InsertAlert(Database& db, const NewAlert& alert,
                                 const std::vector<NewAlertDelivery>& deliveries);
// The attempt, and the delivery's state after it. kNotFound when the delivery is not pending or
// the attempt is not its next one (a second daemon, a replayed record).
Status RecordAlertAttempt(Database& db, const AlertAttemptRecord& record);
// kNotFound when the alert is not open.
Status ResolveAlert(Database& db, int64_t alert_id, int64_t resolved_at);

}  // namespace writes

// explained_by as the JSON array the table keeps (RFC 8259 string escapes).
std::string ExplainedByJson(const std::vector<std::string>& explained_by);

}  // namespace droidlab::store
