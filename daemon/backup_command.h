// `droidlab backup [--db FILE] --to FILE`: an online copy of the history database, safe while
// `droidlab serve` writes to it (the store's Backup: SQLite's backup API from one read snapshot,
// written to FILE.partial and renamed when complete, so FILE is either what it was before or a
// complete, consistent database).
//
// The source is opened the way `droidlab serve` opens it: a file that is not droidlab's, is
// corrupt, locked or from a newer droidlab is refused, and a file from an older droidlab is
// migrated before it is copied. To keep a copy of a database exactly as an older droidlab left
// it (before an upgrade), run the older binary's backup, or `sqlite3 FILE ".backup COPY"`.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace droidlab::daemon {

// `args` are the words after "backup". Returns 0 once the copy is complete (one line on `out`:
// "SOURCE -> DEST: backed up"), 1 when the database is refused or the copy fails (the reason on
// `err`, one line; DEST is left as it was), 2 on a usage error.
int RunBackupCommand(const std::vector<std::string>& args, std::FILE* out, std::FILE* err);

const char* BackupCommandUsage();

}  // namespace droidlab::daemon
