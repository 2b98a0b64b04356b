// The sync protocol's host side (adb/sync_protocol.h) with exact bytes, its status decoder
// ground at every split and byte by byte, and the install plan (adb/install_plan.h) and the
// install services. Bytes from packages/modules/adb file_sync_protocol.h and
// client/file_sync_client.cpp; the choice of way from client/adb_install.cpp.
#include "adb/sync_protocol.h"

#include <gtest/gtest.h>

#include "adb/install_plan.h"
#include "adb/services.h"
#include "tests/adb/grind.h"

namespace droidlab::adb {
namespace {

using testing::Grind;
using testing::Outcome;
using namespace std::literals;

std::string SyncFrame(SyncStatusDecoder&) { return "OKAY"; }

TEST(SyncEncodeTest, SendIsIdLengthAndPathCommaDecimalMode) {
  // 0100644 (a regular file, rw-r--r--) is 33188: adb sends st_mode in decimal.
  auto send = EncodeSyncSend("/data/local/tmp/app.apk", 0100644);
  ASSERT_TRUE(send.ok());
  EXPECT_EQ(*send, "SEND\x1d\0\0\0/data/local/tmp/app.apk,33188"s);
}

TEST(SyncEncodeTest, SendRefusesEmptyNulAndOverlongPaths) {
  EXPECT_EQ(EncodeSyncSend("", 0644).error().code, AdbErrc::kInvalidArgument);
  EXPECT_EQ(EncodeSyncSend("/data/local/tmp/a\0b"sv, 0644).error().code, AdbErrc::kInvalidArgument);
  EXPECT_EQ(EncodeSyncSend("/" + std::string(kSyncMaxPathLength, 'a'), 0644).error().code,
            AdbErrc::kInvalidArgument);
  EXPECT_TRUE(EncodeSyncSend("/" + std::string(kSyncMaxPathLength - 8, 'a'), 0644).ok());
}

TEST(SyncEncodeTest, DataDoneQuitHeadersAreLittleEndian) {
  EXPECT_EQ(EncodeSyncDataHeader(65536), "DATA\0\0\1\0"s);
  EXPECT_EQ(EncodeSyncDataHeader(3), "DATA\3\0\0\0"s);
  EXPECT_EQ(EncodeSyncDataHeader(70000), "DATA\0\0\1\0"s) << "never more than SYNC_DATA_MAX";
  char header[kSyncHeaderSize];
  WriteSyncDataHeader(header, 0x1234);
  EXPECT_EQ(std::string(header, kSyncHeaderSize), "DATA\x34\x12\0\0"s);
  EXPECT_EQ(EncodeSyncDone(0x65a1b2c3), "DONE\xc3\xb2\xa1\x65"s);
  EXPECT_EQ(EncodeSyncQuit(), "QUIT\0\0\0\0"s);
}

TEST(SyncStatusDecoderTest, OkayLeavesWhatFollows) {
  Outcome o = Grind<SyncStatusDecoder>({}, "OKAY\0\0\0\0QUIT"sv, false, SyncFrame);
  EXPECT_EQ(o.last, DecodeProgress::kDone);
  EXPECT_EQ(o.rest, "QUIT");
}

TEST(SyncStatusDecoderTest, FailKeepsTheDevicesWords) {
  // file_sync_service.cpp SendSyncFailErrno: "couldn't create file: Permission denied".
  Outcome o = Grind<SyncStatusDecoder>(
      {}, "FAIL\x27\0\0\0couldn't create file: Permission denied"sv, false, SyncFrame);
  EXPECT_EQ(o.last, DecodeProgress::kFailed);
  EXPECT_EQ(o.error_code, AdbErrc::kRejected);
  EXPECT_EQ(o.error_message, "couldn't create file: Permission denied");
}

TEST(SyncStatusDecoderTest, UnknownIdIsAProtocolFault) {
  Outcome o = Grind<SyncStatusDecoder>({}, "DATA\4\0\0\0abcd"sv, false, SyncFrame);
  EXPECT_EQ(o.last, DecodeProgress::kFailed);
  EXPECT_EQ(o.error_code, AdbErrc::kProtocol);
  EXPECT_EQ(o.error_message, "sync protocol fault (status 'DATA', length 4)");
}

TEST(SyncStatusDecoderTest, AHugeFailLengthIsAFaultNotAWait) {
  Outcome o = Grind<SyncStatusDecoder>({}, "FAIL\xff\xff\xff\x7f"sv, false, SyncFrame);
  EXPECT_EQ(o.last, DecodeProgress::kFailed);
  EXPECT_EQ(o.error_code, AdbErrc::kProtocol);
}

TEST(SyncStatusDecoderTest, EndOfStreamSaysWhere) {
  SyncStatusDecoder d;
  std::string_view part = "OKA";
  EXPECT_EQ(d.Feed(part), DecodeProgress::kNeedMore);
  EXPECT_TRUE(d.InFrame());
  EXPECT_EQ(d.ErrorAtEof().code, AdbErrc::kConnectionLost);
  EXPECT_EQ(d.ErrorAtEof().message,
            "device closed the sync connection before its status (3 of 8 bytes)");
  SyncStatusDecoder fail;
  std::string_view cut = "FAIL\5\0\0\0no"sv;
  EXPECT_EQ(fail.Feed(cut), DecodeProgress::kNeedMore);
  EXPECT_EQ(fail.ErrorAtEof().message,
            "device closed the sync connection in the middle of its FAIL message");
}

TEST(InstallPlanTest, ChoosesAsAdbInstallDoes) {
  const FeatureSet android14 = ParseFeatures("shell_v2,cmd,stat_v2,abb,abb_exec,track_app");
  const FeatureSet android9 = ParseFeatures("shell_v2,cmd,stat_v2");
  const FeatureSet android6 = ParseFeatures("");
  EXPECT_EQ(ChooseInstallMethod(android14, std::nullopt), InstallMethod::kAbbExec);
  EXPECT_EQ(ChooseInstallMethod(android9, std::nullopt), InstallMethod::kExecCmd);
  EXPECT_EQ(ChooseInstallMethod(android6, std::nullopt), InstallMethod::kPushThenPmInstall);
  EXPECT_EQ(ChooseInstallMethod(android9, 28), InstallMethod::kExecCmd);
  // An SDK below 24 has no streamed install whatever its features claim.
  EXPECT_EQ(ChooseInstallMethod(android9, 23), InstallMethod::kPushThenPmInstall);
}

TEST(InstallPlanTest, FlagsAndTheLegacyPath) {
  InstallOptions options;
  EXPECT_EQ(InstallFlags(options), (std::vector<std::string>{"-r"}));
  options.allow_downgrade = true;
  options.replace = false;
  EXPECT_EQ(InstallFlags(options), (std::vector<std::string>{"-d"}));
  EXPECT_EQ(*LegacyInstallPath("/home/ci/out/app-release.apk"), "/data/local/tmp/app-release.apk");
  EXPECT_EQ(*LegacyInstallPath("app.apk"), "/data/local/tmp/app.apk");
  EXPECT_EQ(LegacyInstallPath("/home/ci/out/").error().code, AdbErrc::kInvalidArgument);
}

TEST(InstallServicesTest, ExecAndAbbExecStrings) {
  const std::vector<std::string> flags = {"-r", "-d"};
  EXPECT_EQ(ExecCmdPackageInstall(flags, 1234)->str(), "exec:cmd package install -r -d -S 1234");
  EXPECT_EQ(AbbExecPackageInstall(flags, 1234)->str(),
            "abb_exec:package\0install\0-r\0-d\0-S\0001234"s);
  EXPECT_EQ(Sync().str(), "sync:");
  EXPECT_EQ(EncodeRequest(Sync()), "0005sync:");
  const std::vector<std::string> hostile = {"-r; reboot"};
  EXPECT_EQ(ExecCmdPackageInstall(hostile, 1).error().code, AdbErrc::kInvalidArgument);
  EXPECT_EQ(AbbExecPackageInstall(hostile, 1).error().code, AdbErrc::kInvalidArgument);
}

// client/adb_install.cpp install_multiple_app_streamed: send_command joins the args with ' ' after
// "exec:cmd package", or with NUL after "abb_exec:package"; PackageManagerShellCommand's syntax.
TEST(InstallSessionTest, StepsAsAdbInstallMultipleSendsThem) {
  InstallOptions options;
  options.allow_downgrade = true;
  const auto create = InstallCreateArgs(options, 2048);
  EXPECT_EQ(create, (std::vector<std::string>{"install-create", "-r", "-d", "-S", "2048"}));
  EXPECT_EQ(ExecCmdPackage(create)->str(), "exec:cmd package install-create -r -d -S 2048");
  EXPECT_EQ(AbbExecPackage(create)->str(),
            "abb_exec:package\0install-create\0-r\0-d\0-S\0002048"s);
  const auto write = InstallWriteArgs(1392406147, 1187, "base.apk", "-");
  EXPECT_EQ(ExecCmdPackage(write)->str(),
            "exec:cmd package install-write -S 1187 1392406147 base.apk -");
  EXPECT_EQ(InstallWriteArgs(7, 9, "base.dm", LegacySessionPath("base.dm")),
            (std::vector<std::string>{"install-write", "-S", "9", "7", "base.dm",
                                      "/data/local/tmp/base.dm"}));
  EXPECT_EQ(ExecCmdPackage(InstallCommitArgs(7))->str(), "exec:cmd package install-commit 7");
  EXPECT_EQ(AbbExecPackage(InstallAbandonArgs(7))->str(),
            "abb_exec:package\0install-abandon\0007"s);
}

TEST(InstallSessionTest, OnlyPlainWordsAndSafeNames) {
  for (const char* word : {"a b", "x;y", "'q'", "$(id)", "", "a\nb", "back\\slash"}) {
    const std::vector<std::string> args = {"install-write", word};
    EXPECT_EQ(ExecCmdPackage(args).error().code, AdbErrc::kInvalidArgument) << word;
    EXPECT_EQ(AbbExecPackage(args).error().code, AdbErrc::kInvalidArgument) << word;
  }
  const std::vector<std::string> with_nul = {"install-write", "a\0b"s};
  EXPECT_FALSE(AbbExecPackage(with_nul).ok());
  for (const char* name : {"base.apk", "split_config.arm64_v8a.apk", "base.dm", "A-1.apk"}) {
    EXPECT_TRUE(CheckSessionFileName(name).ok()) << name;
  }
  for (const char* name : {"", ".apk", "-d.apk", "base", "base.zip", "../base.apk", "a b.apk",
                           "a/b.apk", "base.apk;rm"}) {
    EXPECT_EQ(CheckSessionFileName(name).error().code, AdbErrc::kInvalidArgument) << name;
  }
  EXPECT_FALSE(CheckSessionFileName(std::string(201, 'a') + ".apk").ok());
}

}  // namespace
}  // namespace droidlab::adb
