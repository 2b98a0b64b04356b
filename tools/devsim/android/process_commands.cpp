// The process table as pidof, toybox ps and /proc (uptime, PID/stat) show it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "tools/devsim/android/command_handlers.h"
#include "tools/devsim/android/device_state.h"

namespace droidlab::devsim {
namespace {

// AndroidRuntime's SetThreadName: a long dotted name keeps its last 15 characters.
std::string CommForProcessName(const std::string& name) {
  const bool dotted = name.find('.') != std::string::npos;
  const bool has_at = name.find('@') != std::string::npos;
  if (name.size() < 15 || has_at || !dotted) return name.substr(0, 15);
  return name.substr(name.size() - 15);
}

std::string ProcStat(const DeviceState& device, const Process& process) {
  const long now_ticks = std::lround(device.UptimeSeconds() * kTicksPerSecond);
  const long alive = std::max(0L, now_ticks - process.start_ticks);
  // CPU time grows with the time alive: an app uses ~4% of a core in user space, 1% in kernel.
  const long utime = 150 + alive / 25;
  const long stime = 40 + alive / 100;
  const long rss_pages = 38000 + (alive / kTicksPerSecond) % 4000;
  const std::string comm = CommForProcessName(process.name);
  char line[512];
  std::snprintf(line, sizeof line,
                "%d (%s) S %d %d 0 0 -1 1077952832 %ld 0 %ld 0 %ld %ld 0 0 10 -10 %d 0 %ld "
                "%ld %ld 18446744073709551615 1 1 0 0 0 0 4612 1 1073775864 0 0 0 17 %d 0 0 0 0 0 "
                "0 0 0 0 0 0 0 0\n",
                process.pid, comm.c_str(), process.ppid, process.pid, 20000 + alive * 3,
                120 + alive / 500, utime, stime, process.pid == 1 ? 1 : 31, process.start_ticks,
                15032385536L + alive * 4096, rss_pages, process.pid % 8);
  return line;
}

// toybox ps: USER %-12s PID %5s PPID %5s VSZ %7s RSS %6s WCHAN %-10s ADDR %10s S NAME, a
// value wider than its column borrows from the next column's padding.
std::string PsRow(const std::vector<std::string>& cells, char state, const std::string& name) {
  static const int kWidths[] = {-12, 5, 5, 7, 6, -10, 10};
  std::string line;
  int owed = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const int width = std::abs(kWidths[i]);
    const int room = width - static_cast<int>(cells[i].size());
    const int pad = std::max(0, room - owed);
    owed = std::max(0, owed - room);
    if (i > 0) line += ' ';
    const std::string padding(static_cast<std::size_t>(pad), ' ');
    line += kWidths[i] < 0 ? cells[i] + padding : padding + cells[i];
  }
  line += ' ';
  line += state;
  line += ' ' + name + "\n";
  return line;
}

}  // namespace

// toybox pidof (toys/posix/pidof.c): -s, "single shot", prints one pid only.
CommandOutput RunPidof(DeviceState& device, const Argv& argv) {
  std::string pids;
  bool single = false;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == "-s") {
      single = true;
      continue;
    }
    for (const auto& [pid, process] : device.processes) {
      if (single && !pids.empty()) break;
      const std::string& shown = process.cmdline.empty() ? process.name : process.cmdline;
      if (shown == argv[i]) pids += (pids.empty() ? "" : " ") + std::to_string(pid);
    }
  }
  CommandOutput output;
  if (pids.empty()) {
    output.exit_code = 1;
  } else {
    output.Out(pids + "\n");
  }
  return output;
}

// -A, -e: every process; devsim's table is small enough to always show all, so the arguments
// are not read.
CommandOutput RunPs(DeviceState& device, const Argv&) {
  const int sdk = device.scenario.device.sdk;
  CommandOutput output;
  output.Out(PsRow({"USER", "PID", "PPID", "VSZ", "RSS", "WCHAN", "ADDR"}, 'S', "NAME"));
  const long now_ticks = std::lround(device.UptimeSeconds() * kTicksPerSecond);
  for (const auto& [pid, process] : device.processes) {
    std::string user = process.uid == 0       ? "root"
                       : process.uid == 1000  ? "system"
                       : process.uid >= 10000 ? "u" + std::to_string(process.uid / 100000) + "_a" +
                                                    std::to_string(process.uid % 100000 - 10000)
                                              : std::to_string(process.uid);
    const long alive = std::max(0L, now_ticks - process.start_ticks);
    const long vsz = process.pid == 1 ? 10782796 / 1000 * 1000 : 14680064 + alive % 4096 * 4;
    const long rss = process.pid == 1 ? 9448 : (38000 + (alive / kTicksPerSecond) % 4000) * 4;
    const std::string wchan = sdk >= 29 ? "do_epoll_wait" : "SyS_epoll_wait";
    output.Out(PsRow({user, std::to_string(pid), std::to_string(process.ppid), std::to_string(vsz),
                      std::to_string(rss), wchan, "0"},
                     'S', process.cmdline.empty() ? process.name : process.cmdline));
  }
  return output;
}

CommandOutput RunDevsimStats(DeviceState& device, const Argv&) {
  CommandOutput output;
  output.Out("processes_started " + std::to_string(device.processes_started) + "\n");
  output.Out("shell_services " + std::to_string(device.shell_services) + "\n");
  return output;
}

// cat knows only the /proc files host tools read: /proc/uptime and /proc/PID/stat.
CommandOutput RunCat(DeviceState& device, const Argv& argv) {
  CommandOutput output;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& path = argv[i];
    if (path == "/proc/uptime") {
      const double uptime = device.UptimeSeconds();
      char line[64];
      // The second field is idle time summed over all CPUs, so it runs ahead of the first.
      std::snprintf(line, sizeof line, "%.2f %.2f\n", uptime, uptime * 6.3);
      output.Out(line);
      continue;
    }
    if (path.starts_with("/proc/") && path.ends_with("/stat")) {
      const std::string middle = path.substr(6, path.size() - 11);
      const auto pid = ParseLong(middle);
      if (pid) {
        const auto it = device.processes.find(static_cast<int>(*pid));
        if (it != device.processes.end()) {
          output.Out(ProcStat(device, it->second));
          continue;
        }
      }
    }
    output.Err("cat: " + path + ": No such file or directory\n");
    output.exit_code = 1;
  }
  return output;
}

}  // namespace droidlab::devsim
