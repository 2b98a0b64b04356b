#include "store/audit_writes.h"

#include "store/sql/audit_log.h"
#include "store/sqlite.h"
#include "store/statements.h"

namespace droidlab::store::writes {

Status InsertAuditEntry(Database& db, const AuditEntry& entry) {
  return RunCached(
      db, sql::kInsertAuditEntry,
      [&](Statement& st) {
        st.BindInt64(1, entry.at);
        st.BindText(2, entry.caller);
        st.BindText(3, entry.remote);
        st.BindText(4, entry.method);
        st.BindText(5, entry.path);
        st.BindInt64(6, entry.status);
        st.BindOptional(7, entry.location);
      },
      "recording " + entry.method + " " + entry.path + " in the audit log");
}

}  // namespace droidlab::store::writes
