// Online backup: SQLite's backup API in steps, from one read snapshot of the database while the
// writer goes on. Internal to store/ (Store::Backup and BackupAsync).
#pragma once

#include <string>

#include "store/error.h"
#include "store/store.h"

namespace droidlab::store {

// Copies the database at `source_path` to `destination`, through destination + ".partial"
// renamed when complete. Blocking: runs on the caller's thread.
Status BackupDatabase(const std::string& source_path, int busy_timeout_ms,
                      const std::string& destination, const BackupOptions& options);

}  // namespace droidlab::store
