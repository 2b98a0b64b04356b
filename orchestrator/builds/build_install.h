// Installing a kept build onto a phone: one APK as `adb install` does (adb::Client::Install), a
// build of several files — its base APK, split APKs and a .dm — in one install session as `adb
// install-multiple` does (adb::Client::InstallMultiple). What the run executor calls.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <string>
#include <vector>

#include "adb/client.h"
#include "store/records.h"

namespace droidlab::orchestrator {

// A build's files as they go into the session, from where the library keeps them (KeptFilePath):
// the base as "base.apk", a split as "split_<its name>.apk" (the package manager's own names for
// staged files), a .dm named after the APK it was uploaded beside ("base.dm" for the base's):
// the package manager pairs a .dm with an APK by name. A .dm beside no file is left out.
std::vector<adb::SessionFile> SessionFilesOf(const std::string& builds_dir,
                                             const store::Build& build);

// The .dm is Android 9's (SDK 28, DexMetadataHelper): below that the package manager would
// parse it as an APK and refuse the whole install, so it is left out there.
inline constexpr int kDexMetadataMinSdk = 28;

// Installs `build` from `builds_dir`: Install for a build of one file, InstallMultiple for more.
// When the build has a .dm and options.sdk is unknown, the phone's SDK is read first
// (`getprop ro.build.version.sdk`); below kDexMetadataMinSdk the .dm is left out. Results and
// errors are the client's.
boost::asio::awaitable<adb::Result<adb::InstallResult>> InstallKeptBuild(
    adb::Client& client, adb::Serial serial, std::string builds_dir, store::Build build,
    adb::InstallOptions options, adb::ProgressCallback progress, adb::Deadline deadline);

}  // namespace droidlab::orchestrator
