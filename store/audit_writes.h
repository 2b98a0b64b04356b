// The write of `audit_log` (schema 0017), applied on the writer's connection inside its open
// transaction (writer.h). Internal to store/: Store wraps it in a durable write task.
#pragma once

#include "store/error.h"
#include "store/records.h"

namespace droidlab::store {

class Database;

namespace writes {

// Appends an entry (its id is the store's).
Status InsertAuditEntry(Database& db, const AuditEntry& entry);

}  // namespace writes
}  // namespace droidlab::store
