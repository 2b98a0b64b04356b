#include "store/records.h"

#include "store/error.h"

namespace droidlab::store {

const char* RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kQueued:
      return "queued";
    case RunStatus::kRunning:
      return "running";
    case RunStatus::kSucceeded:
      return "succeeded";
    case RunStatus::kFailed:
      return "failed";
    case RunStatus::kCancelled:
      return "cancelled";
    case RunStatus::kInterrupted:
      return "interrupted";
  }
  return "failed";
}

std::optional<RunStatus> RunStatusFromName(std::string_view name) {
  for (RunStatus status : {RunStatus::kQueued, RunStatus::kRunning, RunStatus::kSucceeded,
                           RunStatus::kFailed, RunStatus::kCancelled, RunStatus::kInterrupted}) {
    if (name == RunStatusName(status)) return status;
  }
  return std::nullopt;
}

const char* StoreErrorCodeName(StoreErrorCode code) {
  switch (code) {
    case StoreErrorCode::kCannotOpen:
      return "cannot_open";
    case StoreErrorCode::kReadOnly:
      return "read_only";
    case StoreErrorCode::kLocked:
      return "locked";
    case StoreErrorCode::kNotADatabase:
      return "not_a_database";
    case StoreErrorCode::kCorrupt:
      return "corrupt";
    case StoreErrorCode::kTooNew:
      return "too_new";
    case StoreErrorCode::kMigrationFailed:
      return "migration_failed";
    case StoreErrorCode::kDiskFull:
      return "disk_full";
    case StoreErrorCode::kIo:
      return "io";
    case StoreErrorCode::kConstraint:
      return "constraint";
    case StoreErrorCode::kNotFound:
      return "not_found";
    case StoreErrorCode::kInvalidArgument:
      return "invalid_argument";
    case StoreErrorCode::kShuttingDown:
      return "shutting_down";
    case StoreErrorCode::kUnavailable:
      return "unavailable";
    case StoreErrorCode::kInternal:
      return "internal";
  }
  return "internal";
}

}  // namespace droidlab::store
