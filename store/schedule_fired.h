// The error of a schedule's firing that is recorded already (MarkScheduleFired, both backends):
// another daemon of the lab fired it first. Internal to store/.
#pragma once

#include <cstdint>
#include <string>

#include "store/error.h"

namespace droidlab::store {

inline StoreError FiredAlready(const std::string& what, int64_t recorded_at) {
  return MakeStoreError(StoreErrorCode::kConstraint,
                        what + ": the firing is recorded already (last fired at " +
                            std::to_string(recorded_at) + " ms): another daemon fired it");
}

}  // namespace droidlab::store
