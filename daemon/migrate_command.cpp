#include "daemon/migrate_command.h"

#include "schema/migrations.h"
#include "store/store.h"

namespace droidlab::daemon {

const char* MigrateCommandUsage() { return "droidlab migrate [--db droidlab.db | --db postgresql://…]"; }

int RunMigrateCommand(const std::vector<std::string>& args, std::FILE* out, std::FILE* err) {
  store::StoreOptions options;
  options.path = "droidlab.db";  // the same default as `droidlab serve --db`
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--db" && i + 1 < args.size()) {
      options.path = args[++i];
    } else {
      std::fprintf(err, "usage: %s\n", MigrateCommandUsage());
      return 2;
    }
  }
  options.reader_connections = 1;
  auto opened = store::Store::Open(options);
  if (!opened.ok()) {
    std::fprintf(err, "droidlab migrate: %s\n", opened.error().message.c_str());
    return 1;
  }
  opened->reset();  // closes cleanly: the writer commits nothing, the file stays consistent
  std::fprintf(out, "%s: schema version %d (current)\n",
               store::PrintableLocation(options.path).c_str(),
               schema::CurrentVersion());
  return 0;
}

}  // namespace droidlab::daemon
