// `droidlab migrate [--db FILE]`: opens the history database the way `droidlab serve` will at
// start-up — creating it if missing, refusing a file that is not droidlab's, is corrupt, locked,
// unwritable or from a newer droidlab (and leaving it untouched), and running pending migrations
// each in its own transaction — then reports the schema version. For upgrades and for checking
// a database before a daemon uses it.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace droidlab::daemon {

// `args` are the words after "migrate". Returns 0 on success, 1 when the database is refused
// (the store's reason on `err`, one line), 2 on a usage error.
int RunMigrateCommand(const std::vector<std::string>& args, std::FILE* out, std::FILE* err);

const char* MigrateCommandUsage();

}  // namespace droidlab::daemon
