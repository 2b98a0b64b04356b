// `getprop` with no arguments: system/core/toolbox/getprop.cpp PrintAllProperties (Android 8+,
// `"[" << name << "]: [" << value << "]" << std::endl`, sorted by name), toolbox/getprop.c
// record_prop ("[%s]: [%s]") before it. Values are printed unescaped, newlines included.
#include "parsers/getprop.h"
#include "tests/common/test_data.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

// Android 11 (vivo V2026), toolbox/getprop.cpp.
TEST(GetpropTest, Android11VivoExcerpt) {
  auto r = ParseGetprop(ReadTestData("getprop/android11_vivo_v2026_excerpt.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->properties.size(), 21u);
  EXPECT_EQ(r->skipped_lines, 0u);
  EXPECT_EQ(r->properties.at("ro.build.version.sdk"), "30");
  EXPECT_EQ(r->properties.at("ro.product.model"), "V2026");
  EXPECT_EQ(r->properties.at("ro.build.fingerprint"),
            "vivo/PD2026F_EX_A/PD2026F:11/RP1A.200720.012/15.40.47:user/release-keys");
  EXPECT_EQ(r->properties.at("ro.build.display.id"), "PD2026F_EX_A_11_W_2021.06.01_15:40:47");
}

// Android 12 (HUAWEI DCO-AL00): an empty value and values with spaces.
TEST(GetpropTest, Android12HuaweiEmptyValueAndSpaces) {
  auto r = ParseGetprop(ReadTestData("getprop/android12_huawei_dco_excerpt.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->properties.size(), 28u);
  EXPECT_EQ(r->skipped_lines, 0u);
  EXPECT_EQ(r->properties.at("ro.hwui.use_vulkan"), "");
  EXPECT_EQ(r->properties.at("gsm.operator.alpha"), "CHINA MOBILE");
  EXPECT_EQ(r->properties.at("ro.build.date"), "Thu Feb 20 10:17:10 HKT 2025");
  EXPECT_EQ(r->properties.at("ro.product.cpu.abilist"),
            "x86_64,arm64-v8a,x86,armeabi-v7a,armeabi");
  EXPECT_EQ(r->properties.at("persist.sys.timezone"), "Asia/Shanghai");
}

// Android 14: persist.sys.boot.reason.history (bootstat) holds one reason per line; over a pty
// every line ends "\r\n".
TEST(GetpropTest, Android14MultiLineValueOverPty) {
  auto r = ParseGetprop(ReadTestData("getprop/android14_multiline_boot_reason_pty.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->skipped_lines, 0u);
  ASSERT_EQ(r->properties.size(), 5u);
  EXPECT_EQ(r->properties.at("persist.sys.boot.reason.history"),
            "reboot,userrequested,1699999999\nreboot,shell,1699990000\nreboot,ota,1699900000");
  EXPECT_EQ(r->properties.at("ro.build.version.sdk"), "34");
  EXPECT_EQ(r->properties.at("vendor.camera.aux.packagelist"), "");
  EXPECT_EQ(r->properties.at("dalvik.vm.isa.arm64.variant"), "cortex-a76");
}

struct GetpropCase {
  const char* name;
  std::string_view text;
  std::map<std::string, std::string, std::less<>> properties;
  uint64_t skipped_lines;
};

class GetpropCaseTest : public testing::TestWithParam<GetpropCase> {};

TEST_P(GetpropCaseTest, Parses) {
  const GetpropCase& c = GetParam();
  auto r = ParseGetprop(c.text);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->properties, c.properties);
  EXPECT_EQ(r->skipped_lines, c.skipped_lines);
}

INSTANTIATE_TEST_SUITE_P(
    GetpropShapes, GetpropCaseTest,
    testing::Values(
        GetpropCase{"EmptyValue", "[a.b]: []\n", {{"a.b", ""}}, 0},
        GetpropCase{"ValueWithBrackets", "[x]: [[1, 2]]\n", {{"x", "[1, 2]"}}, 0},
        GetpropCase{"ValueWithColonBracket", "[x]: [a]: [b]\n", {{"x", "a]: [b"}}, 0},
        GetpropCase{"NoFinalNewline", "[a]: [1]\n[b]: [2]", {{"a", "1"}, {"b", "2"}}, 0},
        GetpropCase{"MultiLineThreeLines", "[m]: [one\ntwo\nthree]\n[n]: [x]\n",
                    {{"m", "one\ntwo\nthree"}, {"n", "x"}}, 0},
        GetpropCase{"MultiLineWithEmptyLine", "[m]: [one\n\nthree]\n", {{"m", "one\n\nthree"}},
                    0},
        GetpropCase{"MultiLineEndsWithEmptyLine", "[m]: [one\n]\n", {{"m", "one\n"}}, 0},
        GetpropCase{"StrayLinesCounted", "garbage\n[a]: [1]\nmore garbage\n[b]: [2]\n",
                    {{"a", "1"}, {"b", "2"}}, 2},
        GetpropCase{"IllegalNameCounted", "[bad name]: [1]\n[a]: [1]\n", {{"a", "1"}}, 1},
        GetpropCase{"BlankLinesIgnored", "\n[a]: [1]\n\n\n[b]: [2]\n", {{"a", "1"}, {"b", "2"}},
                    0},
        GetpropCase{"CutOffValueThenNextProperty", "[a]: [never closed\nstill a\n[b]: [2]\n",
                    {{"b", "2"}}, 2},
        GetpropCase{"UnterminatedAtEnd", "[b]: [2]\n[a]: [open\nmore\n", {{"b", "2"}}, 2},
        GetpropCase{"DuplicateKeepsLast", "[a]: [1]\n[a]: [2]\n", {{"a", "2"}}, 0},
        GetpropCase{"LegalPunctuationInName", "[ro.boot.hardware.revision@1:x-y_z]: [v]\n",
                    {{"ro.boot.hardware.revision@1:x-y_z", "v"}}, 0}),
    [](const testing::TestParamInfo<GetpropCase>& param_info) {
      return std::string(param_info.param.name);
    });

TEST(GetpropTest, NoPropertyLineIsNotThisFormat) {
  for (std::string_view text : {"hello\n", "Status: ok\nComplete\n", "[]: [x]\n", "[a] [b]\n",
                                "[a]: [unterminated\n"}) {
    auto r = ParseGetprop(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().code, ParseErrorCode::kNotThisFormat) << text;
  }
}

TEST(GetpropTest, EmptyOutput) {
  EXPECT_EQ(ParseGetprop("").error().code, ParseErrorCode::kEmpty);
  EXPECT_EQ(ParseGetprop("\n\n").error().code, ParseErrorCode::kEmpty);
}

}  // namespace
}  // namespace droidlab::parsers
