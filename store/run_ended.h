// UpdateRunStatus's answer, on either backend, when its UPDATE changed no row: the run does not
// exist, or it has already ended (a run that has ended keeps its end: store/sql/runs.h).
// Internal to store/.
#pragma once

#include <optional>
#include <string>

#include "store/error.h"

namespace droidlab::store {

// `ended`: the run's stored status, none when there is no such run.
inline Status RunEndedOrMissing(const std::string& what, const std::optional<std::string>& ended) {
  if (!ended) return MakeStoreError(StoreErrorCode::kNotFound, what + ": no such run");
  return MakeStoreError(StoreErrorCode::kConstraint,
                        what + ": the run already ended " + *ended + ", and keeps that end");
}

}  // namespace droidlab::store
