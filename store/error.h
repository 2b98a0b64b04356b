// StoreResult<T>: a value or a StoreError a person can act on. Nothing in store/ throws across
// its boundary (g++ 12 has no std::expected).
#pragma once

#include <string>
#include <utility>

#include "base/result.h"

namespace droidlab::store {

enum class StoreErrorCode {
  kCannotOpen,       // the file or its folder cannot be opened or created (path, permissions)
  kReadOnly,         // the file (or its folder, for the -wal/-shm files) is not writable
  kLocked,           // another process holds the database's write lock
  kNotADatabase,     // not SQLite, or SQLite but not droidlab's: refused, left untouched
  kCorrupt,          // a droidlab database whose pages are damaged
  kTooNew,           // written by a newer droidlab: the message names both schema versions
  kMigrationFailed,  // a migration did not apply; the database stays at the version before it
  kDiskFull,         // SQLITE_FULL: disk (or max_page_count) full; the batch was not committed
  kIo,               // other I/O errors
  kConstraint,       // a record broke a key or CHECK (e.g. a launch stored twice)
  kNotFound,         // no such run / device / schedule
  kInvalidArgument,  // a bad cursor, an empty path, ...
  kShuttingDown,     // the store is closing: the request was not taken
  kUnavailable,      // PostgreSQL: the server cannot be reached, or the connection was lost
                     // (what was not committed was not stored: retry with back-off)
  kInternal,         // anything else SQLite reports; the message has its text
};

// "disk_full", "locked", ...: stable names for logs and for the API's error codes.
const char* StoreErrorCodeName(StoreErrorCode code);

struct StoreError {
  StoreErrorCode code;
  std::string message;  // one line: what, on which file or record, and what to do
};

inline StoreError MakeStoreError(StoreErrorCode code, std::string message) {
  return StoreError{code, std::move(message)};
}

template <class T>
using StoreResult = BasicResult<T, StoreError>;

// For calls with nothing to return.
struct Ok {};
using Status = StoreResult<Ok>;
inline Status OkStatus() { return Ok{}; }

}  // namespace droidlab::store
