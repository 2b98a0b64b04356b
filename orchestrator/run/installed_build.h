// Does the phone already have the build a run names (issue 14 §1)? Then the run does not install
// it again: installing the same bytes costs a long transfer, resets the app's compilation state
// and its data's first-run caches, and measures nothing new.
//
// "The same APK", as the phone reports it in `dumpsys package PKG` (parsers/dumpsys_package.h):
//   - the package is installed;
//   - its long versionCode is the build's;
//   - its current signers are the build's (builds.signature: each signer certificate's
//     Signature.hashCode() in hex, as Android 9+ prints it — orchestrator/builds/apk_signature.h);
// and, since a nightly job may rebuild an APK without bumping its versionCode and sign it with
// the same key, one more condition the phone cannot tell: the last build droidlab recorded on
// this phone for this package (store: the runs' preflight.build) has the build's SHA-256.
// Anything unknown means "install": an unsigned build, a phone that prints no signatures line or
// Android 8.1's identity hashes (which say nothing of the key), a package droidlab never put there.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <optional>
#include <string>

#include "orchestrator/run/device_shell.h"
#include "orchestrator/run/preflight.h"
#include "parsers/dumpsys_package.h"
#include "store/async_store.h"
#include "store/records.h"

namespace droidlab::orchestrator {

// preflight.build's install_method when the phone had the build already.
inline constexpr char kAlreadyInstalled[] = "already-installed";

// preflight.build's install_method while an install is under way: recorded before the install
// is sent, replaced when it is seen to end. Found by the next run's check, it means droidlab does
// not know what the phone has (a crash or a lost phone mid-install): install again.
inline constexpr char kInstalling[] = "installing";

// What the run records when it did not install: the build, method "already-installed", 0 bytes.
InstalledBuild AlreadyInstalled(const store::Build& build);

// What the run records before it installs: the build, method "installing", 0 bytes.
InstalledBuild InstallIntention(const store::Build& build);

// Why the build must be installed, in words for the run's log; nullopt: the phone has it.
// `last`: the build droidlab last recorded on this phone for the build's package (nullopt:
// none); an install recorded as under way (kInstalling) is a reason to install. Pure.
std::optional<std::string> WhyInstall(const store::Build& build,
                                      const parsers::DumpsysPackage& installed,
                                      const std::optional<store::DeviceInstalledBuild>& last);

// `dumpsys package PKG` read and parsed. Errors: the command failed; the dump cannot be read.
boost::asio::awaitable<CommandResult<parsers::DumpsysPackage>> ReadInstalledPackage(
    DeviceShell& shell, std::string package, adb::Deadline deadline);

// The whole check for a run on `shell`'s phone: droidlab's last build there for the package
// (`store`), then the phone's `dumpsys package`. Why to install, or nullopt: already installed.
// A read that fails is a reason to install (said in the words), never a reason to skip.
boost::asio::awaitable<std::optional<std::string>> WhyInstallOnDevice(DeviceShell& shell,
                                                                      store::AsyncStore store,
                                                                      store::Build build,
                                                                      adb::Deadline deadline);

}  // namespace droidlab::orchestrator
