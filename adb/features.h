// The payload of host-serial:SERIAL:features: the device's adbd features, comma-separated
// (packages/modules/adb transport.cpp FeatureSetToString / StringToFeatureSet):
//   "shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,apex,abb,fixed_push_symlink_timestamp,
//    abb_exec,remount_shell,track_app,sendrecv_v2,sendrecv_v2_brotli,sendrecv_v2_lz4,
//    sendrecv_v2_zstd,sendrecv_v2_dry_run_send,openscreen_mdns,push_sync"
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace droidlab::adb {

inline constexpr std::string_view kFeatureShellV2 = "shell_v2";  // exit codes, split stderr
inline constexpr std::string_view kFeatureCmd = "cmd";
inline constexpr std::string_view kFeatureAbbExec = "abb_exec";

using FeatureSet = std::vector<std::string>;

// Splits on ','; "" gives an empty set, empty items (",,") are dropped. Never fails.
FeatureSet ParseFeatures(std::string_view payload);

// HasFeature(ParseFeatures("shell_v2,cmd"), kFeatureShellV2) == true. Whole names only:
// "shell_v2" is not found in "shell_v2x".
bool HasFeature(const FeatureSet& features, std::string_view feature);

}  // namespace droidlab::adb
