#include "daemon/backup_command.h"

#include "store/store.h"

namespace droidlab::daemon {

const char* BackupCommandUsage() { return "droidlab backup [--db droidlab.db] --to FILE"; }

int RunBackupCommand(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
  store::StoreOptions options;
  options.path = "droidlab.db";       // the same default as `droidlab serve --db`
  options.create_if_missing = false;  // backing up nothing is a mistake, not an empty copy
  options.reader_connections = 1;
  std::string destination;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--db" && i + 1 < args.size()) {
      options.path = args[++i];
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
  auto opened = store::Store::Open(options);
  if (!opened.ok()) {
    std::fprintf(err, "droidlab backup: %s\n", opened.error().message.c_str());
    return 1;
  }
  const store::Status copied = (*opened)->Backup(destination);
  opened->reset();
  if (!copied) {
    std::fprintf(err, "droidlab backup: %s\n", copied.error().message.c_str());
    return 1;
  }
  std::fprintf(out, "%s -> %s: backed up\n", options.path.c_str(), destination.c_str());
  return 0;
}

}  // namespace droidlab::daemon
