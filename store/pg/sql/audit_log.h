// The PostgreSQL form of ../../sql/audit_log.h (schema/postgresql/0017_audit_log.sql). Internal
// to store/.
#pragma once

namespace droidlab::store::pg::sql {

inline constexpr const char* kInsertAuditEntry =
    "INSERT INTO audit_log (at, caller, remote, method, path, status, location)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7)";

inline constexpr const char* kAuditPage =
    "SELECT id, at, caller, remote, method, path, status, location FROM audit_log"
    " WHERE id < $1 ORDER BY id DESC LIMIT $2";

inline constexpr const char* kDeleteAuditBefore = "DELETE FROM audit_log WHERE at < $1";

}  // namespace droidlab::store::pg::sql
