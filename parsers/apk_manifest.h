// What droidlab needs of an APK's AndroidManifest.xml (binary XML, parsers/binary_xml.h), read
// as the platform reads it (frameworks/base/core/java/android/content/pm/parsing/
// ParsingPackageUtils.java, Android 11+; PackageParser.java before):
// - <manifest package="…">: the package (no namespace); `split="config.arm64_v8a"` on a split
//   APK of the same package;
// - android:versionCode (0x0101021b) and android:versionCodeMajor (0x01010576): the long version
//   code is major << 32 | (code & 0xffffffff) (PackageInfo.composeLongVersionCode);
// - android:versionName (0x0101021c), a literal or a reference into resources.arsc;
// - <uses-sdk android:minSdkVersion (0x0101020c) android:targetSdkVersion (0x01010270)>: a
//   number, or a string for a preview's codename ("VanillaIceCream"). targetSdkVersion absent:
//   the platform takes minSdkVersion; minSdkVersion absent: 1.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "parsers/result.h"

namespace droidlab::parsers {

struct ApkManifest {
  std::string package;
  int64_t version_code = 0;                 // the long version code
  std::optional<std::string> version_name;  // absent, or a resource reference not resolved here
  int min_sdk = 1;
  std::optional<int> target_sdk;            // absent when neither it nor minSdkVersion is given
  std::optional<std::string> sdk_codename;  // a preview's codename in place of a number
  std::optional<std::string> split;         // the split's name; absent for a base APK
};

// Reads the manifest from the binary XML of AndroidManifest.xml. Thread-safe (pure function).
// Errors: those of ParseBinaryXml; kNotThisFormat when the root element is not <manifest>;
// kMalformed when the package is missing or empty, or versionCode / versionCodeMajor / an SDK
// level is neither an integer nor (SDK levels only) a codename string.
Result<ApkManifest> ParseApkManifest(std::string_view binary_xml);

}  // namespace droidlab::parsers
