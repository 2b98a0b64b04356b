// Answers to `cmd package compile` and `pm delete-dexopt`: Android 7–13 from
// PackageManagerShellCommand.runCompile, Android 14+ from ART Service's ArtShellCommand
// (handleCompile → printDexoptResult; handleDeleteDexopt), exceptions as
// BasicShellCommandHandler prints them.
#include "parsers/pm_compile.h"

#include <gtest/gtest.h>

namespace droidlab::parsers {
namespace {

TEST(PmCompileTest, SuccessOnEveryVersion) {
  auto r = ParsePmCompileOutput("Success\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->success);
  EXPECT_EQ(r->reason, "");
}

// Android 7–13: one package that dexopt could not compile (or that is not installed).
TEST(PmCompileTest, LegacyFailureNamesThePackage) {
  auto r = ParsePmCompileOutput("Failure: package com.example.app could not be compiled\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->success);
  EXPECT_EQ(r->reason, "Failure: package com.example.app could not be compiled");
}

// Android 7–13: a filter the version does not know (DexFile.isValidCompilerFilter).
TEST(PmCompileTest, InvalidFilterIsAFailure) {
  auto r = ParsePmCompileOutput("Error: \"quicken\" is not a valid compilation filter.\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->success);
  EXPECT_EQ(r->reason, "Error: \"quicken\" is not a valid compilation filter.");
}

// Android 14+: "Failure" alone, after the deprecation warnings ART Service prints for -c.
TEST(PmCompileTest, ArtServiceFailureAfterWarnings) {
  auto r = ParsePmCompileOutput(
      "Warning: Flag '-c' is deprecated and usually produces undesired results. Please use one "
      "of the following commands instead.\n"
      "- To clear the local profiles only, use 'pm art clear-app-profiles PACKAGE_NAME'.\n"
      "Failure\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->success);
  EXPECT_EQ(r->reason, "Failure");
}

TEST(PmCompileTest, ExceptionGivesItsOwnLine) {
  auto r = ParsePmCompileOutput(
      "Exception occurred while executing 'compile':\n"
      "java.lang.IllegalArgumentException: Package not found: com.example.gone\n"
      "\tat com.android.server.art.Utils.getPackageStateOrThrow(Utils.java:221)\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->success);
  EXPECT_EQ(r->reason, "java.lang.IllegalArgumentException: Package not found: com.example.gone");
}

// Android 14+, `pm delete-dexopt PKG`.
TEST(PmCompileTest, DeleteDexoptReportsWhatItFreed) {
  auto r = ParsePmCompileOutput("Freed 5242880 bytes\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->success);
  EXPECT_EQ(r->freed_bytes, std::optional<int64_t>(5242880));
}

TEST(PmCompileTest, TheLastAnswerDecides) {
  auto r = ParsePmCompileOutput("Failure\r\nSuccess\r\n");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->success);
}

TEST(PmCompileTest, EmptyAndForeignOutputsAreErrors) {
  EXPECT_EQ(ParsePmCompileOutput("").error().code, ParseErrorCode::kEmpty);
  EXPECT_EQ(ParsePmCompileOutput(" \n\n").error().code, ParseErrorCode::kEmpty);
  EXPECT_EQ(ParsePmCompileOutput("/system/bin/sh: cmd: not found\n").error().code,
            ParseErrorCode::kNotThisFormat);
  EXPECT_EQ(ParsePmCompileOutput("Freed lots of bytes\n").error().code,
            ParseErrorCode::kNotThisFormat);
  EXPECT_EQ(ParsePmCompileOutput("Successful\n").error().code, ParseErrorCode::kNotThisFormat);
}

}  // namespace
}  // namespace droidlab::parsers
