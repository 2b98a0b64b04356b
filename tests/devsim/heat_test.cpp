// devsim's heat (HeatSpec, issue 14 §3): cold starts warm the phone, which cools with a
// half-life; `dumpsys battery` (BatteryService: "temperature: N", tenths of °C) and `dumpsys
// thermalservice` ("Thermal Status: N", Android 10+'s ThermalManagerService) follow, a frozen
// battery (`dumpsys battery unplug`) does not, and hot launches are slower.
#include <gtest/gtest.h>

#include <string>

#include "parsers/am_start.h"
#include "parsers/dumpsys_battery.h"
#include "parsers/dumpsys_thermal.h"
#include "tests/devsim/pinned_clock_phone.h"

namespace droidlab::devsim {
namespace {

using std::chrono::seconds;

class HeatTest : public PinnedClockPhoneTest {
 protected:
  void Start(HeatSpec heat) {
    Scenario scenario = DefaultScenario();  // a Pixel 7 on Android 13, battery 28.5 °C
    scenario.heat = heat;
    scenario.packages[0].cold = {200, 0};  // every cold launch 200 ms when cool
    MakePhone(scenario);
  }
  int BatteryTenths() {
    auto b = parsers::ParseDumpsysBattery(Sh("dumpsys battery").Stdout());
    EXPECT_TRUE(b.ok() && b->temperature_tenths_c);
    return b.ok() && b->temperature_tenths_c ? *b->temperature_tenths_c : -1;
  }
  int Thermal() {
    auto t = parsers::ParseDumpsysThermal(Sh("dumpsys thermalservice").Stdout());
    EXPECT_TRUE(t.ok());
    return t.ok() ? t->thermal_status : -1;
  }
  int64_t ColdLaunchMs() {
    Sh("am force-stop com.example.app");
    auto r = parsers::ParseAmStart(Sh("am start -W -n com.example.app/.MainActivity").Stdout());
    EXPECT_TRUE(r.ok() && r->total_time_ms);
    return r.ok() && r->total_time_ms ? *r->total_time_ms : -1;
  }
};

TEST_F(HeatTest, NoHeatSpecNothingChanges) {
  Start(HeatSpec{});
  EXPECT_EQ(BatteryTenths(), 285);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(ColdLaunchMs(), 200);
  EXPECT_EQ(BatteryTenths(), 285);
  EXPECT_EQ(Thermal(), 0);
}

TEST_F(HeatTest, ColdStartsWarmThePhoneAndSlowTheNextLaunches) {
  Start(HeatSpec{3.0, 0, 600, 10});
  EXPECT_EQ(ColdLaunchMs(), 200);  // 28.5 °C
  EXPECT_EQ(BatteryTenths(), 315);
  ColdLaunchMs();  // 31.5
  ColdLaunchMs();  // 34.5
  ColdLaunchMs();  // 37.5
  EXPECT_EQ(BatteryTenths(), 405);
  EXPECT_EQ(Thermal(), 1);  // LIGHT from 40 °C
  // 40.5 °C: 2.5 °C over 38 at 10 % per °C.
  EXPECT_EQ(ColdLaunchMs(), 250);
  ColdLaunchMs();
  EXPECT_EQ(BatteryTenths(), 465);
  EXPECT_EQ(Thermal(), 3);  // SEVERE from 46 °C
}

TEST_F(HeatTest, ThePhoneCoolsWithItsHalfLife) {
  Start(HeatSpec{0, 16.0, 10, 0});
  EXPECT_EQ(BatteryTenths(), 445);
  EXPECT_EQ(Thermal(), 2);
  Pass(seconds(10));
  EXPECT_EQ(BatteryTenths(), 365);
  Pass(seconds(20));
  EXPECT_EQ(BatteryTenths(), 305);
  EXPECT_EQ(Thermal(), 0);
}

// `dumpsys battery unplug` stops BatteryService's updates: the temperature is frozen too, until
// `dumpsys battery reset`.
TEST_F(HeatTest, AnUnpluggedBatteryIsFrozen) {
  Start(HeatSpec{5.0, 0, 600, 0});
  Sh("dumpsys battery unplug");
  ColdLaunchMs();
  ColdLaunchMs();
  EXPECT_EQ(BatteryTenths(), 285);
  Sh("dumpsys battery reset");
  EXPECT_EQ(BatteryTenths(), 385);
}

}  // namespace
}  // namespace droidlab::devsim
