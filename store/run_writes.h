// The writes of a run and its measurements, each applied on the writer's connection inside the
// writer's open transaction (writer.h): `runs`, `launches`, `looper_stats`, `proc_samples`.
// Internal to store/: Store wraps each in a write task.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "store/error.h"
#include "store/records.h"

namespace droidlab::store {

class Database;

namespace writes {

// The new run's id; its status is "queued".
StoreResult<int64_t> InsertRun(Database& db, const NewRun& run);
// kNotFound for an unknown run.
Status UpdateRunStatus(Database& db, const RunStatusUpdate& update);
// How many runs were `running` (now `interrupted`, `reason` their error).
StoreResult<int64_t> InterruptRunningRuns(Database& db, std::string_view reason, int64_t now_ms);

Status InsertLaunches(Database& db, const std::vector<Launch>& launches);
Status InsertLooperStats(Database& db, const std::vector<LooperStatsRow>& rows);
Status InsertProcSamples(Database& db, const std::vector<ProcSample>& samples);
Status InsertIterationFrames(Database& db, const std::vector<IterationFrames>& frames);
Status InsertIterationFaults(Database& db, const std::vector<IterationFault>& faults);
Status InsertIterationMemory(Database& db, const std::vector<IterationMemory>& memory);
// Faults of an iteration already stored (each with that iteration and its next seq), and its
// launch made invalid with `invalid_reason`: both or neither.
Status InsertLateIterationFaults(Database& db, int64_t run_id, int64_t iteration,
                                 const std::vector<IterationFault>& faults,
                                 const std::string& invalid_reason);

// A run's summaries (schema 0009), each replacing the run's row of that metric; filed under
// the run's package, model, mode and created_at as `runs` has them. A summary of a run that is
// not (any more) stored inserts nothing.
Status InsertRunSummaries(Database& db, const std::vector<RunSummary>& summaries);

// The run's launches, looper rows, samples and summaries, then the run (retention).
Status DeleteRunAndRows(Database& db, int64_t run_id);

}  // namespace writes
}  // namespace droidlab::store
