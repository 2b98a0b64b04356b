// The SQL of `audit_log` (schema/0017_audit_log.sql). Internal to store/.
#pragma once

namespace droidlab::store::sql {

inline constexpr char kInsertAuditEntry[] =
    "INSERT INTO audit_log (at, caller, remote, method, path, status, location)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";

// Newest first, keyset-paged by id (?1: the last id sent, ?2: how many).
inline constexpr char kAuditPage[] =
    "SELECT id, at, caller, remote, method, path, status, location FROM audit_log"
    " WHERE id < ?1 ORDER BY id DESC LIMIT ?2";

// Retention (retention.cpp): entries older than max_age go with the runs of their time.
inline constexpr char kDeleteAuditBefore[] = "DELETE FROM audit_log WHERE at < ?1";

}  // namespace droidlab::store::sql
