// `pm path` and `cmd package resolve-activity --brief`: PackageManagerShellCommand
// (frameworks/base/services/core/java/com/android/server/pm/PackageManagerShellCommand.java)
// runPath / runResolveActivity, Android 7+.
#include "parsers/pm_output.h"
#include "tests/common/test_data.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

// Android 11+ (real): base then config split, "~~" directories.
TEST(PmOutputTest, PmPathAndroid11Splits) {
  auto r = ParsePmPath(ReadTestData("pm_output/pm_path_android11plus_splits_adbutils_pr.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->apk_paths.size(), 2u);
  EXPECT_EQ(r->apk_paths[0],
            "/data/app/~~kk1svdk5INu5m4M4-QsY2g==/com.viewer.comicscreen-PWjfAUbzQksNJTP1RBzzAg=="
            "/base.apk");
  EXPECT_TRUE(r->apk_paths[1].ends_with("/split_config.arm64_v8a.apk"));
  EXPECT_TRUE(r->installed());
  EXPECT_EQ(r->skipped_lines, 0u);
}

// Android 9 (real): four APKs, no "~~".
TEST(PmOutputTest, PmPathAndroid9Splits) {
  auto r = ParsePmPath(ReadTestData("pm_output/pm_path_android9_splits_adb_alfred_issue.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->apk_paths.size(), 4u);
  EXPECT_EQ(r->apk_paths[3], "/data/app/com.facebook.katana-MmYxRVxicSrIj2RzmN0C5A==/split_pytorch.apk");
}

// Not installed: nothing printed (and exit status 1).
TEST(PmOutputTest, PmPathNotInstalled) {
  auto r = ParsePmPath(ReadTestData("pm_output/pm_path_not_installed_empty.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->installed());
}

TEST(PmOutputTest, PmPathOddLines) {
  auto r = ParsePmPath("package:/data/app/x/base.apk\r\nWARNING: linker: something\r\npackage:\r\n");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->apk_paths.size(), 1u);
  EXPECT_EQ(r->apk_paths[0], "/data/app/x/base.apk");
  EXPECT_EQ(r->skipped_lines, 2u);
  EXPECT_EQ(ParsePmPath("/system/bin/sh: pm: not found\n").error().code,
            ParseErrorCode::kNotThisFormat);
}

struct ResolveCase {
  const char* name;
  const char* file;  // under tests/data/pm_output/
  std::optional<std::string> component;
  bool is_chooser;
  std::optional<uint32_t> match;
  std::optional<bool> is_default;
};

class ResolveActivityFileTest : public testing::TestWithParam<ResolveCase> {};

TEST_P(ResolveActivityFileTest, Parses) {
  const ResolveCase& c = GetParam();
  auto r = ParseResolveActivityBrief(ReadTestData(std::string("pm_output/") + c.file));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->component, c.component);
  EXPECT_EQ(r->is_chooser, c.is_chooser);
  EXPECT_EQ(r->match, c.match);
  EXPECT_EQ(r->is_default, c.is_default);
  EXPECT_EQ(r->skipped_lines, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    PmOutputResolveActivity, ResolveActivityFileTest,
    testing::Values(
        // Emulator (real): short form ".stories.NewsActivity".
        ResolveCase{"EmulatorReal", "resolve_activity_brief_emulator_report.txt",
                    "com.malmstein.yahnac/.stories.NewsActivity", false, 0x108000u, false},
        // A class outside the package prefix is printed whole; \r\n line ends.
        ResolveCase{"FullClassCrlf", "resolve_activity_brief_full_class_crlf.txt",
                    "com.example.lab/com.example.lab.ui.LaunchActivity", false, 0x108000u, true},
        // Several launcher activities, none preferred: the system chooser.
        ResolveCase{"Chooser", "resolve_activity_brief_chooser.txt",
                    "android/com.android.internal.app.ResolverActivity", true, 0u, true},
        // resolveIntent returned null.
        ResolveCase{"NoActivity", "resolve_activity_no_activity.txt", std::nullopt, false,
                    std::nullopt, std::nullopt}),
    [](const testing::TestParamInfo<ResolveCase>& param_info) {
      return std::string(param_info.param.name);
    });

TEST(PmOutputTest, ResolveNumbers) {
  auto r = ParseResolveActivityBrief(
      "priority=-5 preferredOrder=2 match=0x108000 specificIndex=-1 isDefault=true\n"
      "com.pkg/.Main\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->priority, -5);
  EXPECT_EQ(r->preferred_order, 2);
  EXPECT_EQ(r->specific_index, -1);
}

// --components: the component line alone.
TEST(PmOutputTest, ResolveComponentsOnly) {
  auto r = ParseResolveActivityBrief("com.pkg/.Main\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->component, "com.pkg/.Main");
  EXPECT_FALSE(r->priority.has_value());
}

TEST(PmOutputTest, ResolveErrorsAndOddLines) {
  EXPECT_EQ(ParseResolveActivityBrief("").error().code, ParseErrorCode::kEmpty);
  EXPECT_EQ(ParseResolveActivityBrief("Exception occurred while executing 'resolve-activity':\n"
                                      "java.lang.IllegalArgumentException: Unknown option: -x\n")
                .error()
                .code,
            ParseErrorCode::kNotThisFormat);
  auto r = ParseResolveActivityBrief(
      "priority=zero preferredOrder=0 match=108000 specificIndex=-1 isDefault=maybe\n"
      "a/b/c\n"
      "com.pkg/.Main\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->component, "com.pkg/.Main");
  EXPECT_FALSE(r->priority.has_value());
  EXPECT_FALSE(r->match.has_value());
  EXPECT_FALSE(r->is_default.has_value());
  EXPECT_EQ(r->skipped_lines, 2u);  // the bad numbers line and "a/b/c"
}

}  // namespace
}  // namespace droidlab::parsers
