// `dumpsys battery`: BatteryService.dumpInternal
// (frameworks/base/services/core/java/com/android/server/BatteryService.java), Android 6
// through AOSP main.
#include "parsers/dumpsys_battery.h"
#include "tests/common/test_data.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

struct BatteryCase {
  const char* name;
  const char* file;  // under tests/data/dumpsys_battery/
  bool updates_stopped;
  std::optional<bool> ac, usb, wireless, dock;
  std::optional<int> status;
  std::optional<int> level;
  std::optional<int> temperature_tenths_c;
  bool charging;
  uint64_t skipped_lines;
};

class DumpsysBatteryFileTest : public testing::TestWithParam<BatteryCase> {};

TEST_P(DumpsysBatteryFileTest, ParsesEveryLine) {
  const BatteryCase& c = GetParam();
  auto r = ParseDumpsysBattery(ReadTestData(std::string("dumpsys_battery/") + c.file));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->updates_stopped, c.updates_stopped);
  EXPECT_EQ(r->ac_powered, c.ac);
  EXPECT_EQ(r->usb_powered, c.usb);
  EXPECT_EQ(r->wireless_powered, c.wireless);
  EXPECT_EQ(r->dock_powered, c.dock);
  EXPECT_EQ(r->status, c.status);
  EXPECT_EQ(r->level, c.level);
  EXPECT_EQ(r->scale, 100);
  EXPECT_EQ(r->temperature_tenths_c, c.temperature_tenths_c);
  EXPECT_EQ(r->IsCharging(), c.charging);
  EXPECT_EQ(r->skipped_lines, c.skipped_lines);
  EXPECT_EQ(r->technology, "Li-ion");
  EXPECT_EQ(r->health, 2);
  EXPECT_EQ(r->present, true);
}

INSTANTIATE_TEST_SUITE_P(
    DumpsysBatteryVersions, DumpsysBatteryFileTest,
    testing::Values(
        // Android 7 (or late 6.0), Pixel C (real): AC powered, charging at 19 %.
        BatteryCase{"Android7PixelC", "android7_pixel_c_syzkaller_issue.txt", false, true,
                    false, false, std::nullopt, 2, 19, 275, true, 0},
        // Android 6 or earlier (real): no Max charging / Charge counter lines yet.
        BatteryCase{"Android6OrEarlier", "android6_or_earlier_appium_adb_issue.txt", false,
                    true, false, false, std::nullopt, 2, 89, 0, true, 0},
        // Samsung (real, Android <= 12): full (status 5) on USB is still "charging" for the
        // LooperStats gate; Samsung's 28 own lines are counted, not fatal.
        BatteryCase{"SamsungVendorLines", "samsung_vendor_lines_mcloud_issue.txt", false, false,
                    true, false, std::nullopt, 5, 100, 309, true, 28},
        // Android 14 after `dumpsys battery unplug`: forced values, Dock powered present.
        BatteryCase{"Android14Unplugged", "android14_unplugged_updates_stopped.txt", true, false,
                    false, false, false, 2, 71, 318, false, 0},
        // AOSP main: Charging state / Charging policy lines, \r\n line ends.
        BatteryCase{"AospMainChargingPolicyCrlf", "aosp_main_charging_policy_crlf.txt", false,
                    false, true, false, false, 5, 100, 296, true, 0}),
    [](const testing::TestParamInfo<BatteryCase>& param_info) {
      return std::string(param_info.param.name);
    });

TEST(DumpsysBatteryTest, Android7ChargeFields) {
  auto r = ParseDumpsysBattery(ReadTestData("dumpsys_battery/android7_pixel_c_syzkaller_issue.txt"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->max_charging_current_ua, 2400000);
  EXPECT_EQ(r->max_charging_voltage_uv, 5000000);
  EXPECT_EQ(r->charge_counter_uah, 0);
  EXPECT_EQ(r->voltage_mv, 3764);
  EXPECT_FALSE(r->charging_state.has_value());
}

TEST(DumpsysBatteryTest, AospMainChargingPolicy) {
  auto r = ParseDumpsysBattery(ReadTestData("dumpsys_battery/aosp_main_charging_policy_crlf.txt"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->charging_state, 2);
  EXPECT_EQ(r->charging_policy, 1);
}

TEST(DumpsysBatteryTest, WirelessOrDockAloneIsCharging) {
  auto wireless = ParseDumpsysBattery(
      "Current Battery Service state:\n  AC powered: false\n  USB powered: false\n"
      "  Wireless powered: true\n  level: 50\n");
  ASSERT_TRUE(wireless.ok());
  EXPECT_TRUE(wireless->IsCharging());
  auto dock = ParseDumpsysBattery(
      "Current Battery Service state:\n  AC powered: false\n  USB powered: false\n"
      "  Wireless powered: false\n  Dock powered: true\n");
  ASSERT_TRUE(dock.ok());
  EXPECT_TRUE(dock->IsCharging());
}

TEST(DumpsysBatteryTest, BadValuesAreCountedAndLeftUnset) {
  auto r = ParseDumpsysBattery(
      "Current Battery Service state:\n"
      "  AC powered: maybe\n"
      "  level: 5O\n"
      "  temperature: -52\n"
      "  no colon here\n"
      "  scale: 100\n");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->ac_powered.has_value());
  EXPECT_FALSE(r->level.has_value());
  EXPECT_EQ(r->temperature_tenths_c, -52);  // below freezing is a real reading
  EXPECT_EQ(r->scale, 100);
  EXPECT_EQ(r->skipped_lines, 3u);
  EXPECT_FALSE(r->IsCharging());
}

TEST(DumpsysBatteryTest, Errors) {
  EXPECT_EQ(ParseDumpsysBattery("").error().code, ParseErrorCode::kEmpty);
  EXPECT_EQ(ParseDumpsysBattery("\n  \n").error().code, ParseErrorCode::kEmpty);
  EXPECT_EQ(ParseDumpsysBattery("Can't find service: battery\n").error().code,
            ParseErrorCode::kServiceMissing);
  EXPECT_EQ(ParseDumpsysBattery("Permission Denial: can't dump Battery service from from "
                                "pid=1234, uid=10100 due to missing android.permission.DUMP "
                                "permission\n")
                .error()
                .code,
            ParseErrorCode::kPermissionDenied);
  // Keys without the header are another dump, not this one.
  auto r = ParseDumpsysBattery("  level: 50\n  scale: 100\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ParseErrorCode::kNotThisFormat);
  EXPECT_FALSE(r.error().message.empty());
}

}  // namespace
}  // namespace droidlab::parsers
