// The PostgreSQL form of ../audit_writes.h: `audit_log`. Same arguments (a pg::Connection for the
// Database), results and error codes; runs inside its caller's transaction. Internal to store/.
#pragma once

#include "store/error.h"
#include "store/pg/connection.h"
#include "store/records.h"

namespace droidlab::store::pg::writes {

Status InsertAuditEntry(Connection& db, const AuditEntry& entry);

}  // namespace droidlab::store::pg::writes
