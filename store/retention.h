// Retention: deleting finished runs by age and by count, in small steps on the writer. Internal
// to store/ (Store::Prune and PruneAsync).
//
// Each step is one write task that deletes at most policy.runs_per_step runs with their rows
// and commits on its own (it counts as a full batch), then queues the next step behind whatever
// was queued meanwhile: the writer is never held longer than one step.
#pragma once

#include <cstddef>

#include "store/error.h"
#include "store/store.h"
#include "store/unique_function.h"

namespace droidlab::store {

class Database;
class Writer;
struct PruneStepResult;

namespace writes {
// One step on SQLite (SqliteWriteSession::PruneStep): at most policy.runs_per_step runs.
StoreResult<PruneStepResult> PruneStep(Database& db, const RetentionPolicy& policy);
}  // namespace writes

// `done` runs on the writer thread after the last step, or with the error that ended a step.
void StartRetention(Writer& writer, size_t step_records, const RetentionPolicy& policy,
                    UniqueFunction<void(StoreResult<RetentionResult>)> done);

}  // namespace droidlab::store
