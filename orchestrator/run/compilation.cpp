#include "orchestrator/run/compilation.h"

#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <utility>

#include "base/joined.h"
#include "orchestrator/run/device_commands.h"
#include "parsers/dumpsys_package.h"
#include "parsers/pm_compile.h"

namespace droidlab::orchestrator {

namespace asio = boost::asio;

namespace {

constexpr int64_t kFirstCmdCompileSdk = 24;  // Android 7: `cmd package compile`
constexpr int64_t kFirstReadableSdk = 26;    // Android 8: the dexopt dump parsers/ reads
constexpr int64_t kArtServiceSdk = 34;       // Android 14: ART Service answers the command

// The dex2oat filter that reaches `wanted` on `sdk` (art/libartbase/base/compiler_filter.cc of
// each version; Android 7 had no "verify" or "extract").
std::string_view FilterFor(Compilation wanted, std::optional<int64_t> sdk) {
  const bool android7 = sdk && *sdk < kFirstReadableSdk;
  switch (wanted) {
    case Compilation::kSpeedProfile:
      return "speed-profile";
    case Compilation::kSpeed:
      return "speed";
    case Compilation::kVerify:
      return android7 ? "interpret-only" : "verify";
    case Compilation::kNone:
      return android7 ? "verify-at-runtime" : "extract";
    case Compilation::kAsIs:
      break;
  }
  return "";
}

// What the dexopt dump may say once `wanted` is reached: "none" shows as extract (Android 8–13)
// or run-from-apk (no artifacts; 14+ after delete-dexopt).
bool Meets(Compilation wanted, std::string_view filter) {
  switch (wanted) {
    case Compilation::kSpeedProfile:
      return filter == "speed-profile";
    case Compilation::kSpeed:
      return filter == "speed";
    case Compilation::kVerify:
      return filter == "verify";
    case Compilation::kNone:
      return filter == "extract" || filter == "run-from-apk" || filter == "assume-verified";
    case Compilation::kAsIs:
      return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> CompileCommand(std::string_view package, Compilation wanted,
                                        std::optional<int64_t> sdk) {
  if (wanted == Compilation::kAsIs || (sdk && *sdk < kFirstCmdCompileSdk)) return {};
  if (wanted == Compilation::kNone && sdk && *sdk >= kArtServiceSdk) {
    return PackageDeleteDexopt(package);
  }
  return PackageCompile(package, FilterFor(wanted, sdk));
}

std::optional<std::string> CompilationMismatch(const CompilationRecord& record,
                                               std::optional<int64_t> sdk) {
  if (record.requested == Compilation::kAsIs || !record.reached) return std::nullopt;
  if (sdk && *sdk < kFirstReadableSdk) return std::nullopt;
  if (Meets(record.requested, *record.reached)) return std::nullopt;
  std::string why = std::string("asked for compilation \"") + CompilationName(record.requested) +
                    "\", the phone reached \"" + *record.reached + "\"";
  if (record.requested == Compilation::kSpeedProfile && *record.reached == "verify") {
    why +=
        ": ART compiles speed-profile from the app's profile and has none yet (a new install "
        "without a cloud or baseline profile); use the app for a while first, or ask for "
        "\"speed\" or \"as-is\"";
  }
  return why;
}

asio::awaitable<CommandResult<std::optional<std::string>>> ReadCompilerFilter(
    DeviceShell& shell, std::string package, std::chrono::milliseconds timeout) {
  auto dumpsys_package = shell.Run(DumpsysPackage(package), adb::DeadlineAfter(timeout));
  auto dump = co_await std::move(dumpsys_package);
  if (!dump) co_return dump.error();
  std::optional<std::string> filter;
  if (auto parsed = parsers::ParseDumpsysPackage(dump->out, package)) {
    if (const parsers::DexoptStatus* d = parsed->PrimaryDexopt()) {
      if (!d->compiler_filter.empty()) filter = d->compiler_filter;
    }
  }
  co_return filter;
}

asio::awaitable<CommandResult<CompilationRecord>> ForceCompilation(
    DeviceShell& shell, std::string package, CompilationRecord record, std::optional<int64_t> sdk,
    std::chrono::milliseconds compile_timeout, std::chrono::milliseconds command_timeout) {
  std::vector<std::string> argv = CompileCommand(package, record.requested, sdk);
  if (argv.empty() && record.requested != Compilation::kAsIs) {
    record.warnings.push_back(
        "compilation not forced: Android 6 and older compile apps when they are installed");
  }
  if (!argv.empty()) {
    record.command = Joined(argv, " ");
    auto compiling = shell.Run(std::move(argv), adb::DeadlineAfter(compile_timeout), false);
    auto compiled = co_await std::move(compiling);
    if (!compiled) co_return compiled.error();
    auto outcome = parsers::ParsePmCompileOutput(compiled->out + compiled->err);
    if (!outcome || !outcome->success) {
      std::string words;
      if (outcome) {
        words = outcome->reason;
      } else {
        words = compiled->out + compiled->err;
        if (words.empty()) words = "no output";
      }
      co_return CommandError{std::nullopt, "`" + record.command + "` failed: " + words};
    }
  }
  auto reading = ReadCompilerFilter(shell, package, command_timeout);
  auto reached = co_await std::move(reading);
  if (!reached) co_return reached.error();
  record.reached = *reached;
  if (!record.reached) {
    if (sdk && *sdk < kFirstReadableSdk) {
      record.warnings.push_back(
          "the compilation state reached is not known: Android 7's dexopt dump is not read");
    } else {
      record.warnings.push_back(
          "the compilation state reached is not known: `dumpsys package` shows no dexopt status "
          "for the app");
    }
  }
  co_return record;
}

}  // namespace droidlab::orchestrator
