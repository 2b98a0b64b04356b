#include "store/pg/audit_writes.h"

#include "store/pg/sql/audit_log.h"

namespace droidlab::store::pg::writes {

Status InsertAuditEntry(Connection& db, const AuditEntry& entry) {
  Params params;
  params.Int64(entry.at)
      .Text(entry.caller)
      .Text(entry.remote)
      .Text(entry.method)
      .Text(entry.path)
      .Int64(entry.status)
      .Optional(entry.location);
  auto result = db.Query(sql::kInsertAuditEntry, params,
                         "recording " + entry.method + " " + entry.path + " in the audit log");
  if (!result) return result.error();
  return OkStatus();
}

}  // namespace droidlab::store::pg::writes
