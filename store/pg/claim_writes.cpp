#include "store/pg/claim_writes.h"

#include <string>
#include <vector>

#include "store/pg/sql/run_claims.h"

namespace droidlab::store::pg::writes {

StoreResult<std::optional<int64_t>> ClaimRun(Connection& db, const RunClaim& claim) {
  Params params;
  params.Text(claim.host);
  if (claim.run_id) {
    params.Int64(*claim.run_id);
  } else {
    params.Text(claim.serial);
  }
  params.Int64(claim.lease_until);
  auto result = db.Query(claim.run_id ? sql::kClaimRunById : sql::kClaimRunForPhone, params,
                         "claiming a run for " + claim.serial + " on host " + claim.host);
  if (!result) return result.error();
  if (result->rows() == 0) return std::optional<int64_t>();
  auto id = result->Int64(0, "id");
  if (!id) return id.error();
  return std::optional<int64_t>(*id);
}

StoreResult<RenewedLeases> RenewLeases(Connection& db, std::string_view host,
                                       int64_t lease_until) {
  Params params;
  params.Text(host).Int64(lease_until);
  auto result =
      db.Query(sql::kRenewLeases, params, "renewing the claims of host " + std::string(host));
  if (!result) return result.error();
  RenewedLeases renewed;
  for (int row = 0; row < result->rows(); ++row) {
    auto id = result->Int64(row, "id");
    auto cancel = result->Int64(row, "cancel_requested");
    if (!id) return id.error();
    if (!cancel) return cancel.error();
    renewed.held.push_back(*id);
    if (*cancel != 0) renewed.cancel_requested.push_back(*id);
  }
  return renewed;
}

StoreResult<ExpiredLeases> ExpireLeases(Connection& db, const LeaseExpiry& expiry) {
  const std::string what = "ending lapsed claims on runs";
  Params lapse;
  lapse.Int64(expiry.now_ms).Optional(expiry.restarting_host);
  auto cancelled = db.Query(sql::kCancelLapsedRequested, lapse, what);
  if (!cancelled) return cancelled.error();
  ExpiredLeases expired;
  auto released = db.Query(sql::kReleaseLapsedClaims, lapse, what);
  if (!released) return released.error();
  expired.released = released->affected();
  Params interrupt;
  interrupt.Int64(expiry.now_ms).Optional(expiry.restarting_host).Text(expiry.restart_reason);
  auto interrupted = db.Query(sql::kInterruptLapsed, interrupt, what);
  if (!interrupted) return interrupted.error();
  std::vector<int64_t> pool_runs;
  for (int row = 0; row < interrupted->rows(); ++row) {
    auto id = interrupted->Int64(row, "id");
    auto pool = interrupted->Int64(row, "pool");
    auto cancel = interrupted->Int64(row, "cancel_requested");
    if (!id) return id.error();
    if (!pool) return pool.error();
    if (!cancel) return cancel.error();
    expired.interrupted.push_back(*id);
    // A pool run goes back to the pool unless someone asked to cancel it.
    if (*pool != 0 && *cancel == 0) pool_runs.push_back(*id);
  }
  for (int64_t old_id : pool_runs) {
    Params params;
    params.Int64(old_id).Int64(expiry.now_ms);
    auto again = db.Query(sql::kRequeuePoolRun, params,
                          "queuing pool run " + std::to_string(old_id) + " again");
    if (!again) return again.error();
    auto new_id = again->Int64(0, "id");
    if (!new_id) return new_id.error();
    expired.requeued.emplace_back(old_id, *new_id);
  }
  return expired;
}

StoreResult<CancelRequest> RequestRunCancel(Connection& db, int64_t run_id,
                                            std::string_view reason, int64_t now_ms) {
  const std::string what = "cancelling run " + std::to_string(run_id);
  Params params;
  params.Int64(run_id).Text(reason).Int64(now_ms);
  auto cancelled = db.Query(sql::kCancelUnclaimed, params, what);
  if (!cancelled) return cancelled.error();
  if (cancelled->affected() > 0) return CancelRequest::kCancelled;
  Params id;
  id.Int64(run_id);
  auto requested = db.Query(sql::kRequestCancel, id, what);
  if (!requested) return requested.error();
  if (requested->affected() > 0) return CancelRequest::kRequested;
  auto exists = db.Query(sql::kRunExists, id, what);
  if (!exists) return exists.error();
  if (exists->rows() == 0) return MakeStoreError(StoreErrorCode::kNotFound, what + ": no such run");
  return CancelRequest::kAlreadyEnded;
}

StoreResult<bool> ReleaseClaim(Connection& db, int64_t run_id, std::string_view host) {
  Params params;
  params.Int64(run_id).Text(host);
  auto released = db.Query(sql::kReleaseClaim, params,
                           "giving back run " + std::to_string(run_id) + "'s claim");
  if (!released) return released.error();
  return released->affected() > 0;
}

}  // namespace droidlab::store::pg::writes
