// The PostgreSQL form of ../run_writes.h's writes of a run and its high-rate rows: `runs`,
// `launches`, `looper_stats`, `proc_samples`, and the deletion of a run with its rows. Same
// arguments (a pg::Connection for the Database), results and error codes; each runs inside a
// transaction its caller opened (the writer's, a savepoint per task) and never begins or ends
// one. Rows come in through COPY; one-row writes through Query. Internal to store/.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "store/error.h"
#include "store/pg/connection.h"
#include "store/records.h"

namespace droidlab::store::pg::writes {

// The new run's id (the identity's); its status is "queued". spec_json must be JSON (the column
// is JSONB): anything else is kInvalidArgument, where SQLite keeps any text.
StoreResult<int64_t> InsertRun(Connection& db, const NewRun& run);
// kNotFound for an unknown run.
Status UpdateRunStatus(Connection& db, const RunStatusUpdate& update);
// How many runs were `running` (now `interrupted`, `reason` their error).
StoreResult<int64_t> InterruptRunningRuns(Connection& db, std::string_view reason, int64_t now_ms);

// One COPY each. A launch stored twice is kConstraint (SQLSTATE 23505), and then none of the
// call's rows is stored — the writer rolls the task's savepoint back either way.
Status InsertLaunches(Connection& db, const std::vector<Launch>& launches);
Status InsertLooperStats(Connection& db, const std::vector<LooperStatsRow>& rows);
Status InsertProcSamples(Connection& db, const std::vector<ProcSample>& samples);

// The run's launches, looper rows, samples, summaries, frames, faults and memory, then the run
// (retention). OK for a run not stored, as SQLite's.
Status DeleteRunAndRows(Connection& db, int64_t run_id);

}  // namespace droidlab::store::pg::writes
