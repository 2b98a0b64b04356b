// PackageManager as the shell sees it: `pm path|list packages|resolve-activity` (also
// `cmd package`) and `dumpsys package PKG`.
#include <cstdio>
#include <ctime>
#include <functional>

#include "tools/devsim/android/command_handlers.h"
#include "tools/devsim/android/compilation.h"
#include "tools/devsim/android/device_state.h"

namespace droidlab::devsim {
namespace {

// `args` follow "resolve-activity". Intent.parseCommandArgs: options with values, then a bare
// word is the package (no ':' or '/'), a component (with '/'), or data (with ':').
CommandOutput RunResolveActivity(DeviceState& device, const Argv& args) {
  std::string package;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--brief" || arg == "--components") continue;
    if ((arg == "-a" || arg == "-c" || arg == "-d" || arg == "-t" || arg == "--user" ||
         arg == "-f") &&
        i + 1 < args.size()) {
      ++i;
      continue;
    }
    if (arg == "-n" && i + 1 < args.size()) {
      ++i;
      package = args[i].substr(0, args[i].find('/'));
      continue;
    }
    if (!arg.starts_with("-")) package = arg.substr(0, arg.find('/'));
  }
  CommandOutput output;
  const App* app = device.FindApp(package);
  if (app == nullptr) {
    output.Out("No activity found\n");
    return output;
  }
  Component component;
  ParseComponent(app->spec.name + "/" + app->spec.activity, component);
  output.Out(FormatResolveActivityBrief(component.FlattenToShortString()));
  return output;
}

}  // namespace

CommandOutput RunPm(DeviceState& device, const Argv& argv) {
  if (argv.size() >= 3 && argv[1] == "path") {
    const App* app = device.FindApp(argv[2]);
    CommandOutput output;
    if (app == nullptr) {
      output.exit_code = 1;
      return output;
    }
    output.Out("package:" + app->apk_path + "\n");
    return output;
  }
  if (argv.size() >= 2 && argv[1] == "compile" && device.scenario.device.sdk >= 24) {
    return RunPackageCompile(device, Argv(argv.begin() + 2, argv.end()));
  }
  if (argv.size() >= 2 && argv[1] == "delete-dexopt") {
    return RunPackageDeleteDexopt(device, Argv(argv.begin() + 2, argv.end()));
  }
  if (argv.size() >= 2 && (argv[1] == "install-create" || argv[1] == "install-write" ||
                           argv[1] == "install-commit" || argv[1] == "install-abandon")) {
    return RunInstallSession(device, Argv(argv.begin() + 1, argv.end()), nullptr);
  }
  if (argv.size() >= 3 && argv[1] == "install") {
    return RunPmInstall(device, Argv(argv.begin() + 2, argv.end()));
  }
  if (argv.size() >= 2 && argv[1] == "resolve-activity") {
    return RunResolveActivity(device, Argv(argv.begin() + 2, argv.end()));
  }
  if (argv.size() >= 3 && argv[1] == "list" && argv[2] == "packages") {
    CommandOutput output;
    for (const auto& [name, app] : device.apps) output.Out("package:" + name + "\n");
    return output;
  }
  return Error("Unknown command: " + (argv.size() > 1 ? argv[1] : std::string()) + "\n", 255);
}

CommandOutput DumpPackage(DeviceState& device, const std::string& package) {
  CommandOutput output;
  App* app = device.FindApp(package);
  if (app != nullptr) RunBackgroundDexoptIfDue(device, *app);
  if (app == nullptr) {
    // dumpPackagesLPr prints nothing for a package it does not know; dumpsys exits 0.
    return output;
  }
  PackageDumpInfo info;
  info.spec = &app->spec;
  info.code_path = app->apk_path.substr(0, app->apk_path.rfind('/'));
  char hash[16];
  std::snprintf(hash, sizeof hash, "%07x",
                static_cast<unsigned>(std::hash<std::string>{}(package)&0xfffffff));
  info.hash = hash;
  info.abi = device.scenario.device.abi;
  info.splits = app->splits;
  const auto installed = device.created - std::chrono::hours(24 * 3);
  const std::time_t seconds = std::chrono::system_clock::to_time_t(installed);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
  info.first_install = stamp;
  output.Out(FormatPackageDump(device.scenario.device.sdk, info));
  return output;
}

}  // namespace droidlab::devsim
