// Install answers of the package manager's shell command (PackageManagerShellCommand.java,
// Android 7+; Pm.java before), on public reports (tests/data/pm_install/README.md).
#include "parsers/pm_install.h"

#include <gtest/gtest.h>

#include "tests/common/test_data.h"

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

// Android 13+: "Existing package … signatures do not match newer version; ignoring!"
TEST(PmInstallTest, SignatureMismatchAndroid13) {
  auto r = ParsePmInstallOutput(ReadTestData("pm_install/update_incompatible_android13.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->success);
  EXPECT_EQ(r->code, "INSTALL_FAILED_UPDATE_INCOMPATIBLE");
  EXPECT_EQ(r->reason,
            "Existing package com.zig.raylib signatures do not match newer version; ignoring!");
  EXPECT_NE(InstallFailureAdvice(r->code).find("signed with another key"), std::string::npos);
}

TEST(PmInstallTest, SignatureMismatchAndroid10) {
  auto r = ParsePmInstallOutput(ReadTestData("pm_install/update_incompatible_android10.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->code, "INSTALL_FAILED_UPDATE_INCOMPATIBLE");
  EXPECT_NE(r->reason.find("previously installed version"), std::string::npos) << r->reason;
}

TEST(PmInstallTest, InstallCreateGivesTheSession) {
  auto r = ParsePmInstallOutput(ReadTestData("pm_install/install_create.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->success);
  EXPECT_EQ(r->session_id, std::optional<int64_t>(295587018));
}

TEST(PmInstallTest, SuccessAndStreamed) {
  auto done = ParsePmInstallOutput("Success\n");
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(done->success);
  EXPECT_FALSE(done->session_id);
  auto streamed = ParsePmInstallOutput("Success: streamed 52428800 bytes\n");
  ASSERT_TRUE(streamed.ok());
  EXPECT_TRUE(streamed->success);
}

// An install session's answers, step by step and per version, as `adb install-multiple` reads
// them (client/adb_install.cpp install_multiple_app_streamed: "Success" first, the id between
// the last '[' and ']').
struct SessionAnswerCase {
  const char* name;
  const char* output;
  bool success;
  std::optional<int64_t> session;
  const char* code;
  const char* reason;
};

class PmInstallSessionTest : public ::testing::TestWithParam<SessionAnswerCase> {};

TEST_P(PmInstallSessionTest, ReadAsAdbInstallMultipleReadsIt) {
  const SessionAnswerCase& c = GetParam();
  auto r = ParsePmInstallOutput(c.output);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->success, c.success);
  EXPECT_EQ(r->session_id, c.session);
  EXPECT_EQ(r->code, c.code);
  EXPECT_EQ(r->reason, c.reason);
}

INSTANTIATE_TEST_SUITE_P(
    Steps, PmInstallSessionTest,
    ::testing::Values(
        // Android 5–6, cmds/pm/src/com/android/commands/pm/Pm.java runInstallCreate; 7–14,
        // services/core/java/com/android/server/pm/PackageManagerShellCommand.java
        // runInstallCreate: the same line ("adb depends on parsing this string").
        SessionAnswerCase{"CreateAndroid6", "Success: created install session [1392406147]\n",
                          true, 1392406147, "", ""},
        SessionAnswerCase{"CreateAndroid14", "Success: created install session [295587018]\r\n",
                          true, 295587018, "", ""},
        // install-write: doWriteSplit(…, logSuccess=true). Android 7–9 print the bytes copied
        // ("total"), 10–14 the -S size; Pm.java (5–6) as 7.
        SessionAnswerCase{"WriteAndroid7", "Success: streamed 1187 bytes\n", true, std::nullopt,
                          "", ""},
        // Android 10+: a write that fails, "Error: failed to write; " + the IOException's message.
        SessionAnswerCase{"WriteFailedAndroid10",
                          "Error: failed to write; Requested internal only, but not enough "
                          "space\n",
                          false, std::nullopt, "",
                          "failed to write; Requested internal only, but not enough space"},
        // install-commit: doCommitSession, "Failure [" + EXTRA_STATUS_MESSAGE + "]" with
        // PackageInstallerSession.validateApkInstallLocked's words (Android 9–14).
        SessionAnswerCase{"CommitNoBaseAndroid13",
                          "Failure [INSTALL_FAILED_INVALID_APK: Full install must include a base "
                          "package]\n",
                          false, std::nullopt, "INSTALL_FAILED_INVALID_APK",
                          "Full install must include a base package"},
        SessionAnswerCase{"CommitOtherPackageAndroid11",
                          "Failure [INSTALL_FAILED_INVALID_APK: /data/app/vmdl7.tmp/split.apk "
                          "package com.example.other inconsistent with com.example.app]\n",
                          false, std::nullopt, "INSTALL_FAILED_INVALID_APK",
                          "/data/app/vmdl7.tmp/split.apk package com.example.other inconsistent "
                          "with com.example.app"},
        // Pm.java (Android 5–6) prints the status message alone on stderr: the code.
        SessionAnswerCase{"CommitFailureAndroid6", "Failure [INSTALL_FAILED_INVALID_APK]\n", false,
                          std::nullopt, "INSTALL_FAILED_INVALID_APK", ""},
        SessionAnswerCase{"AbandonAndroid14", "Success\n", true, std::nullopt, "", ""},
        // An unknown session: openSessionInternal's SecurityException through
        // BasicShellCommandHandler (Android 11+).
        SessionAnswerCase{"UnknownSessionAndroid11",
                          "Exception occurred while executing 'install-commit':\n"
                          "java.lang.SecurityException: Caller has no access to session 7\n"
                          "\tat com.android.server.pm.PackageInstallerService.openSessionInternal"
                          "(PackageInstallerService.java:1020)\n",
                          false, std::nullopt, "",
                          "java.lang.SecurityException: Caller has no access to session 7"}),
    [](const auto& c) { return std::string(c.param.name); });

// Android 11+: an exception escaping the command; its class and message are the reason.
TEST(PmInstallTest, ExceptionIsAFailureWithItsMessage) {
  auto r = ParsePmInstallOutput(ReadTestData("pm_install/exception_apex.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->success);
  EXPECT_EQ(r->code, "");
  EXPECT_EQ(r->reason,
            "java.lang.IllegalArgumentException: This device doesn't support the installation of "
            "APEX files");
  auto space = ParsePmInstallOutput(ReadTestData("pm_install/exception_no_space.txt"));
  ASSERT_TRUE(space.ok()) << space.error().message;
  EXPECT_FALSE(space->success);
  EXPECT_NE(space->reason.find("not enough space"), std::string::npos) << space->reason;
}

// Android 4–6: "\tpkg: PATH" first (stderr over a pty), CRLF, the code with no reason.
TEST(PmInstallTest, OldPmInstallOverAPty) {
  auto r = ParsePmInstallOutput(ReadTestData("pm_install/pm_install_android6_pty.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->success);
  EXPECT_EQ(r->code, "INSTALL_FAILED_ALREADY_EXISTS");
  EXPECT_EQ(r->reason, "");
}

TEST(PmInstallTest, ErrorLineAndFreeTextInBrackets) {
  auto error = ParsePmInstallOutput("Error: APK content must be streamed\n");
  ASSERT_TRUE(error.ok());
  EXPECT_FALSE(error->success);
  EXPECT_EQ(error->reason, "APK content must be streamed");
  auto free_text = ParsePmInstallOutput("Failure [Couldn't uninstall packages: a, b]\n");
  ASSERT_TRUE(free_text.ok());
  EXPECT_EQ(free_text->code, "");
  EXPECT_EQ(free_text->reason, "Couldn't uninstall packages: a, b");
}

TEST(PmInstallTest, NoAnswerIsNotThisFormat) {
  EXPECT_EQ(ParsePmInstallOutput("").error().code, ParseErrorCode::kEmpty);
  EXPECT_EQ(ParsePmInstallOutput("/system/bin/sh: cmd: not found\n").error().code,
            ParseErrorCode::kNotThisFormat);
  EXPECT_EQ(ParsePmInstallOutput("Success: created install session [x]\n").error().code,
            ParseErrorCode::kMalformed);
  EXPECT_EQ(InstallFailureAdvice("INSTALL_FAILED_SOMETHING_NEW"), "");
}

}  // namespace
}  // namespace droidlab::parsers
