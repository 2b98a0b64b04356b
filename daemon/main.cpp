// droidlab: the lab daemon and its command-line tools. Subcommands dispatch from here; the
// logic of each lives in its own file (parse_command.cpp, …).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "daemon/backup_command.h"
#include "daemon/client_commands.h"
#include "daemon/client_options.h"
#include "daemon/migrate_command.h"
#include "daemon/parse_command.h"
#include "daemon/serve_command.h"
#include "daemon/serve_config.h"

#ifndef DROIDLAB_VERSION
#define DROIDLAB_VERSION "0.0.0"
#endif

namespace {

void PrintUsage(std::FILE* to) {
  std::fprintf(to,
               "droidlab %s: measures Android app performance on lab devices, over adb\n"
               "\n"
               "usage:\n"
               "  %s\n"
               "      read device output, print one JSON document (see README)\n"
               "  %s\n"
               "      create or upgrade the history database; refuse one that is not droidlab's\n"
               "  %s\n"
               "      copy the history database while the daemon runs (online backup)\n"
               "  %s\n"
               "      run the daemon: device tracking, runs, schedules, the REST API\n"
               "%s"
               "  droidlab --version\n"
               "  droidlab --help\n",
               DROIDLAB_VERSION, droidlab::daemon::ParseCommandUsage(),
               droidlab::daemon::MigrateCommandUsage(), droidlab::daemon::BackupCommandUsage(),
               droidlab::daemon::ServeCommandUsage(), droidlab::daemon::ClientCommandsUsage());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return 2;
  }
  const std::string command = argv[1];
  std::vector<std::string> rest(argv + 2, argv + argc);
  if (command == "--help" || command == "-h" || command == "help") {
    PrintUsage(stdout);
    return 0;
  }
  if (command == "--version") {
    std::printf("droidlab %s\n", DROIDLAB_VERSION);
    return 0;
  }
  if (command == "parse") return droidlab::daemon::RunParseCommand(rest, stdout, stderr);
  if (command == "backup") return droidlab::daemon::RunBackupCommand(rest, stdout, stderr);
  if (command == "migrate") return droidlab::daemon::RunMigrateCommand(rest, stdout, stderr);
  if (command == "serve") return droidlab::daemon::RunServeCommand(rest, stdout, stderr);
  if (droidlab::daemon::IsClientCommand(command)) {
    return droidlab::daemon::RunClientCommand(
        command, rest, droidlab::daemon::ClientEnvironmentFromProcess(), stdout, stderr);
  }
  std::fprintf(stderr, "droidlab: unknown command '%s'\n", command.c_str());
  PrintUsage(stderr);
  return 2;
}
