#include "tools/devsim/android/fault_injection.h"

#include <optional>
#include <utility>

#include "tools/devsim/android/command_handlers.h"
#include "tools/devsim/android/device_state.h"

namespace droidlab::devsim {
namespace {

using std::chrono::milliseconds;

// N lines of random bytes (no newline inside, so each stays one entry), as a corrupt log
// buffer or a driver writing binary to it would give.
void LogGarbage(DeviceState& device, long count) {
  for (long i = 0; i < count; ++i) {
    std::string bytes;
    const std::size_t size = 20 + device.rng() % 100;
    for (std::size_t b = 0; b < size; ++b) {
      char c = static_cast<char>(device.rng() % 256);
      if (c == '\n') c = '\x01';
      bytes.push_back(c);
    }
    LogEntry entry{device.Now(), 0, 0, 'I', "", std::move(bytes), LogBufferId::kMain};
    entry.raw = true;
    device.logcat.Add(std::move(entry));
  }
}

// The output cut after `keep` bytes, and the stream closed without an exit status.
CommandOutput Truncated(const CommandOutput& output, std::size_t keep) {
  CommandOutput cut;
  for (const auto& chunk : output.chunks) {
    if (keep == 0) break;
    OutputChunk part = chunk;
    if (part.data.size() > keep) part.data.resize(keep);
    keep -= part.data.size();
    cut.chunks.push_back(std::move(part));
  }
  cut.drop_stream = true;
  cut.exit_code = output.exit_code;
  return cut;
}

// The same bytes, 1 KiB at a time with a pause before each.
CommandOutput Slowed(const CommandOutput& output, milliseconds pause) {
  CommandOutput slow;
  slow.exit_code = output.exit_code;
  slow.follow_logcat = output.follow_logcat;
  slow.follow_filter = output.follow_filter;
  slow.follow_buffers = output.follow_buffers;
  slow.follow_format = output.follow_format;
  for (const auto& chunk : output.chunks) {
    for (std::size_t at = 0; at < chunk.data.size(); at += 1024) {
      slow.chunks.push_back({pause, chunk.to_stderr, chunk.data.substr(at, 1024)});
    }
  }
  return slow;
}

}  // namespace

CommandOutput RunDevsimFault(DeviceState& device, const Argv& argv) {
  static constexpr char kUsage[] =
      "usage: devsim-fault unplug MS | reboot [MS [BOOT_MS]] | unauthorized MS |\n"
      "                    hang PREFIX [N] | truncate PREFIX BYTES [N] |\n"
      "                    slow PREFIX MS_PER_KIB [N] | wedge transport|device|reboot|never |\n"
      "                    garbage N | list | clear\n";
  if (argv.size() < 2) return Error(kUsage, 2);
  const std::string& kind = argv[1];
  FaultState& faults = device.faults;
  CommandOutput output;
  auto number = [&](std::size_t at, long fallback) -> std::optional<long> {
    if (at >= argv.size()) return fallback;
    return ParseLong(argv[at]);
  };
  if (kind == "unplug") {
    const auto ms = number(2, 5000);
    if (!ms || *ms < 0) return Error(kUsage, 2);
    if (!faults.unplug_handler) {
      return Error("devsim-fault: this device has no transport to unplug\n", 1);
    }
    faults.unplug_handler(milliseconds(*ms));
    output.Out("unplugging for " + std::to_string(*ms) + " ms\n");
  } else if (kind == "reboot") {
    // Off the wire for MS (the phone restarts), then adbd is back but system_server needs
    // BOOT_MS more before its services answer (DeviceState::Reboot).
    const auto ms = number(2, 3000);
    const auto boot_ms = number(3, 3000);
    if (!ms || *ms < 0 || !boot_ms || *boot_ms < 0) return Error(kUsage, 2);
    device.Reboot(milliseconds(*ms + *boot_ms));
    if (faults.unplug_handler) faults.unplug_handler(milliseconds(*ms));
    output.Out("rebooting: offline for " + std::to_string(*ms) + " ms, services after " +
               std::to_string(*boot_ms) + " ms more\n");
  } else if (kind == "unauthorized") {
    const auto ms = number(2, -1);
    if (!ms || *ms < 0) return Error(kUsage, 2);
    if (!faults.refuse_auth_handler) {
      return Error("devsim-fault: this device has no transport to refuse\n", 1);
    }
    faults.refuse_auth_handler(milliseconds(*ms));
    output.Out("unauthorized for " + std::to_string(*ms) + " ms\n");
  } else if (kind == "hang" || kind == "truncate" || kind == "slow") {
    if (argv.size() < 3) return Error(kUsage, 2);
    ActiveFault fault;
    fault.kind = kind;
    fault.prefix = argv[2];
    std::size_t count_at = 3;
    if (kind != "hang") {
      const auto value = number(3, -1);
      if (!value || *value < 0) return Error(kUsage, 2);
      fault.value = *value;
      count_at = 4;
    }
    const auto count = number(count_at, 1);
    if (!count || *count < 1) return Error(kUsage, 2);
    fault.remaining = *count;
    faults.active.push_back(std::move(fault));
  } else if (kind == "wedge") {
    if (argv.size() != 3) return Error(kUsage, 2);
    const std::string& until = argv[2];
    if (until == "transport") {
      faults.wedge = Wedge::kTransport;
    } else if (until == "device") {
      faults.wedge = Wedge::kDevice;
    } else if (until == "reboot") {
      faults.wedge = Wedge::kReboot;
    } else if (until == "never") {
      faults.wedge = Wedge::kNever;
    } else {
      return Error(kUsage, 2);
    }
    output.Out("wedged until " + until + "\n");
  } else if (kind == "garbage") {
    const auto count = number(2, 1);
    if (!count || *count < 1) return Error(kUsage, 2);
    LogGarbage(device, *count);
  } else if (kind == "list") {
    for (const auto& f : faults.active) {
      output.Out(f.kind + " '" + f.prefix + "' " + std::to_string(f.value) + " x" +
                 std::to_string(f.remaining) + "\n");
    }
  } else if (kind == "clear") {
    faults.active.clear();
    faults.wedge = Wedge::kNone;
  } else {
    return Error(kUsage, 2);
  }
  return output;
}

void RunScheduledFaults(DeviceState& device, std::chrono::system_clock::time_point now) {
  const auto& scheduled = device.scenario.faults;
  while (device.faults.next_scheduled < scheduled.size()) {
    const ScheduledFault& fault = scheduled[device.faults.next_scheduled];
    const auto at = device.created + milliseconds(static_cast<long>(fault.at_s * 1000));
    if (at > now) break;
    ++device.faults.next_scheduled;
    Argv argv{"devsim-fault"};
    argv.insert(argv.end(), fault.args.begin(), fault.args.end());
    RunDevsimFault(device, argv);
  }
}

namespace {

std::string CommandLine(const Argv& argv) {
  std::string line;
  for (const auto& word : argv) line += (line.empty() ? "" : " ") + word;
  return line;
}

}  // namespace

void OnTransportConnected(FaultState& faults) {
  if (faults.wedge == Wedge::kTransport) faults.wedge = Wedge::kNone;
}

void OnAdbdReconnect(FaultState& faults) {
  if (faults.wedge == Wedge::kTransport || faults.wedge == Wedge::kDevice) {
    faults.wedge = Wedge::kNone;
  }
}

void OnReboot(FaultState& faults) {
  if (faults.wedge != Wedge::kNever) faults.wedge = Wedge::kNone;
}

bool TakeFault(FaultState& faults, std::string_view kind, const Argv& argv) {
  // A wedged phone takes no stream's bytes either.
  if (kind == "hang" && faults.wedge != Wedge::kNone) return true;
  const std::string line = CommandLine(argv);
  for (auto it = faults.active.begin(); it != faults.active.end(); ++it) {
    if (it->kind != kind || !line.starts_with(it->prefix)) continue;
    if (--it->remaining <= 0) faults.active.erase(it);
    return true;
  }
  return false;
}

void ApplyFaults(FaultState& faults, const Argv& argv, CommandOutput& output) {
  if (argv.empty() || argv[0] == "devsim-fault") return;
  if (faults.wedge != Wedge::kNone) {
    output = CommandOutput{};
    output.hang = true;
    return;
  }
  if (faults.active.empty()) return;
  const std::string line = CommandLine(argv);
  for (auto it = faults.active.begin(); it != faults.active.end(); ++it) {
    if (!line.starts_with(it->prefix)) continue;
    if (it->kind == "hang") {
      // Prints nothing and never ends, like a dumpsys stuck behind a system_server lock.
      output = CommandOutput{};
      output.hang = true;
    } else if (it->kind == "truncate") {
      output = Truncated(output, static_cast<std::size_t>(it->value));
    } else if (it->kind == "slow") {
      output = Slowed(output, milliseconds(it->value));
    }
    if (--it->remaining <= 0) faults.active.erase(it);
    return;
  }
}

}  // namespace droidlab::devsim
