// Output of `dumpsys package PKG`, the parts a preflight needs: the package's version and the
// compilation state of its code. Printed by PackageManagerService's dump (Android 13+:
// services/core/java/com/android/server/pm/DumpHelper.java; the package block by
// Settings.dumpPackageLPr). Excerpt, termux issue #3761 (Android 12/13, legacy dexopt):
//
//   Packages:
//     Package [com.termux] (ec9b473):
//       userId=10459
//       versionCode=118 minSdk=24 targetSdk=28
//       minExtensionVersions=[]
//       versionName=0.118.0
//       …
//   Dexopt state:
//     [com.termux]
//       path: /data/app/~~KKO6NEXowysRtpbKcOX2lg==/com.termux-HKvGK7q1sZZppnysXgHFNw==/base.apk
//         arm64: [status=speed-profile] [reason=bg-dexopt]
//     BgDexopt state:
//       enabled:true
//
// Dexopt state, by version:
// - Android 9–13, PackageDexOptimizer.dumpDexoptState: "path: P" then per ISA
//   "arm64: [status=FILTER] [reason=REASON]" or "arm64: [Exception]: message", then
//   "used by other apps: […]" and "known secondary dex files:" (a dex path, then its ISA lines
//   and "class loader context: …").
// - Android 14+, ART Service (art/libartservice/.../DumpHelper.java): the same, plus
//   " [primary-abi]" after the primary ABI's line and an indented "[location is …]" under each.
// - Android 8.x: "arm64: /data/app/…/oat/arm64/base.odex[status=kOatUpToDate,
//   compilation_filter=speed]" (DexFile.getDexFileStatus); the filter is read from
//   compilation_filter=, the odex path kept as the location.
// Android 7's "Instruction Set:"/"status:" form is not read (its lines are counted as skipped).
//
// Signatures (the package block's "signatures=" line, PackageSignatures.toString in
// services/core/java/com/android/server/pm/PackageSignatures.java), by version:
// - Android 9+: "signatures=PackageSignatures{397b94f version:3, signatures:[42590c97], past
//   signatures:[]}" (zjn0505/adb-alfred issue #7): the scheme version, then for each current
//   signer Integer.toHexString(Signature.hashCode()) — a hash of its certificate's bytes
//   (parsers/apk_signing_block.h) —, then the rotation lineage's certificates as "HASH flags: F".
// - Android 8.1 and older: "signatures=PackageSignatures{9fe380d [53ea108d]}" (Nexus 6P, 7.1.1,
//   Stack Overflow question 40549987): System.identityHashCode of each Signature object, which
//   changes with every boot and install. Read as `identity_hashes`: it says nothing of the key.
//
// A package not installed: "Unable to find package: PKG" (the dump stops there on Android 13+;
// older versions print it inside "Dexopt state:"): the result has installed == false.
// Hidden system packages (the factory version under an update) are not the installed version and
// are not read. Sections are found by their header text, blocks by indentation; lines of the
// package's own Dexopt block that fit no form above, a versionCode line whose numbers do not
// parse, and a signatures line of neither form are counted in skipped_lines. Line ends as
// LineSplitter.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/result.h"

namespace droidlab::parsers {

struct DexoptStatus {
  std::string dex_path;         // the "path: " (or secondary dex) it belongs to; may be empty
  std::string isa;              // "arm64", "x86_64", …
  std::string compiler_filter;  // "speed-profile", "verify", "run-from-apk", …; may be empty
  std::string reason;           // "bg-dexopt", "install", "cmdline", …; empty on Android 8
  bool primary_abi = false;     // " [primary-abi]" (ART Service, Android 14+)
  bool secondary = false;       // under "known secondary dex files:"
  std::optional<std::string> location;  // "[location is …]" (14+), the odex path (8.x)
  std::optional<std::string> error;     // "[Exception]: …": status could not be read
};

struct PackageSignatures {
  std::optional<int> scheme_version;  // "version:N" (Android 9+): 1 JAR, 2 v2, 3 v3
  std::vector<std::string> current;   // hex as printed, in printed order
  std::vector<std::string> past;      // the lineage's (Android 9+), hex as printed
  bool identity_hashes = false;       // the Android 8.1-and-older form: object identities
};

struct DumpsysPackage {
  bool installed = false;  // false: "Unable to find package: PKG"
  std::optional<int64_t> version_code;  // the long version code since Android 9
  std::optional<int> min_sdk;
  std::optional<int> target_sdk;
  std::optional<std::string> version_name;  // as printed; "null" when the manifest has none
  // The app id: "userId=N" (PackageSetting's dump up to 11, and in some 12/13 builds), "appId=N"
  // (12+). Its uid for user 0 is the same number (UserHandle.getUid(0, appId)).
  std::optional<int64_t> app_id;
  std::optional<PackageSignatures> signatures;  // absent: no line, or one of another form
  std::vector<DexoptStatus> dexopt;         // this package's entries, in printed order
  uint64_t skipped_lines = 0;

  // The status that decides launch speed: the first code path's primary-ABI entry (the first
  // entry of that path when no line says [primary-abi]); nullptr when there is none.
  const DexoptStatus* PrimaryDexopt() const;
};

// `package_name` is the PKG given to dumpsys; only its blocks are read.
// Thread-safe (pure function).
// Errors: kEmpty for empty or blank output; kPermissionDenied for "Permission Denial: …";
// kNotThisFormat when the output has neither a "Package [PKG]" block, a Dexopt block for PKG,
// nor "Unable to find package: PKG".
Result<DumpsysPackage> ParseDumpsysPackage(std::string_view output, std::string_view package_name);

}  // namespace droidlab::parsers
