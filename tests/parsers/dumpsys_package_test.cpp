// `dumpsys package PKG`: Settings.dumpPackageLPr (package block); "Dexopt state:" by
// PackageDexOptimizer.dumpDexoptState (Android 9-13), DexFile.getDexFileStatus (Android 8) and
// ART Service's DumpHelper (art/libartservice, Android 14+); "Unable to find package:" by
// PackageManagerService's dump.
#include "parsers/dumpsys_package.h"
#include "tests/common/test_data.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

// Android 12/13 (real, termux issue): legacy dexopt, BgDexopt state after the package list.
TEST(DumpsysPackageTest, Android12TermuxLegacyDexopt) {
  auto r = ParseDumpsysPackage(
      ReadTestData("dumpsys_package/android12_13_termux_issue_excerpt.txt"), "com.termux");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->installed);
  EXPECT_EQ(r->version_code, 118);
  EXPECT_EQ(r->app_id, 10459);  // "userId=10459"
  EXPECT_EQ(r->min_sdk, 24);
  EXPECT_EQ(r->target_sdk, 28);
  EXPECT_EQ(r->version_name, "0.118.0");
  ASSERT_EQ(r->dexopt.size(), 1u);
  const DexoptStatus& d = r->dexopt[0];
  EXPECT_EQ(d.dex_path,
            "/data/app/~~KKO6NEXowysRtpbKcOX2lg==/com.termux-HKvGK7q1sZZppnysXgHFNw==/base.apk");
  EXPECT_EQ(d.isa, "arm64");
  EXPECT_EQ(d.compiler_filter, "speed-profile");
  EXPECT_EQ(d.reason, "bg-dexopt");
  EXPECT_FALSE(d.primary_abi);
  EXPECT_FALSE(d.location.has_value());
  EXPECT_EQ(r->PrimaryDexopt(), &r->dexopt[0]);
  EXPECT_EQ(r->skipped_lines, 0u);
}

// Android 14+ ART Service (real excerpt): several packages, only PKG's entries are read.
TEST(DumpsysPackageTest, Android14ArtServiceExcerptPicksThePackage) {
  const std::string text =
      ReadTestData("dumpsys_package/android14plus_art_service_dexopt_excerpt.txt");
  auto r = ParseDumpsysPackage(text, "apitester.org");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->installed);
  EXPECT_FALSE(r->version_code.has_value());  // the excerpt has no Packages block
  ASSERT_EQ(r->dexopt.size(), 1u);
  EXPECT_EQ(r->dexopt[0].compiler_filter, "speed-profile");
  EXPECT_EQ(r->dexopt[0].reason, "install-dm");
  EXPECT_TRUE(r->dexopt[0].primary_abi);
  EXPECT_EQ(r->dexopt[0].location,
            "/data/app/~~X1mJGgAgIgLqdGNKW6bCwA==/apitester.org-C-5YaXHPrKYpJn8qIF2SUg==/oat/"
            "arm64/base.odex");
  EXPECT_EQ(r->skipped_lines, 0u);

  auto gms = ParseDumpsysPackage(text, "app.revanced.android.gms");
  ASSERT_TRUE(gms.ok());
  ASSERT_EQ(gms->dexopt.size(), 1u);
  EXPECT_EQ(gms->dexopt[0].compiler_filter, "speed");
  EXPECT_EQ(gms->dexopt[0].reason, "ab-ota");
  EXPECT_EQ(gms->skipped_lines, 0u);  // "used by other apps" is known
}

// Android 14 (built): two ABIs, a split, a removed secondary dex, a hidden system package.
TEST(DumpsysPackageTest, Android14FullDump) {
  auto r = ParseDumpsysPackage(ReadTestData("dumpsys_package/android14_art_service_full_built.txt"),
                               "com.example.lab");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->installed);
  EXPECT_EQ(r->app_id, 10231);  // "appId=10231" (Android 12+)
  // The installed version, not the factory one under "Hidden system packages:".
  EXPECT_EQ(r->version_code, 2040117);
  EXPECT_EQ(r->min_sdk, 26);
  EXPECT_EQ(r->target_sdk, 34);
  EXPECT_EQ(r->version_name, "4.1.17 (release)");
  ASSERT_EQ(r->dexopt.size(), 4u);
  EXPECT_EQ(r->dexopt[0].isa, "arm64");
  EXPECT_TRUE(r->dexopt[0].primary_abi);
  EXPECT_EQ(r->dexopt[1].isa, "arm");
  EXPECT_EQ(r->dexopt[1].compiler_filter, "verify");
  EXPECT_FALSE(r->dexopt[1].primary_abi);
  EXPECT_TRUE(r->dexopt[2].dex_path.ends_with("/split_config.arm64_v8a.apk"));
  EXPECT_EQ(r->dexopt[2].compiler_filter, "run-from-apk");
  EXPECT_EQ(r->dexopt[2].location, "error");
  EXPECT_TRUE(r->dexopt[3].secondary);
  EXPECT_EQ(r->dexopt[3].dex_path, "/data/user/0/com.example.lab/code_cache/plugin.dex");
  EXPECT_EQ(r->dexopt[3].reason, "bg-dexopt");
  ASSERT_NE(r->PrimaryDexopt(), nullptr);
  EXPECT_EQ(r->PrimaryDexopt()->compiler_filter, "speed-profile");
  EXPECT_TRUE(r->PrimaryDexopt()->dex_path.ends_with("/base.apk"));
  EXPECT_EQ(r->skipped_lines, 0u);
}

// Android 8 (quoted in AndroidX Benchmark's test): the odex path and compilation_filter.
TEST(DumpsysPackageTest, Android8OatFileStatus) {
  auto r = ParseDumpsysPackage(
      ReadTestData("dumpsys_package/android8_oat_file_status_androidx_test.txt"),
      "androidx.compose.foundation.layout.benchmark.test");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->dexopt.size(), 1u);
  EXPECT_EQ(r->dexopt[0].compiler_filter, "speed");
  EXPECT_TRUE(r->dexopt[0].reason.empty());
  EXPECT_EQ(r->dexopt[0].location,
            "/data/app/androidx.compose.foundation.layout.benchmark.test-pBhSh_spHfjDL-5jgzu_Jg=="
            "/oat/arm64/base.odex");
  EXPECT_EQ(r->skipped_lines, 0u);
}

// Android 13+: the one line for a package that is not installed.
TEST(DumpsysPackageTest, NotInstalled) {
  auto r = ParseDumpsysPackage(ReadTestData("dumpsys_package/android13_not_installed.txt"),
                               "com.example.missing");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->installed);
  EXPECT_FALSE(r->version_code.has_value());
  EXPECT_TRUE(r->dexopt.empty());
  EXPECT_EQ(r->PrimaryDexopt(), nullptr);
}

// Android 10-12 print the not-found line inside "Dexopt state:".
TEST(DumpsysPackageTest, NotInstalledInsideDexoptSection) {
  auto r = ParseDumpsysPackage("Dexopt state:\n  Unable to find package: com.x\n", "com.x");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->installed);
}

TEST(DumpsysPackageTest, ExceptionAndBadLinesInTheDexoptBlock) {
  auto r = ParseDumpsysPackage(
      "Dexopt state:\n"
      "  [com.x]\n"
      "    path: /data/app/com.x-1/base.apk\n"
      "      arm64: [Exception]: Cannot open /data/app/com.x-1/base.apk\n"
      "      arm: [status=verify [reason=install]\n"
      "      Arm64: [status=speed]\n"
      "      something odd\n"
      "  [com.y]\n"
      "    path: /data/app/com.y-1/base.apk\n"
      "      arm64: [status=speed] [reason=install]\n",
      "com.x");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->dexopt.size(), 1u);
  EXPECT_EQ(r->dexopt[0].error, "Cannot open /data/app/com.x-1/base.apk");
  EXPECT_TRUE(r->dexopt[0].compiler_filter.empty());
  EXPECT_EQ(r->skipped_lines, 3u);
}

TEST(DumpsysPackageTest, BadVersionLineIsCounted) {
  auto r = ParseDumpsysPackage(
      "Packages:\n"
      "  Package [com.x] (1):\n"
      "    versionCode=12x minSdk=21 targetSdk=33\n"
      "    versionName=null\n",
      "com.x");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->version_code.has_value());
  EXPECT_EQ(r->min_sdk, 21);
  EXPECT_EQ(r->target_sdk, 33);
  EXPECT_EQ(r->version_name, "null");
  EXPECT_EQ(r->skipped_lines, 1u);
  EXPECT_TRUE(r->dexopt.empty());
}

// Signatures, Android 9+ (PackageSignatures.toString in
// services/core/java/com/android/server/pm/PackageSignatures.java): the scheme version, each
// current signer's Signature.hashCode() in hex, the rotation lineage with its flags.
TEST(DumpsysPackageTest, Android14SignaturesWithALineage) {
  auto r = ParseDumpsysPackage(ReadTestData("dumpsys_package/android14_art_service_full_built.txt"),
                               "com.example.lab");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->signatures.has_value());
  EXPECT_EQ(r->signatures->scheme_version, 3);
  EXPECT_EQ(r->signatures->current, std::vector<std::string>{"c8a9d6f2"});
  EXPECT_EQ(r->signatures->past, (std::vector<std::string>{"7b41e0c3", "c8a9d6f2"}));
  EXPECT_FALSE(r->signatures->identity_hashes);
  EXPECT_EQ(r->skipped_lines, 0u);
}

// Android 9-13: the line quoted in zjn0505/adb-alfred issue #7 (2021), and two v2 signers with no
// lineage; an unsigned package's empty list.
TEST(DumpsysPackageTest, Android9PlusSignatureForms) {
  // The package block with one signatures line: what it reads as.
  auto read = [](const std::string& line) {
    auto r = ParseDumpsysPackage("Packages:\n  Package [a.b] (1f):\n    versionCode=7 minSdk=28 "
                                 "targetSdk=33\n    signatures=PackageSignatures{" + line + "}\n",
                                 "a.b");
    EXPECT_TRUE(r.ok() && r->signatures) << line;
    return r.ok() && r->signatures ? *r->signatures : PackageSignatures{};
  };
  const auto one = read("397b94f version:3, signatures:[42590c97], past signatures:[]");
  EXPECT_EQ(one.scheme_version, 3);
  EXPECT_EQ(one.current, std::vector<std::string>{"42590c97"});
  EXPECT_TRUE(one.past.empty());
  EXPECT_EQ(read("9122424 version:2, signatures:[bbb2e2d2, 5], past signatures:[]").current,
            (std::vector<std::string>{"bbb2e2d2", "5"}));
  EXPECT_TRUE(read("9122424 version:0, signatures:[], past signatures:[]").current.empty());
}

// Android 7.1.1 (real, Nexus 6P): the old form prints object identity hashes, which say nothing
// of the certificate: read, but marked.
TEST(DumpsysPackageTest, Android7SignaturesAreIdentityHashes) {
  auto r = ParseDumpsysPackage(ReadTestData("dumpsys_package/android7_1_nexus6p_so40549987.txt"),
                               "com.example.testapp.first");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->version_code, 1);
  EXPECT_EQ(r->app_id, 10225);  // "userId=10225"
  ASSERT_TRUE(r->signatures.has_value());
  EXPECT_TRUE(r->signatures->identity_hashes);
  EXPECT_FALSE(r->signatures->scheme_version.has_value());
  EXPECT_EQ(r->signatures->current, std::vector<std::string>{"53ea108d"});
  EXPECT_EQ(r->skipped_lines, 0u);
}

// A signatures line of neither form is counted, not guessed at.
TEST(DumpsysPackageTest, UnreadableSignaturesLineIsCounted) {
  const std::string head = "Packages:\n  Package [a.b] (1f):\n";
  for (const char* line : {"signatures=PackageSignatures{397b94f version:x, signatures:[1], past signatures:[]}",
                           "signatures=PackageSignatures{397b94f version:3, signatures:[XYZ], past signatures:[]}",
                           "signatures=PackageSignatures{397b94f version:3, signatures:[123456789], past signatures:[]}",
                           "signatures=PackageSignatures{397b94f version:3, signatures:[1]",
                           "signatures=null"}) {
    auto r = ParseDumpsysPackage(head + "    " + line + "\n", "a.b");
    ASSERT_TRUE(r.ok()) << line;
    EXPECT_FALSE(r->signatures.has_value()) << line;
    EXPECT_EQ(r->skipped_lines, 1u) << line;
  }
}

TEST(DumpsysPackageTest, Errors) {
  EXPECT_EQ(ParseDumpsysPackage("", "com.x").error().code, ParseErrorCode::kEmpty);
  EXPECT_EQ(ParseDumpsysPackage("Permission Denial: can't dump package\n", "com.x").error().code,
            ParseErrorCode::kPermissionDenied);
  // Another package's dump, or another command's output.
  EXPECT_EQ(ParseDumpsysPackage("Packages:\n  Package [com.y] (1):\n    versionCode=1\n", "com.x")
                .error()
                .code,
            ParseErrorCode::kNotThisFormat);
  EXPECT_EQ(ParseDumpsysPackage("Unable to find package: com.y\n", "com.x").error().code,
            ParseErrorCode::kNotThisFormat);
}

}  // namespace
}  // namespace droidlab::parsers
