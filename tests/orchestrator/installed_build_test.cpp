// WhyInstall: whether a phone already has a run's build, from `dumpsys package` as each Android
// version prints it (tests/data/dumpsys_package/: Android 14 built from Settings.dumpPackageLPr
// and PackageSignatures.toString, Android 12/13 and 7.1.1 real) and droidlab's last install
// there. Every unknown means "install"; only a full match skips.
#include "orchestrator/run/installed_build.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/common/test_data.h"

namespace droidlab::orchestrator {
namespace {

using testutil::ReadTestData;

const std::string kSha = "5e1f0000aaaabbbbccccddddeeeeffff00001111222233334444555566667777";

// The Android 14 dump's package: com.example.lab, versionCode 2040117, signer c8a9d6f2.
store::Build Lab() {
  store::Build b;
  b.id = 3;
  b.package = "com.example.lab";
  b.version_code = 2040117;
  b.sha256 = kSha;
  b.signature = "c8a9d6f2";
  return b;
}

// droidlab's record of its last install of the package there: these bytes, by abb_exec.
std::optional<store::DeviceInstalledBuild> Last(const std::string& sha256,
                                                const std::string& method = "abb_exec") {
  store::DeviceInstalledBuild last;
  last.package = "com.example.lab";
  last.build_id = 3;
  last.sha256 = sha256;
  last.install_method = method;
  last.run_id = 12;
  return last;
}

parsers::DumpsysPackage Dump(const std::string& file, const std::string& package) {
  auto parsed = parsers::ParseDumpsysPackage(ReadTestData("dumpsys_package/" + file), package);
  EXPECT_TRUE(parsed.ok());
  return parsed.ok() ? *parsed : parsers::DumpsysPackage{};
}

TEST(InstalledBuildTest, Android14SameVersionSignatureAndBytesIsInstalled) {
  const auto dump = Dump("android14_art_service_full_built.txt", "com.example.lab");
  EXPECT_EQ(WhyInstall(Lab(), dump, Last(kSha)), std::nullopt);
}

TEST(InstalledBuildTest, AnyDifferenceInstalls) {
  const auto dump = Dump("android14_art_service_full_built.txt", "com.example.lab");
  store::Build newer = Lab();
  newer.version_code = 2040118;
  EXPECT_EQ(WhyInstall(newer, dump, Last(kSha)),
            "versionCode 2040117 is installed, the build is 2040118");
  store::Build other_key = Lab();
  other_key.signature = "66ec38d";
  EXPECT_EQ(WhyInstall(other_key, dump, Last(kSha)),
            "another signature is installed (c8a9d6f2; the build's: 66ec38d)");
  store::Build unsigned_build = Lab();
  unsigned_build.signature.reset();
  EXPECT_NE(WhyInstall(unsigned_build, dump, Last(kSha)), std::nullopt);
  // The phone matches, but droidlab never put it there, or last put other bytes there.
  EXPECT_NE(WhyInstall(Lab(), dump, std::nullopt), std::nullopt);
  EXPECT_NE(WhyInstall(Lab(), dump, Last(std::string(64, 'a'))), std::nullopt);
  // The past signers of a rotated key are not the current one.
  store::Build past = Lab();
  past.signature = "7b41e0c3";
  EXPECT_NE(WhyInstall(past, dump, Last(kSha)), std::nullopt);
}

// An install recorded as under way and never seen to end (the daemon killed mid-install): the
// phone may hold those bytes or the ones before, even when everything it prints matches.
TEST(InstalledBuildTest, AnInstallNotSeenToFinishInstallsAgain) {
  const auto dump = Dump("android14_art_service_full_built.txt", "com.example.lab");
  EXPECT_EQ(WhyInstall(Lab(), dump, Last(kSha, kInstalling)),
            "droidlab's last install there (build 3, run 12) was not seen to finish, so what the "
            "phone has is unknown");
  EXPECT_EQ(WhyInstall(Lab(), dump, Last(kSha, kAlreadyInstalled)), std::nullopt);
}

TEST(InstalledBuildTest, NotInstalledAndUnreadableSignaturesInstall) {
  store::Build missing = Lab();
  missing.package = "com.example.missing";
  EXPECT_EQ(WhyInstall(missing, Dump("android13_not_installed.txt", missing.package), Last(kSha)),
            "com.example.missing is not installed");
  // Android 12/13 (termux issue excerpt): the quoted block stops before the signatures line.
  store::Build termux = Lab();
  termux.package = "com.termux";
  termux.version_code = 118;
  EXPECT_EQ(WhyInstall(termux, Dump("android12_13_termux_issue_excerpt.txt", "com.termux"), Last(kSha)),
            "the phone prints no signatures of the package");
  // Android 7.1.1 (real): identity hashes, even when one happens to equal the build's.
  store::Build old = Lab();
  old.package = "com.example.testapp.first";
  old.version_code = 1;
  old.signature = "53ea108d";
  EXPECT_EQ(WhyInstall(old, Dump("android7_1_nexus6p_so40549987.txt", old.package), Last(kSha)),
            "the phone (Android 8.1 or older) prints no comparable signature");
}

// Two signers (v2, or v1 with two signature files): the same set in any order.
TEST(InstalledBuildTest, SignersCompareAsASet) {
  auto dump = parsers::ParseDumpsysPackage(
      "Packages:\n  Package [a.b] (1f):\n    versionCode=7 minSdk=28 targetSdk=33\n"
      "    signatures=PackageSignatures{9122424 version:2, signatures:[bbb2e2d2, 5], past "
      "signatures:[]}\n",
      "a.b");
  ASSERT_TRUE(dump.ok());
  store::Build b;
  b.package = "a.b";
  b.version_code = 7;
  b.sha256 = kSha;
  b.signature = "5, bbb2e2d2";
  EXPECT_EQ(WhyInstall(b, *dump, Last(kSha)), std::nullopt);
  b.signature = "bbb2e2d2";
  EXPECT_NE(WhyInstall(b, *dump, Last(kSha)), std::nullopt);
}

TEST(InstalledBuildTest, AlreadyInstalledRecordsTheBuildAndNoBytes) {
  const InstalledBuild record = AlreadyInstalled(Lab());
  EXPECT_EQ(record.id, 3);
  EXPECT_EQ(record.sha256, kSha);
  EXPECT_EQ(record.version_code, 2040117);
  EXPECT_EQ(record.method, "already-installed");
  EXPECT_EQ(record.bytes, 0);
}

}  // namespace
}  // namespace droidlab::orchestrator
