// The PostgreSQL form of ../claim_writes.h: claims, renewals, lapsed claims and cancels of runs
// (schema 0018). Same arguments, results and error codes; inside the writer's transaction.
// Internal to store/.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "store/error.h"
#include "store/pg/connection.h"
#include "store/records.h"

namespace droidlab::store::pg::writes {

StoreResult<std::optional<int64_t>> ClaimRun(Connection& db, const RunClaim& claim);
StoreResult<RenewedLeases> RenewLeases(Connection& db, std::string_view host, int64_t lease_until);
StoreResult<ExpiredLeases> ExpireLeases(Connection& db, const LeaseExpiry& expiry);
StoreResult<CancelRequest> RequestRunCancel(Connection& db, int64_t run_id,
                                            std::string_view reason, int64_t now_ms);
StoreResult<bool> ReleaseClaim(Connection& db, int64_t run_id, std::string_view host);

}  // namespace droidlab::store::pg::writes
