// Installing an APK the host sent: the streamed install (`cmd package install -S N` over exec:
// or abb_exec:, its bytes on the stream), `pm install [-r] [-d] PATH` of a pushed file, and the
// toybox commands adb's push-then-install uses around it (`rm -f PATH`, and `sha1sum PATH`).
//
// What the package manager prints (services/core/java/com/android/server/pm/):
// - Android 7+ (PackageManagerShellCommand.doCommitSession): "Success", or on stdout
//   "Failure [" + PackageManager.installStatusToString(status, message) + "]", that is
//   "Failure [CODE: message]".
// - Android 6 and older (cmds/pm/src/com/android/commands/pm/Pm.java runInstall): "\tpkg: PATH"
//   on stderr first, then "Success" on stdout, or "Failure [CODE]" on stderr (the code alone:
//   installFailureToString).
// The messages: INSTALL_PARSE_FAILED_NOT_APK "Failed to parse " + the staged APK's path
// (PackageParser / ApkLiteParseUtils: the session's copy /data/app/vmdlN.tmp/base.apk);
// INSTALL_FAILED_VERSION_DOWNGRADE "Update version code N is older than current M"
// (PackageManagerServiceUtils.checkDowngrade; without -d). Every other check the package manager
// makes (signatures, SDK levels, space) is not simulated: an APK that parses is installed, its
// signers (orchestrator/builds/apk_signature.h) shown by dumpsys package; an unsigned one too,
// which a phone would refuse (INSTALL_PARSE_FAILED_NO_CERTIFICATES) — the tests' fixtures are.
//
// Install sessions (`adb install-multiple`: a base APK, its splits, a .dm), in
// PackageManagerShellCommand's words (Android 7+; Pm.java's on 5–6, the same):
// - install-create [options] -> "Success: created install session [N]" (runInstallCreate);
// - install-write -S SIZE N NAME [PATH|-] -> "Success: streamed SIZE bytes" (doWriteSplit);
// - install-commit N -> "Success" or "Failure [CODE: message]" (doCommitSession);
// - install-abandon N -> "Success" (doAbandonSession);
// - a session id the caller does not own: PackageInstallerService.openSessionInternal throws
//   SecurityException("Caller has no access to session N"), which the shell command prints as
//   "Exception occurred while executing 'VERB':" (Android 11+, BasicShellCommandHandler) or
//   "Exception occurred while executing:" (7–10, ShellCommand) and the exception, exit 255.
// What the commit checks (PackageInstallerSession.validateApkInstallLocked, Android 9–14): the
// files not ending in .dm are parsed as APKs (one that does not parse:
// INSTALL_PARSE_FAILED_NOT_APK "Failed to parse PATH"); the first defines the package and
// versionCode; each split name once (INSTALL_FAILED_INVALID_APK "Split NAME was defined multiple
// times", the base's name being "null"); every APK of that package and versionCode
// (assertApkConsistentLocked: "PATH package P inconsistent with Q", "PATH version code V
// inconsistent with W", PATH the staged file); a base among them ("Full install must include a
// base package"); no APK at all: "No packages staged". A .dm goes with the APK of its base
// name (DexMetadataHelper.findDexMetadataForFile: base.dm beside base.apk): one beside the base
// APK gives the app a profile (compilation.h has_profile). Below Android 9 (SDK 28) the package
// manager knows no .dm (DexMetadataHelper came with P): every file is parsed as an APK, so a .dm
// fails the commit as one that does not parse.
#include <algorithm>
#include <string>

#include "tools/devsim/android/command_handlers.h"
#include "tools/devsim/android/compilation.h"
#include "tools/devsim/android/device_state.h"

namespace droidlab::devsim {
namespace {

// The first SDK whose package manager speaks through PackageManagerShellCommand (`cmd package`).
constexpr int kShellCommandSdk = 24;

struct InstallFlags {
  bool allow_downgrade = false;  // -d
  std::string path;              // the last bare word (pm install PATH)
};

// pm's install options (PackageManagerShellCommand.makeInstallParams): those that take a value
// skip it; -r (replace: the default since Android 7, accepted before) and the rest are
// accepted and change nothing here.
InstallFlags ParseInstallFlags(const Argv& args) {
  InstallFlags flags;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-d") {
      flags.allow_downgrade = true;
    } else if (arg == "-S" || arg == "-i" || arg == "--user" || arg == "-p" ||
               arg == "--install-location" || arg == "--originating-uri" || arg == "--referrer" ||
               arg == "--abi") {
      ++i;
    } else if (!arg.starts_with("-")) {
      flags.path = arg;
    }
  }
  return flags;
}

// "Failure [CODE: message]" (Android 7+) or "Failure [CODE]" on stderr (Android 6 and older).
CommandOutput Failure(int sdk, const std::string& code, const std::string& message) {
  CommandOutput output;
  if (sdk >= kShellCommandSdk) {
    output.Out("Failure [" + code + ": " + message + "]\n");
  } else {
    output.Err("Failure [" + code + "]\n");
  }
  output.exit_code = 1;
  return output;
}

// The staged copy of a session's file: /data/app/vmdlN.tmp/NAME (PackageInstallerService
// buildTmpSessionDir + the name install-write gave).
std::string StagedPath(int session, const std::string& name) {
  return "/data/app/vmdl" + std::to_string(session) + ".tmp/" + name;
}

// Installs the base APK `apk` (its splits `splits`) as the package manager would.
CommandOutput InstallApk(DeviceState& device, const ApkFacts& apk, bool allow_downgrade,
                         App** out = nullptr) {
  const int sdk = device.scenario.device.sdk;
  App* installed = device.FindApp(apk.package);
  if (installed != nullptr && apk.version_code < installed->spec.version_code &&
      !allow_downgrade) {
    return Failure(sdk, "INSTALL_FAILED_VERSION_DOWNGRADE",
                   "Update version code " + std::to_string(apk.version_code) +
                       " is older than current " + std::to_string(installed->spec.version_code));
  }
  if (installed == nullptr) {
    App app;
    app.spec.name = apk.package;
    app.spec.activity = ".MainActivity";
    int uid = 10000;
    for (const auto& [name, other] : device.apps) uid = std::max(uid, other.spec.uid + 1);
    app.spec.uid = uid;
    installed = &(device.apps[apk.package] = std::move(app));
  } else {
    device.ForceStop(*installed);  // an update kills the app's process
  }
  installed->apk_path = device.NewApkPath(apk.package);
  installed->spec.version_code = apk.version_code;
  // dumpsys prints "versionName=null" for a manifest without one (PackageInfo.versionName).
  installed->spec.version_name = apk.version_name.value_or("null");
  installed->spec.min_sdk = apk.min_sdk;
  installed->spec.target_sdk = apk.target_sdk.value_or(apk.min_sdk);
  installed->spec.signature = apk.signature;
  installed->spec.signature_scheme = apk.signature_scheme;
  installed->splits.clear();
  CompileAtInstall(device, *installed);
  if (out != nullptr) *out = installed;
  CommandOutput output;
  output.Out("Success\n");
  return output;
}

// Installs `file` (already received) as the package manager would.
CommandOutput Install(DeviceState& device, const StoredFile& file, const InstallFlags& flags) {
  const int session = device.next_install_session++;
  if (!file.apk) {
    return Failure(device.scenario.device.sdk, "INSTALL_PARSE_FAILED_NOT_APK",
                   "Failed to parse " + StagedPath(session, "base.apk"));
  }
  return InstallApk(device, *file.apk, flags.allow_downgrade);
}

// An exception out of the package manager's shell command (see the top of the file).
CommandOutput ShellException(int sdk, const std::string& verb, const std::string& exception) {
  CommandOutput output;
  output.Err(sdk >= 30 ? "Exception occurred while executing '" + verb + "':\n"
                       : std::string("Exception occurred while executing:\n"));
  output.Err(exception + "\n");
  output.exit_code = 255;
  return output;
}

// install-commit: the checks of validateApkInstallLocked, then the install.
CommandOutput CommitSession(DeviceState& device, int id, const InstallSession& session) {
  const int sdk = device.scenario.device.sdk;
  constexpr int kDexMetadataSdk = 28;
  const ApkFacts* base = nullptr;
  const ApkFacts* first = nullptr;
  std::string base_name;
  std::vector<std::string> seen;  // split names, "" for the base
  std::vector<std::string> splits;
  for (const auto& [name, file] : session.files) {
    const bool dm = name.ends_with(".dm") && sdk >= kDexMetadataSdk;
    if (dm) continue;
    const std::string staged = StagedPath(id, name);
    if (!file.apk) return Failure(sdk, "INSTALL_PARSE_FAILED_NOT_APK", "Failed to parse " + staged);
    const ApkFacts& apk = *file.apk;
    const std::string split = apk.split.value_or("");
    if (std::find(seen.begin(), seen.end(), split) != seen.end()) {
      return Failure(sdk, "INSTALL_FAILED_INVALID_APK",
                     "Split " + apk.split.value_or("null") + " was defined multiple times");
    }
    seen.push_back(split);
    if (first == nullptr) first = &apk;
    if (apk.package != first->package) {
      return Failure(sdk, "INSTALL_FAILED_INVALID_APK",
                     staged + " package " + apk.package + " inconsistent with " + first->package);
    }
    if (apk.version_code != first->version_code) {
      return Failure(sdk, "INSTALL_FAILED_INVALID_APK",
                     staged + " version code " + std::to_string(apk.version_code) +
                         " inconsistent with " + std::to_string(first->version_code));
    }
    if (apk.split) {
      splits.push_back(*apk.split);
    } else {
      base = &apk;
      base_name = name;
    }
  }
  if (first == nullptr) return Failure(sdk, "INSTALL_FAILED_INVALID_APK", "No packages staged");
  if (base == nullptr) {
    return Failure(sdk, "INSTALL_FAILED_INVALID_APK", "Full install must include a base package");
  }
  App* app = nullptr;
  CommandOutput output = InstallApk(device, *base, session.allow_downgrade, &app);
  if (app == nullptr) return output;
  std::sort(splits.begin(), splits.end());
  app->splits = std::move(splits);
  // base.dm beside base.apk: the app's baseline profile. An app installed without one has no
  // profile until it runs (which devsim does not model): speed-profile then compiles nothing.
  const std::string dm_name = base_name.substr(0, base_name.rfind('.')) + ".dm";
  app->spec.has_profile = false;
  for (const auto& [name, file] : session.files) {
    if (sdk >= kDexMetadataSdk && name == dm_name && file.dex_metadata) app->spec.has_profile = true;
  }
  // The install's dexopt sees the .dm's profile (or its absence).
  CompileAtInstall(device, *app);
  return output;
}

// The session `args` name (an id the phone made), or the exception the phone prints.
InstallSession* FindSession(DeviceState& device, const std::string& verb, const std::string& arg,
                            CommandOutput& error) {
  const std::optional<long> id = ParseLong(arg);
  const auto it = id ? device.install_sessions.find(static_cast<int>(*id))
                     : device.install_sessions.end();
  if (it == device.install_sessions.end()) {
    error = ShellException(device.scenario.device.sdk, verb,
                           "java.lang.SecurityException: Caller has no access to session " + arg);
    return nullptr;
  }
  return &it->second;
}

}  // namespace

CommandOutput RunStreamedInstall(DeviceState& device, const Argv& args, const StoredFile& file) {
  return Install(device, file, ParseInstallFlags(args));
}

CommandOutput RunPmInstall(DeviceState& device, const Argv& args) {
  const int sdk = device.scenario.device.sdk;
  const InstallFlags flags = ParseInstallFlags(args);
  CommandOutput output;
  if (sdk < kShellCommandSdk) output.Err("\tpkg: " + flags.path + "\n");
  const auto it = device.files.find(flags.path);
  if (it == device.files.end()) {
    if (sdk >= kShellCommandSdk) {
      // PackageManagerShellCommand.doWriteSplit: the file cannot be opened.
      return Error("Error: Can't open file: " + flags.path + "\n", 1);
    }
    output.Append(Failure(sdk, "INSTALL_FAILED_INVALID_URI", ""));
    output.exit_code = 1;
    return output;
  }
  const CommandOutput result = Install(device, it->second, flags);
  output.Append(result);
  output.exit_code = result.exit_code;
  return output;
}

CommandOutput RunInstallSession(DeviceState& device, const Argv& args, const StoredFile* streamed) {
  const std::string& verb = args.at(0);
  CommandOutput output;
  if (verb == "install-create") {
    const int id = device.next_install_session++;
    InstallSession session;
    session.allow_downgrade = ParseInstallFlags(Argv(args.begin() + 1, args.end())).allow_downgrade;
    device.install_sessions[id] = std::move(session);
    output.Out("Success: created install session [" + std::to_string(id) + "]\n");
    return output;
  }
  // install-write [-S SIZE] ID NAME [PATH|-]; install-commit ID; install-abandon ID.
  std::vector<std::string> words;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "-S") {
      ++i;
      continue;
    }
    words.push_back(args[i]);
  }
  if (words.empty()) return Error("Error: missing session id\n", 1);
  InstallSession* session = FindSession(device, verb, words[0], output);
  if (session == nullptr) return output;
  const int id = static_cast<int>(*ParseLong(words[0]));
  if (verb == "install-write") {
    if (words.size() < 2) return Error("Error: missing split name\n", 1);
    const std::string path = words.size() >= 3 ? words[2] : "-";
    StoredFile file;
    if (path == "-" && streamed != nullptr) {
      file = *streamed;
    } else if (const auto it = device.files.find(path); it != device.files.end()) {
      file = it->second;
    } else {
      return Error("Error: Can't open file: " + path + "\n", 1);
    }
    const std::uint64_t size = file.size;
    auto& files = session->files;
    std::erase_if(files, [&](const auto& entry) { return entry.first == words[1]; });
    files.emplace_back(words[1], std::move(file));
    output.Out("Success: streamed " + std::to_string(size) + " bytes\n");
    return output;
  }
  if (verb == "install-commit") {
    const InstallSession committed = std::move(*session);
    device.install_sessions.erase(id);
    return CommitSession(device, id, committed);
  }
  if (verb == "install-abandon") {
    device.install_sessions.erase(id);
    output.Out("Success\n");
    return output;
  }
  return Error("Unknown command: " + verb + "\n", 255);
}

CommandOutput RunRm(DeviceState& device, const Argv& argv) {
  bool force = false;
  CommandOutput output;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == "-f") {
      force = true;
      continue;
    }
    if (argv[i].starts_with("-")) continue;  // -r and the like: no folders are simulated
    if (device.files.erase(argv[i]) == 0 && !force) {
      // toybox rm: perror_msg on the path.
      output.Err("rm: " + argv[i] + ": No such file or directory\n");
      output.exit_code = 1;
    }
  }
  return output;
}

CommandOutput RunSha1sum(DeviceState& device, const Argv& argv) {
  CommandOutput output;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const auto it = device.files.find(argv[i]);
    if (it == device.files.end()) {
      output.Err("sha1sum: " + argv[i] + ": No such file or directory\n");
      output.exit_code = 1;
      continue;
    }
    // toybox md5sum.c (also sha1sum): the hash, two spaces, the name.
    output.Out(it->second.sha1 + "  " + argv[i] + "\n");
  }
  return output;
}

}  // namespace droidlab::devsim
