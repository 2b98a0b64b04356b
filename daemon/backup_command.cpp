#include "daemon/backup_command.h"

#include "store/pg/connection.h"
#include "store/store.h"

namespace droidlab::daemon {

const char* BackupCommandUsage() { return "droidlab backup [--db droidlab.db] --to FILE"; }

int RunBackupCommand(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
  std::string path = "droidlab.db";  // the same default as `droidlab serve --db`
  std::string destination;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--db" && i + 1 < args.size()) {
      path = args[++i];
    } else if (args[i] == "--to" && i + 1 < args.size()) {
      destination = args[++i];
    } else {
      std::fprintf(err, "usage: %s\n", BackupCommandUsage());
      return 2;
    }
  }
  if (destination.empty()) {
    std::fprintf(err, "droidlab backup: --to FILE is required; usage: %s\n", BackupCommandUsage());
    return 2;
  }
  if (store::pg::IsPostgresUrl(path)) {
    std::fprintf(err,
                 "droidlab backup: %s is a PostgreSQL database: back it up with the server's own "
                 "tool, e.g. pg_dump --format=custom --file=%s '%s'\n",
                 store::PrintableLocation(path).c_str(), destination.c_str(),
                 store::PrintableLocation(path).c_str());
    return 2;
  }
  // Read as it is, never opened as the daemon opens it: the live database is not migrated (an
  // older schema is backed up older, as the backup before an upgrade must be) nor written, and
  // a missing one is not created (backing up nothing is a mistake, not an empty copy).
  const store::BackupOptions steps;
  const store::Status copied = store::BackupDatabaseAt(path, destination, steps);
  if (!copied) {
    std::fprintf(err, "droidlab backup: %s\n", copied.error().message.c_str());
    return 1;
  }
  std::fprintf(out, "%s -> %s: backed up\n", path.c_str(), destination.c_str());
  return 0;
}

}  // namespace droidlab::daemon
