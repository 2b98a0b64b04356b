// devsim's side of `adb install` and `adb push`: the install and sync service strings, the sync
// requests fed a byte at a time, the files it keeps, and what the package manager prints per
// SDK (tools/devsim/android/install_commands.cpp names the AOSP sources), read back through
// `dumpsys package`.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parsers/dumpsys_package.h"
#include "tests/common/test_data.h"
#include "tests/devsim/pinned_clock_phone.h"
#include "tools/devsim/android/apk_receiver.h"
#include "tools/devsim/service_name.h"
#include "tools/devsim/sync_service.h"

namespace droidlab::devsim {
namespace {

using namespace std::literals;

TEST(InstallServiceTest, ExecCommandLineUnquotedAsShWould) {
  // adb 29 quotes each argument it passes on (escape_arg): 'install'.
  auto adb = ParseInstallService("exec:cmd package 'install' -S 1091\0"sv);
  ASSERT_TRUE(adb.has_value());
  EXPECT_EQ(adb->argv, (std::vector<std::string>{"cmd", "package", "install", "-S", "1091"}));
  EXPECT_EQ(adb->size, 1091u);
  EXPECT_FALSE(adb->abb);
  auto ours = ParseInstallService("exec:cmd package install -r -d -S 7");
  ASSERT_TRUE(ours.has_value());
  EXPECT_EQ(ours->argv,
            (std::vector<std::string>{"cmd", "package", "install", "-r", "-d", "-S", "7"}));
}

TEST(InstallServiceTest, AbbExecArgumentsAreNulSeparated) {
  auto abb = ParseInstallService("abb_exec:package\0install\0-r\0-S\0001234\0"sv);
  ASSERT_TRUE(abb.has_value());
  EXPECT_TRUE(abb->abb);
  EXPECT_EQ(abb->argv, (std::vector<std::string>{"cmd", "package", "install", "-r", "-S", "1234"}));
  EXPECT_EQ(abb->size, 1234u);
}

TEST(InstallServiceTest, OtherServicesAreNotInstalls) {
  EXPECT_FALSE(ParseInstallService("exec:cmd package install app.apk"));  // no -S
  EXPECT_FALSE(ParseInstallService("exec:cmd package install -S 12x"));
  EXPECT_FALSE(ParseInstallService("exec:ls -l"));
  EXPECT_FALSE(ParseInstallService("abb_exec:package\0list\0packages"sv));
  EXPECT_FALSE(ParseInstallService("shell:cmd package install -S 1"));
  EXPECT_TRUE(IsSyncService("sync:\0"sv));
  EXPECT_FALSE(IsSyncService("sync:x"));
}

// file_sync_protocol.h: SEND "PATH,MODE", DATA, DONE mtime, QUIT; fed one byte at a time.
TEST(SyncRequestDecoderTest, RequestsFedOneByteAtATime) {
  const std::string stream = "SEND\x1d\0\0\0/data/local/tmp/app.apk,33188"s + "DATA\3\0\0\0abc"s +
                             "DATA\0\0\0\0"s + "DONE\xc3\xb2\xa1\x65"s + "QUIT\0\0\0\0"s;
  SyncRequestDecoder decoder;
  std::vector<SyncRequest> requests;
  for (const char c : stream) {
    decoder.Feed(std::string_view(&c, 1));
    for (;;) {
      auto next = decoder.Take();
      ASSERT_FALSE(std::holds_alternative<std::string>(next));
      if (auto* request = std::get_if<SyncRequest>(&next)) {
        requests.push_back(std::move(*request));
      } else {
        break;
      }
    }
  }
  ASSERT_EQ(requests.size(), 5u);
  EXPECT_EQ(requests[0].kind, SyncRequest::Kind::kSend);
  EXPECT_EQ(requests[0].payload, "/data/local/tmp/app.apk,33188");
  EXPECT_EQ(requests[1].kind, SyncRequest::Kind::kData);
  EXPECT_EQ(requests[1].payload, "abc");
  EXPECT_EQ(requests[2].payload, "");
  EXPECT_EQ(requests[3].kind, SyncRequest::Kind::kDone);
  EXPECT_EQ(requests[3].value, 0x65a1b2c3u);
  EXPECT_EQ(requests[4].kind, SyncRequest::Kind::kQuit);
}

TEST(SyncRequestDecoderTest, DataOverSyncDataMaxBreaksTheProtocol) {
  SyncRequestDecoder decoder;
  decoder.Feed("DATA\x01\x00\x01\x00"sv);  // 65537 bytes
  auto next = decoder.Take();
  ASSERT_TRUE(std::holds_alternative<std::string>(next));
  EXPECT_EQ(std::get<std::string>(next), "data too long");
}

TEST(SyncEncodingTest, SendTargetAndStatuses) {
  auto target = ParseSyncSendTarget("/data/local/tmp/a,b.apk,420");
  ASSERT_TRUE(target.has_value());
  EXPECT_EQ(target->path, "/data/local/tmp/a,b.apk");
  EXPECT_EQ(target->mode, 420u);
  EXPECT_FALSE(ParseSyncSendTarget("/data/local/tmp/a.apk"));
  EXPECT_EQ(EncodeSyncStatus("OKAY", ""), "OKAY\0\0\0\0"s);
  EXPECT_EQ(EncodeSyncStatus("FAIL", "unknown command"), "FAIL\x0f\0\0\0unknown command"s);
  EXPECT_EQ(EncodeSyncStatV1({040771, 0, 0}), "STAT\xf9\x41\0\0\0\0\0\0\0\0\0\0"s);
  const std::string missing = EncodeSyncStatV2("STA2", {});
  EXPECT_EQ(missing.size(), 72u);
  EXPECT_EQ(missing.substr(0, 8), "STA2\2\0\0\0"s);  // ENOENT
}

TEST(ApkReceiverTest, Sha1AndManifestOfTheBytesReceived) {
  EXPECT_EQ(Sha1Hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");  // FIPS 180-1 A.1
  const std::string apk = testutil::ReadTestData("apk/major_aapt2.apk");
  ApkReceiver receiver;
  for (std::size_t at = 0; at < apk.size(); at += 100)
    receiver.Write(std::string_view(apk).substr(at, 100));
  const StoredFile file = receiver.Finish();
  EXPECT_EQ(file.size, apk.size());
  EXPECT_EQ(file.sha1, Sha1Hex(apk));
  ASSERT_TRUE(file.apk.has_value()) << file.not_apk_reason;
  EXPECT_EQ(file.apk->package, "org.example.major");
  EXPECT_EQ(file.apk->version_code, (3L << 32) | 7);

  ApkReceiver text;
  text.Write("not a zip");
  const StoredFile not_apk = text.Finish();
  EXPECT_FALSE(not_apk.apk.has_value());
  EXPECT_NE(not_apk.not_apk_reason.find("not an APK"), std::string::npos) << not_apk.not_apk_reason;
}

class PackageInstallTest : public PinnedClockPhoneTest {
 protected:
  void Make(int sdk) {
    Scenario scenario = OnSdk(sdk);
    scenario.noise_lines_per_s = 0;
    MakePhone(scenario);
  }
  static StoredFile Received(std::string_view bytes) {
    ApkReceiver receiver;
    receiver.Write(bytes);
    return receiver.Finish();
  }
  CommandOutput Streamed(std::string_view bytes, std::vector<std::string> flags = {}) {
    std::vector<std::string> argv = {"cmd", "package", "install"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back("-S");
    argv.push_back(std::to_string(bytes.size()));
    return android_->RunStreamedInstall(argv, Received(bytes));
  }
};

TEST_F(PackageInstallTest, StreamedInstallIsWhatDumpsysPackageShows) {
  Make(30);
  EXPECT_EQ(Sh("dumpsys package org.example.major").Stdout(), "");
  const auto output = Streamed(testutil::ReadTestData("apk/major_aapt2.apk"));
  EXPECT_EQ(output.Stdout(), "Success\n");
  const std::string dump = Sh("dumpsys package org.example.major").Stdout();
  EXPECT_NE(dump.find("    versionCode=12884901895 minSdk=21 targetSdk=35\n"), std::string::npos)
      << dump;
  EXPECT_NE(dump.find("    versionName=2026.11 \xe2\x98\x85\n"), std::string::npos) << dump;
  EXPECT_EQ(Sh("pm path org.example.major").Stdout().substr(0, 16), "package:/data/ap");
}

// PackageManagerShellCommand (Android 7+): "Failure [CODE: message]" on stdout.
TEST_F(PackageInstallTest, Android11RefusalsCarryTheirReason) {
  Make(30);
  const auto not_apk = Streamed("plain text\n");
  EXPECT_EQ(not_apk.Stdout(),
            "Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse "
            "/data/app/vmdl1392406147.tmp/base.apk]\n");
  const auto downgrade = Streamed(testutil::ReadTestData("apk/app_aapt.apk"));
  EXPECT_EQ(downgrade.Stdout(),
            "Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Update version code 42 is older than "
            "current 123]\n");
  EXPECT_NE(Sh("dumpsys package com.example.app").Stdout().find("versionCode=123 "),
            std::string::npos);
  EXPECT_EQ(Streamed(testutil::ReadTestData("apk/app_aapt.apk"), {"-r", "-d"}).Stdout(),
            "Success\n");
  EXPECT_NE(Sh("dumpsys package com.example.app").Stdout().find("versionCode=42 "),
            std::string::npos);
}

// Pm.java runInstall (Android 6): "\tpkg: PATH" on stderr, "Success" on stdout, or
// "Failure [CODE]" on stderr.
TEST_F(PackageInstallTest, Android6PmInstallOfAPushedFile) {
  Make(23);
  android_->StoreFile("/data/local/tmp/m.apk",
                      Received(testutil::ReadTestData("apk/major_aapt2.apk")));
  android_->StoreFile("/data/local/tmp/t.apk", Received("text"));
  const auto ok = Sh("pm install -r /data/local/tmp/m.apk");
  EXPECT_EQ(ok.Stderr(), "\tpkg: /data/local/tmp/m.apk\n");
  EXPECT_EQ(ok.Stdout(), "Success\n");
  const auto bad = Sh("pm install -r /data/local/tmp/t.apk");
  EXPECT_EQ(bad.Stderr(), "\tpkg: /data/local/tmp/t.apk\nFailure [INSTALL_PARSE_FAILED_NOT_APK]\n");
  EXPECT_EQ(bad.Stdout(), "");
  EXPECT_NE(Sh("dumpsys package org.example.major").Stdout().find("versionCode=12884901895 "),
            std::string::npos);
  EXPECT_EQ(Sh("sha1sum /data/local/tmp/t.apk").Stdout(),
            Sha1Hex("text") + "  /data/local/tmp/t.apk\n");
  EXPECT_EQ(Sh("rm -f /data/local/tmp/t.apk /data/local/tmp/none").exit_code, 0);
  const auto gone = Sh("rm /data/local/tmp/t.apk");
  EXPECT_EQ(gone.Stderr(), "rm: /data/local/tmp/t.apk: No such file or directory\n");
  EXPECT_EQ(gone.exit_code, 1);
}

// PackageSignatures.toString (services/core/java/com/android/server/pm/PackageSignatures.java):
// Android 9+ prints the installed APK's signer as Signature.hashCode() in hex — the value Java
// computed for the test key (tests/data/apk/testkey.hashcode.txt) —; Android 8.1 and older print
// object identities that change with each install. Read back with droidlab's own parser.
TEST_F(PackageInstallTest, DumpsysPackagePrintsTheInstalledSigner) {
  std::string java_hash = testutil::ReadTestData("apk/testkey.hashcode.txt");
  while (!java_hash.empty() && java_hash.back() == '\n') java_hash.pop_back();
  for (const int sdk : {28, 33, 34}) {
    Make(sdk);
    auto before = parsers::ParseDumpsysPackage(Sh("dumpsys package com.example.app").Stdout(),
                                               "com.example.app");
    ASSERT_TRUE(before.ok() && before->signatures) << sdk;
    EXPECT_EQ(before->signatures->current, std::vector<std::string>{"5f3a9c21"});  // scenario's
    ASSERT_EQ(Streamed(testutil::ReadTestData("apk/signed_v2v3.apk"), {"-r", "-d"}).Stdout(),
              "Success\n");
    const std::string dump = Sh("dumpsys package com.example.app").Stdout();
    auto after = parsers::ParseDumpsysPackage(dump, "com.example.app");
    ASSERT_TRUE(after.ok() && after->signatures) << dump;
    EXPECT_EQ(after->signatures->scheme_version, 3) << sdk;
    EXPECT_EQ(after->signatures->current, std::vector<std::string>{java_hash}) << dump;
    EXPECT_NE(dump.find("    apkSigningVersion=3\n"), std::string::npos) << dump;
  }
  Make(26);
  ASSERT_EQ(Streamed(testutil::ReadTestData("apk/signed_v2v3.apk"), {"-r", "-d"}).Stdout(),
            "Success\n");
  auto first = parsers::ParseDumpsysPackage(Sh("dumpsys package com.example.app").Stdout(),
                                            "com.example.app");
  ASSERT_TRUE(first.ok() && first->signatures);
  EXPECT_TRUE(first->signatures->identity_hashes);
  ASSERT_EQ(Streamed(testutil::ReadTestData("apk/signed_v2v3.apk"), {"-r", "-d"}).Stdout(),
            "Success\n");
  auto second = parsers::ParseDumpsysPackage(Sh("dumpsys package com.example.app").Stdout(),
                                             "com.example.app");
  ASSERT_TRUE(second.ok() && second->signatures);
  EXPECT_NE(first->signatures->current, second->signatures->current);
}

TEST_F(PackageInstallTest, HangFaultStallsTheStreamOnce) {
  Make(30);
  Sh("devsim-fault hang 'cmd package install'");
  const std::vector<std::string> argv = {"cmd", "package", "install", "-S", "5"};
  EXPECT_TRUE(android_->StallsStream(argv));
  EXPECT_FALSE(android_->StallsStream(argv));
}

TEST_F(PackageInstallTest, Android6AdvertisesNoFeatures) {
  Make(23);
  EXPECT_TRUE(android_->ConnectBanner().ends_with(";features=")) << android_->ConnectBanner();
  Make(28);
  EXPECT_NE(android_->ConnectBanner().find("features=shell_v2,cmd"), std::string::npos);
  EXPECT_EQ(android_->ConnectBanner().find("abb_exec"), std::string::npos);
}

}  // namespace
}  // namespace droidlab::devsim
