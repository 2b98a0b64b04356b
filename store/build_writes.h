// The writes of `builds`, applied on the writer's connection inside its open transaction
// (writer.h). Internal to store/: Store wraps each in a durable write task.
#pragma once

#include <cstdint>

#include "store/error.h"
#include "store/records.h"

namespace droidlab::store {

class Database;

namespace writes {

// The build's id: a new one, or that of the build already kept with the same sha256.
StoreResult<AddedBuild> InsertBuild(Database& db, const NewBuild& build);
Status DeleteBuild(Database& db, int64_t build_id);  // kNotFound for an unknown build

}  // namespace writes
}  // namespace droidlab::store
