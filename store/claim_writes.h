// The writes of runs claimed by hosts (schema 0018, issue 17 §2), on the writer's connection
// inside its open transaction, as run_writes.h: a claim, a renewal, the expiry of lapsed claims
// and a cancel asked of any run. Internal to store/; PostgreSQL's are pg/claim_writes.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "store/error.h"
#include "store/records.h"

namespace droidlab::store {

class Database;

namespace writes {

// The run claimed (its id), or none for this phone now.
StoreResult<std::optional<int64_t>> ClaimRun(Database& db, const RunClaim& claim);
StoreResult<RenewedLeases> RenewLeases(Database& db, std::string_view host, int64_t lease_until);
StoreResult<ExpiredLeases> ExpireLeases(Database& db, const LeaseExpiry& expiry);
// kNotFound for an unknown run. `reason` and `now_ms` for a run cancelled at once.
StoreResult<CancelRequest> RequestRunCancel(Database& db, int64_t run_id, std::string_view reason,
                                            int64_t now_ms);
// Whether run_id was a queued run `host` held, now unclaimed.
StoreResult<bool> ReleaseClaim(Database& db, int64_t run_id, std::string_view host);

}  // namespace writes
}  // namespace droidlab::store
