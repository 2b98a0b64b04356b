#include "store/claim_writes.h"

#include <string>
#include <utility>
#include <vector>

#include "store/sql/run_claims.h"
#include "store/sqlite.h"
#include "store/statements.h"

namespace droidlab::store::writes {

StoreResult<std::optional<int64_t>> ClaimRun(Database& db, const RunClaim& claim) {
  std::optional<int64_t> claimed;
  const char* sql = claim.run_id ? sql::kClaimRunById : sql::kClaimRunForPhone;
  auto s = EachRow(
      db, sql,
      [&](Statement& st) {
        st.BindText(1, claim.host);
        if (claim.run_id) {
          st.BindInt64(2, *claim.run_id);
        } else {
          st.BindText(2, claim.serial);
        }
        st.BindInt64(3, claim.lease_until);
      },
      [&](const Statement& st) { claimed = st.ColumnInt64(0); },
      "claiming a run for " + claim.serial + " on host " + claim.host);
  if (!s) return s.error();
  return claimed;
}

StoreResult<RenewedLeases> RenewLeases(Database& db, std::string_view host, int64_t lease_until) {
  RenewedLeases renewed;
  auto s = EachRow(
      db, sql::kRenewLeases,
      [&](Statement& st) {
        st.BindText(1, host);
        st.BindInt64(2, lease_until);
      },
      [&](const Statement& st) {
        renewed.held.push_back(st.ColumnInt64(0));
        if (st.ColumnInt64(1) != 0) renewed.cancel_requested.push_back(st.ColumnInt64(0));
      },
      "renewing the claims of host " + std::string(host));
  if (!s) return s.error();
  return renewed;
}

StoreResult<ExpiredLeases> ExpireLeases(Database& db, const LeaseExpiry& expiry) {
  const std::string what = "ending lapsed claims on runs";
  auto bind_lapse = [&](Statement& st) {
    st.BindInt64(1, expiry.now_ms);
    st.BindOptional(2, expiry.restarting_host);
  };
  if (auto s = RunCached(db, sql::kCancelLapsedRequested, bind_lapse, what); !s) return s.error();
  ExpiredLeases expired;
  if (auto s = RunCached(db, sql::kReleaseLapsedClaims, bind_lapse, what); !s) return s.error();
  expired.released = db.Changes();
  std::vector<int64_t> pool_runs;
  auto s = EachRow(
      db, sql::kInterruptLapsed,
      [&](Statement& st) {
        bind_lapse(st);
        st.BindText(3, expiry.restart_reason);
      },
      [&](const Statement& st) {
        expired.interrupted.push_back(st.ColumnInt64(0));
        // A pool run goes back to the pool unless someone asked to cancel it.
        if (st.ColumnInt64(1) != 0 && st.ColumnInt64(2) == 0) pool_runs.push_back(st.ColumnInt64(0));
      },
      what);
  if (!s) return s.error();
  for (int64_t old_id : pool_runs) {
    const std::string requeue = "queuing pool run " + std::to_string(old_id) + " again";
    if (auto r = RunCached(
            db, sql::kRequeuePoolRun,
            [&](Statement& st) {
              st.BindInt64(1, old_id);
              st.BindInt64(2, expiry.now_ms);
            },
            requeue);
        !r) {
      return r.error();
    }
    const int64_t new_id = db.LastInsertRowId();
    auto bind_both = [&](Statement& st) {
      st.BindInt64(1, old_id);
      st.BindInt64(2, new_id);
    };
    if (auto r = RunCached(db, sql::kCopyPoolLabels, bind_both, requeue); !r) return r.error();
    if (auto r = RunCached(db, sql::kNoteRequeued, bind_both, requeue); !r) return r.error();
    expired.requeued.emplace_back(old_id, new_id);
  }
  return expired;
}

StoreResult<CancelRequest> RequestRunCancel(Database& db, int64_t run_id, std::string_view reason,
                                            int64_t now_ms) {
  const std::string what = "cancelling run " + std::to_string(run_id);
  auto s = RunCached(
      db, sql::kCancelUnclaimed,
      [&](Statement& st) {
        st.BindInt64(1, run_id);
        st.BindText(2, reason);
        st.BindInt64(3, now_ms);
      },
      what);
  if (!s) return s.error();
  if (db.Changes() > 0) return CancelRequest::kCancelled;
  auto bind_id = [&](Statement& st) { st.BindInt64(1, run_id); };
  if (auto r = RunCached(db, sql::kRequestCancel, bind_id, what); !r) return r.error();
  if (db.Changes() > 0) return CancelRequest::kRequested;
  bool exists = false;
  auto read = EachRow(db, sql::kRunExists, bind_id, [&](const Statement&) { exists = true; }, what);
  if (!read) return read.error();
  if (!exists) return MakeStoreError(StoreErrorCode::kNotFound, what + ": no such run");
  return CancelRequest::kAlreadyEnded;
}

StoreResult<bool> ReleaseClaim(Database& db, int64_t run_id, std::string_view host) {
  auto s = RunCached(
      db, sql::kReleaseClaim,
      [&](Statement& st) {
        st.BindInt64(1, run_id);
        st.BindText(2, host);
      },
      "giving back run " + std::to_string(run_id) + "'s claim");
  if (!s) return s.error();
  return db.Changes() > 0;
}

}  // namespace droidlab::store::writes
