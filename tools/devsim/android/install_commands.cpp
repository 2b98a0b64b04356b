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
#include <string>

#include "tools/devsim/android/command_handlers.h"
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

// Installs `file` (already received) as the package manager would.
CommandOutput Install(DeviceState& device, const StoredFile& file, const InstallFlags& flags) {
  const int sdk = device.scenario.device.sdk;
  const std::string staged =
      "/data/app/vmdl" + std::to_string(device.next_install_session++) + ".tmp/base.apk";
  if (!file.apk) {
    return Failure(sdk, "INSTALL_PARSE_FAILED_NOT_APK", "Failed to parse " + staged);
  }
  const ApkFacts& apk = *file.apk;
  App* installed = device.FindApp(apk.package);
  if (installed != nullptr && apk.version_code < installed->spec.version_code &&
      !flags.allow_downgrade) {
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
  CommandOutput output;
  output.Out("Success\n");
  return output;
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
