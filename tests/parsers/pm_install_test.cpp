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
