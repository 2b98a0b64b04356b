#include "store/retention.h"

#include <memory>
#include <utility>
#include <vector>

#include "store/run_writes.h"
#include "store/sql/alerts.h"
#include "store/sql/audit_log.h"
#include "store/sql/device_health.h"
#include "store/sql/runs.h"
#include "store/sqlite.h"
#include "store/write_session.h"
#include "store/writer.h"

namespace droidlab::store {

namespace {

int64_t Budget(const RetentionPolicy& policy) {
  return policy.runs_per_step < 1 ? 1 : policy.runs_per_step;
}

struct PruneState {
  Writer* writer = nullptr;
  size_t step_records = 0;
  RetentionPolicy policy;
  RetentionResult result;
  UniqueFunction<void(StoreResult<RetentionResult>)> done;
  PruneStepResult this_step;
};

StoreResult<std::vector<int64_t>> SelectIds(Database& db, const char* statement, int64_t first,
                                            int64_t limit) {
  auto st = db.Cached(statement);
  if (!st) return st.error();
  (*st)->BindInt64(1, first);
  (*st)->BindInt64(2, limit);
  std::vector<int64_t> ids;
  for (;;) {
    switch ((*st)->StepOnce()) {
      case Statement::Step::kRow:
        ids.push_back((*st)->ColumnInt64(0));
        continue;
      case Statement::Step::kDone:
        return ids;
      case Statement::Step::kError:
        return (*st)->Error("choosing runs to prune");
    }
  }
}

void PushStep(std::shared_ptr<PruneState> state) {
  WriteTask task;
  // Counted as a full batch: each step commits on its own, so the writer is held one step long.
  task.records = state->step_records;
  task.apply = [state](WriteSession& session) -> Status {
    auto step = session.PruneStep(state->policy);
    if (!step) return step.error();
    state->this_step = *step;
    return OkStatus();
  };
  task.on_done = [state](const Status& s) {
    if (!s) {
      state->done(s.error());
      return;
    }
    ++state->result.steps;
    state->result.runs_deleted += state->this_step.runs_deleted;
    state->result.history_rows_deleted += state->this_step.history_rows_deleted;
    if (state->this_step.runs_deleted >= Budget(state->policy)) {
      PushStep(state);  // more to do, behind whatever was queued meanwhile
    } else {
      state->done(state->result);
    }
  };
  Writer& writer = *state->writer;
  writer.PushUnbounded(std::move(task));
}

}  // namespace

namespace writes {

StoreResult<PruneStepResult> PruneStep(Database& db, const RetentionPolicy& policy) {
  PruneStepResult step;
  const int64_t budget = Budget(policy);
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
    auto extra = SelectIds(db, sql::kRunsBeyondCount, *policy.max_runs,
                           budget - static_cast<int64_t>(ids.size()));
    if (!extra) return extra.error();
    for (int64_t id : *extra) {
      if (auto s = writes::DeleteRunAndRows(db, id); !s) return s.error();
    }
    ids.insert(ids.end(), extra->begin(), extra->end());
  }
  step.runs_deleted = static_cast<int64_t>(ids.size());
  // The last step (fewer runs than its budget): the other histories that grow with time.
  if (policy.max_age && step.runs_deleted < budget) {
    const int64_t before = policy.now_ms - policy.max_age->count();
    for (const char* statement :
         {sql::kDeleteDeviceStatesBefore, sql::kDeletePaidRestoresBefore, sql::kDeleteAuditBefore,
          sql::kDeleteDeviceHealthBefore, sql::kDeleteDeviceEventsBefore,
          sql::kDeletePrunableAlertAttempts, sql::kDeletePrunableAlertDeliveries,
          sql::kDeletePrunableAlerts}) {
      auto st = db.Cached(statement);
      if (!st) return st.error();
      (*st)->BindInt64(1, before);
      if ((*st)->StepOnce() == Statement::Step::kError) {
        return (*st)->Error("pruning device history, the audit log and resolved alerts");
      }
      step.history_rows_deleted += db.Changes();
    }
  }
  return step;
}

}  // namespace writes

void StartRetention(Writer& writer, size_t step_records, const RetentionPolicy& policy,
                    UniqueFunction<void(StoreResult<RetentionResult>)> done) {
  auto state = std::make_shared<PruneState>();
  state->writer = &writer;
  state->step_records = step_records;
  state->policy = policy;
  state->done = std::move(done);
  PushStep(std::move(state));
}

}  // namespace droidlab::store
