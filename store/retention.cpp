#include "store/retention.h"

#include <memory>
#include <utility>
#include <vector>

#include "store/run_writes.h"
#include "store/sql/runs.h"
#include "store/sqlite.h"
#include "store/writer.h"

namespace droidlab::store {

namespace {

struct PruneState {
  Writer* writer = nullptr;
  size_t step_records = 0;
  RetentionPolicy policy;
  RetentionResult result;
  UniqueFunction<void(StoreResult<RetentionResult>)> done;
  int64_t deleted_this_step = 0;

  int64_t budget() const { return policy.runs_per_step < 1 ? 1 : policy.runs_per_step; }
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

Status PruneOneStep(Database& db, PruneState& state) {
  state.deleted_this_step = 0;
  const RetentionPolicy& policy = state.policy;
  const int64_t budget = state.budget();
  std::vector<int64_t> ids;
  if (policy.max_age) {
    auto old = SelectIds(db, sql::kRunsOlderThan, policy.now_ms - policy.max_age->count(), budget);
    if (!old) return old.error();
    ids = std::move(old).value();
  }
  for (int64_t id : ids) {
    if (auto s = writes::DeleteRunAndRows(db, id); !s) return s;
  }
  if (policy.max_runs && static_cast<int64_t>(ids.size()) < budget) {
    auto extra = SelectIds(db, sql::kRunsBeyondCount, *policy.max_runs,
                           budget - static_cast<int64_t>(ids.size()));
    if (!extra) return extra.error();
    for (int64_t id : *extra) {
      if (auto s = writes::DeleteRunAndRows(db, id); !s) return s;
    }
    ids.insert(ids.end(), extra->begin(), extra->end());
  }
  state.deleted_this_step = static_cast<int64_t>(ids.size());
  // The last step (fewer runs than its budget): the other histories that grow with time.
  if (policy.max_age && state.deleted_this_step < budget) {
    const int64_t before = policy.now_ms - policy.max_age->count();
    for (const char* statement : {sql::kDeleteDeviceStatesBefore, sql::kDeletePaidRestoresBefore}) {
      auto st = db.Cached(statement);
      if (!st) return st.error();
      (*st)->BindInt64(1, before);
      if ((*st)->StepOnce() == Statement::Step::kError) {
        return (*st)->Error("pruning device history");
      }
      state.result.history_rows_deleted += db.Changes();
    }
  }
  return OkStatus();
}

void PushStep(std::shared_ptr<PruneState> state) {
  WriteTask task;
  // Counted as a full batch: each step commits on its own, so the writer is held one step long.
  task.records = state->step_records;
  task.apply = [state](Database& db) { return PruneOneStep(db, *state); };
  task.on_done = [state](const Status& s) {
    if (!s) {
      state->done(s.error());
      return;
    }
    ++state->result.steps;
    state->result.runs_deleted += state->deleted_this_step;
    if (state->deleted_this_step >= state->budget()) {
      PushStep(state);  // more to do, behind whatever was queued meanwhile
    } else {
      state->done(state->result);
    }
  };
  Writer& writer = *state->writer;
  writer.PushUnbounded(std::move(task));
}

}  // namespace

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
