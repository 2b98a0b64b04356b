// `droidlab serve`: the daemon. Opens the store (migrating it), connects to the adb server
// (starting one when none answers locally), follows the devices, runs the queue and the
// schedules, serves the REST API, and stops cleanly on SIGINT/SIGTERM: it stops accepting,
// answers what is in flight, cancels the runs in progress (each restores its device) and commits
// every queued write. Settings: serve_config.h.
//
// Exit codes: 0 after a signal; 1 when the store refuses its file or the address cannot be
// listened on; 2 for a usage error.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace droidlab::daemon {

int RunServeCommand(const std::vector<std::string>& args, std::FILE* out, std::FILE* err);

}  // namespace droidlab::daemon
