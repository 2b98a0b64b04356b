// `monkey -p PKG [-s SEED] [--throttle MS] [--pct-… N] [-v…] COUNT` (development/cmds/monkey
// Monkey.java): its random source first switches to the package's launcher activity, then sends
// COUNT - 1 more events to it. devsim prints Monkey's summary lines, not the per-event lines -v
// adds, and draws no random events: each event is an input to the app (per_input frames).
#include "tools/devsim/android/command_handlers.h"
#include "tools/devsim/android/device_state.h"

namespace droidlab::devsim {
namespace {

constexpr char kUsage[] =
    "usage: monkey [-p ALLOWED_PACKAGE [-p ALLOWED_PACKAGE] ...]\n"
    "              [-c MAIN_CATEGORY [-c MAIN_CATEGORY] ...]\n"
    "              [-s SEED] [-v [-v] ...]\n"
    "              [--throttle MILLISEC] [--randomize-throttle]\n"
    "              COUNT\n";

// Monkey.processOptions failed: the error, the usage, and run() returns -1 (exit 255).
CommandOutput UsageError(const std::string& error) {
  return Error("** Error: " + error + "\n" + kUsage, 255);
}

}  // namespace

CommandOutput RunMonkey(DeviceState& device, const Argv& argv) {
  std::vector<std::string> packages;
  long seed = 0;
  long throttle = 0;
  int verbose = 0;
  std::optional<long> count;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    const bool has_value = i + 1 < argv.size();
    if (arg == "-v") {
      ++verbose;
    } else if (arg == "-p" && has_value) {
      packages.push_back(argv[++i]);
    } else if (arg == "-s" || arg == "--throttle" || arg.starts_with("--pct-")) {
      const std::optional<long> value = has_value ? ParseLong(argv[++i]) : std::nullopt;
      if (!value) return UsageError("java.lang.NumberFormatException");
      if (arg == "-s") seed = *value;
      if (arg == "--throttle") throttle = *value;
    } else if (arg == "-c" && has_value) {
      ++i;  // categories: accepted, not simulated
    } else if (arg.starts_with("--ignore-") || arg == "--kill-process-after-error" ||
               arg == "--monitor-native-crashes" || arg == "--randomize-throttle") {
      // accepted, not simulated
    } else if (arg.starts_with("-")) {
      return Error("** Error: Unknown option: " + arg + "\n" + kUsage, 255);
    } else {
      count = ParseLong(arg);
      if (!count || *count < 0) return UsageError("Count is not a number");
      break;
    }
  }
  if (!count) return UsageError("Count not specified");
  App* app = packages.empty() ? nullptr : device.FindApp(packages.front());
  CommandOutput output;
  if (verbose > 0) {
    // Without -s, Monkey seeds from the clock; devsim from its own generator.
    if (seed == 0) seed = static_cast<long>(device.rng() % 1'000'000'000'000L);
    output.Out(":Monkey: seed=" + std::to_string(seed) + " count=" + std::to_string(*count) + "\n");
    for (const std::string& package : packages) output.Out(":AllowPackage: " + package + "\n");
    output.Out(":IncludeCategory: android.intent.category.LAUNCHER\n");
    output.Out(":IncludeCategory: android.intent.category.MONKEY\n");
  }
  if (app == nullptr) {
    // getMainApps found no launcher activity in the allowed packages.
    output.Out("** No activities found to run, monkey aborted.\n");
    output.exit_code = 255;
    return output;
  }
  long events = 0;
  if (*count > 0) {
    // MonkeySourceRandom.generateActivity: the first event starts the app's launcher activity.
    RunAm(device, {"am", "start", "-n", app->spec.name + "/" + app->spec.activity});
    events = 1;
  }
  device.input_log.push_back("monkey " + app->spec.name + " " + std::to_string(*count));
  for (; events < *count; ++events) device.RenderInputFrames();
  output.Out("Events injected: " + std::to_string(events) + "\n");
  if (verbose > 0) {
    output.Out(":Dropped: keys=0 pointers=0 trackballs=0 flips=0 rotations=0\n");
  }
  // MonkeyNetworkMonitor.dump; a lab phone on USB has no network: all "not connected".
  const long elapsed_ms = events * (throttle + 1);
  if (device.options.realtime_launches && elapsed_ms > 0) {
    output.Wait(std::chrono::milliseconds(elapsed_ms));
  }
  output.Out("## Network stats: elapsed time=" + std::to_string(elapsed_ms) +
             "ms (0ms mobile, 0ms wifi, " + std::to_string(elapsed_ms) + "ms not connected)\n");
  if (verbose > 0) output.Out("// Monkey finished\n");
  return output;
}

}  // namespace droidlab::devsim
