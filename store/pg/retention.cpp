#include "store/pg/retention.h"

#include <algorithm>
#include <vector>

#include "store/pg/run_writes.h"
#include "store/pg/sql/alerts.h"
#include "store/pg/sql/audit_log.h"
#include "store/pg/sql/device_health.h"
#include "store/pg/sql/runs.h"

namespace droidlab::store::pg {

namespace {

StoreResult<std::vector<int64_t>> SelectIds(Connection& db, const char* statement, int64_t first,
                                            int64_t limit) {
  Params params;
  params.Int64(first).Int64(limit);
  auto result = db.Query(statement, params, "choosing runs to prune");
  if (!result) return result.error();
  std::vector<int64_t> ids;
  for (int row = 0; row < result->rows(); ++row) {
    auto id = result->Int64(row, "id");
    if (!id) return id.error();
    ids.push_back(*id);
  }
  return ids;
}

}  // namespace

StoreResult<PruneStepResult> PruneStep(Connection& db, const RetentionPolicy& policy) {
  const int64_t budget = policy.runs_per_step < 1 ? 1 : policy.runs_per_step;
  std::vector<int64_t> ids;
  if (policy.max_age) {
    auto old = SelectIds(db, sql::kRunsOlderThan, policy.now_ms - policy.max_age->count(), budget);
    if (!old) return old.error();
    ids = std::move(old).value();
  }
  for (int64_t id : ids) {
    if (auto s = writes::DeleteRunAndRows(db, id); !s) return s.error();
  }
  if (policy.max_runs && static_cast<int64_t>(ids.size()) < budget) {
    // SQLite reads a negative OFFSET as 0; PostgreSQL refuses one.
    auto extra = SelectIds(db, sql::kRunsBeyondCount, std::max<int64_t>(*policy.max_runs, 0),
                           budget - static_cast<int64_t>(ids.size()));
    if (!extra) return extra.error();
    for (int64_t id : *extra) {
      if (auto s = writes::DeleteRunAndRows(db, id); !s) return s.error();
    }
    ids.insert(ids.end(), extra->begin(), extra->end());
  }
  PruneStepResult step;
  step.runs_deleted = static_cast<int64_t>(ids.size());
  // The last step: the other histories that grow with time.
  if (policy.max_age && step.runs_deleted < budget) {
    Params params;
    params.Int64(policy.now_ms - policy.max_age->count());
    for (const char* statement :
         {sql::kDeleteDeviceStatesBefore, sql::kDeletePaidRestoresBefore, sql::kDeleteAuditBefore,
          sql::kDeleteDeviceHealthBefore, sql::kDeleteDeviceEventsBefore,
          sql::kDeletePrunableAlertAttempts, sql::kDeletePrunableAlertDeliveries,
          sql::kDeletePrunableAlerts}) {
      auto deleted =
          db.Query(statement, params, "pruning device history, the audit log and resolved alerts");
      if (!deleted) return deleted.error();
      step.history_rows_deleted += deleted->affected();
    }
  }
  return step;
}

}  // namespace droidlab::store::pg
