// One step of retention on PostgreSQL, as ../retention.cpp's PruneOneStep takes it on SQLite:
// at most max(1, runs_per_step) finished runs (never queued or running) created before
// now - max_age, then beyond the newest max_runs, each deleted with its rows
// (writes::DeleteRunAndRows); and on the last step (fewer runs than that), with max_age, the
// device state changes older than it (each device keeps its last), the paid restores, the audit
// entries, and the device health samples and events.
// Runs inside its caller's transaction (the writer's task); the caller takes steps until one
// deletes fewer runs than its budget, committing between them. Internal to store/.
#pragma once

#include <cstdint>

#include "store/error.h"
#include "store/pg/connection.h"
#include "store/records.h"
#include "store/write_session.h"

namespace droidlab::store::pg {

StoreResult<PruneStepResult> PruneStep(Connection& db, const RetentionPolicy& policy);

}  // namespace droidlab::store::pg
