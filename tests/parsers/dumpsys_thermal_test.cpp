// `dumpsys thermalservice`: ThermalManagerService's dump
// (frameworks/base/services/core/java/com/android/server/power/ThermalManagerService.java),
// Android 10+; Android 9's native thermalserviced has none.
#include "parsers/dumpsys_thermal.h"
#include "tests/common/test_data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

// Android 12, Samsung A52 5G (real).
TEST(DumpsysThermalTest, Android12SamsungA52) {
  auto r = ParseDumpsysThermal(ReadTestData("dumpsys_thermal/android12_samsung_a52_stackexchange.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->is_status_override, false);
  EXPECT_EQ(r->thermal_status, 0);
  EXPECT_EQ(ThermalStatusName(r->thermal_status), "NONE");
  EXPECT_EQ(r->hal_ready, true);
  ASSERT_EQ(r->cached.size(), 9u);
  ASSERT_EQ(r->from_hal.size(), 9u);
  EXPECT_EQ(r->from_hal[1].name, "BAT");
  EXPECT_EQ(r->from_hal[1].type, 2);
  EXPECT_DOUBLE_EQ(r->from_hal[1].value_c, 23.8);
  EXPECT_EQ(r->from_hal[1].status, 0);
  EXPECT_EQ(r->cached[0].name, "SUBBAT");
  EXPECT_EQ(r->skipped_lines, 0u);
  const ThermalTemperature* pa = r->Find("PA");
  ASSERT_NE(pa, nullptr);
  EXPECT_EQ(pa->type, 5);
  EXPECT_EQ(r->Find("nope"), nullptr);
}

// NVIDIA SHIELD TV (real, Android 10+): cut after "HAL connection:", PowerShell's trailing
// blanks and \r\n.
TEST(DumpsysThermalTest, ShieldTvTruncatedPowershellCapture) {
  auto r = ParseDumpsysThermal(ReadTestData("dumpsys_thermal/shield_tv_truncated_powershell_excerpt.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->thermal_status, 0);
  ASSERT_EQ(r->cached.size(), 5u);
  EXPECT_EQ(r->cached[4].name, "CPU3");
  EXPECT_DOUBLE_EQ(r->cached[4].value_c, 37.0);
  EXPECT_TRUE(r->from_hal.empty());
  EXPECT_EQ(r->skipped_lines, 0u);
  // Cached only: Find falls back to the cache.
  ASSERT_NE(r->Find("GPU"), nullptr);
  EXPECT_DOUBLE_EQ(r->Find("GPU")->value_c, 36.0);
}

// Android 14 form: AIDL HAL, thresholds, headroom array, SEVERE status, Java float forms.
TEST(DumpsysThermalTest, Android14SevereWithHeadroom) {
  auto r = ParseDumpsysThermal(ReadTestData("dumpsys_thermal/android14_aidl_hal_severe_headroom.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->thermal_status, static_cast<int>(ThermalStatus::kSevere));
  EXPECT_EQ(ThermalStatusName(r->thermal_status), "SEVERE");
  ASSERT_EQ(r->cached.size(), 3u);
  EXPECT_TRUE(std::isnan(r->cached[2].value_c));
  ASSERT_EQ(r->from_hal.size(), 3u);
  EXPECT_EQ(r->from_hal[1].name, "skin");
  EXPECT_EQ(r->from_hal[1].status, 3);
  EXPECT_DOUBLE_EQ(r->from_hal[2].value_c, 1.0E-4);
  // The HAL's reading wins over the cache's.
  EXPECT_DOUBLE_EQ(r->Find("battery")->value_c, 41.5);
  EXPECT_EQ(r->skipped_lines, 0u);
}

// Android 9: the native thermalservice prints nothing.
TEST(DumpsysThermalTest, Android9EmptyIsServiceMissing) {
  auto r = ParseDumpsysThermal(ReadTestData("dumpsys_thermal/android9_native_thermalservice_empty.txt"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ParseErrorCode::kServiceMissing);
  EXPECT_NE(r.error().message.find("Android 10"), std::string::npos);
}

TEST(DumpsysThermalTest, OtherErrors) {
  EXPECT_EQ(ParseDumpsysThermal("Can't find service: thermalservice\n").error().code,
            ParseErrorCode::kServiceMissing);
  EXPECT_EQ(ParseDumpsysThermal("Permission Denial: can't dump thermalservice\n").error().code,
            ParseErrorCode::kPermissionDenied);
  EXPECT_EQ(ParseDumpsysThermal("Current Battery Service state:\n  level: 5\n").error().code,
            ParseErrorCode::kNotThisFormat);
  // ThermalManagerService's lines but no status (cut short), or one out of range.
  EXPECT_EQ(ParseDumpsysThermal("IsStatusOverride: false\nThermalEventListeners:\n").error().code,
            ParseErrorCode::kMalformed);
  EXPECT_EQ(ParseDumpsysThermal("IsStatusOverride: false\nThermal Status: 7\n").error().code,
            ParseErrorCode::kMalformed);
}

TEST(DumpsysThermalTest, BadItemsAndUnknownLinesAreCounted) {
  auto r = ParseDumpsysThermal(
      "IsStatusOverride: true\n"
      "Thermal Status: 4\n"
      "Cached temperatures:\n"
      "\tTemperature{mValue=abc, mType=3, mName=skin, mStatus=0}\n"
      "\tTemperature{mValue=40.0, mType=3, mName=skin, with comma, mStatus=4}\n"
      "\tTemperature{mValue=40.0, mType=3, mName=x}\n"
      "Some vendor line\n"
      "\torphan item\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->is_status_override, true);
  EXPECT_EQ(r->thermal_status, 4);
  EXPECT_EQ(ThermalStatusName(r->thermal_status), "CRITICAL");
  ASSERT_EQ(r->cached.size(), 1u);
  EXPECT_EQ(r->cached[0].name, "skin, with comma");  // mName is free text
  EXPECT_EQ(r->cached[0].status, 4);
  EXPECT_EQ(r->skipped_lines, 4u);
}

TEST(DumpsysThermalTest, StatusNames) {
  const char* names[] = {"NONE", "LIGHT", "MODERATE", "SEVERE", "CRITICAL", "EMERGENCY",
                         "SHUTDOWN"};
  for (int i = 0; i <= 6; ++i) EXPECT_EQ(ThermalStatusName(i), names[i]);
  EXPECT_EQ(ThermalStatusName(-1), "UNKNOWN");
  EXPECT_EQ(ThermalStatusName(7), "UNKNOWN");
}

}  // namespace
}  // namespace droidlab::parsers
