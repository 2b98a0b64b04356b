// The PostgreSQL forms of the writes of a run's per-iteration measurements and its summaries
// (../run_writes.h: InsertIterationFrames, InsertIterationFaults, InsertIterationMemory,
// InsertLateIterationFaults, InsertRunSummaries): the same arguments with a pg::Connection in
// place of the Database, the same results and errors. Each runs inside the writer's open
// transaction (a savepoint per task) and never begins or commits one. Internal to store/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/error.h"
#include "store/pg/connection.h"
#include "store/records.h"

namespace droidlab::store::pg::writes {

// An iteration stored again replaces its row (SQLite's INSERT OR REPLACE): the last one wins,
// within a call too.
Status InsertIterationFrames(Connection& connection, const std::vector<IterationFrames>& frames);
Status InsertIterationFaults(Connection& connection, const std::vector<IterationFault>& faults);
Status InsertIterationMemory(Connection& connection, const std::vector<IterationMemory>& memory);
// Faults of an iteration already stored (each with that iteration and its next seq), and its
// launch made invalid with `invalid_reason` (kept when it has one already): both or neither
// within the caller's transaction. kInvalidArgument, nothing stored, when a fault names another
// run or iteration.
Status InsertLateIterationFaults(Connection& connection, int64_t run_id, int64_t iteration,
                                 const std::vector<IterationFault>& faults,
                                 const std::string& invalid_reason);

// A run's summaries (schema 0009), each replacing the run's row of that metric; filed under
// the run's package, model ('' when unknown), mode and created_at as `runs` has them. A summary
// of a run that is not (any more) stored inserts nothing.
Status InsertRunSummaries(Connection& connection, const std::vector<RunSummary>& summaries);

}  // namespace droidlab::store::pg::writes
