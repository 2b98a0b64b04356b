// The PostgreSQL forms of the writes of `builds` and `build_files` (../build_writes.h): the same
// arguments with a pg::Connection in place of the Database, the same results and errors. Each
// runs inside the writer's open transaction and never begins or commits one. Internal to store/.
#pragma once

#include <cstdint>

#include "store/error.h"
#include "store/pg/connection.h"
#include "store/records.h"

namespace droidlab::store::pg::writes {

// The build's id: a new one with its files' rows, or that of the build already kept with the
// same sha256 (created false, its files left as they were).
StoreResult<AddedBuild> InsertBuild(Connection& connection, const NewBuild& build);
// The build and its files' rows; kNotFound for an unknown build.
Status DeleteBuild(Connection& connection, int64_t build_id);

}  // namespace droidlab::store::pg::writes
