// The executor's pure pieces: DeviceClock's boot clock and ticks, CPU % / rss from two
// /proc/PID/stat reads (proc(5)), and the looper_stats value to put (KeyValueListParser format,
// LooperStatsService's keys). The device outputs themselves are read in parsers/
// (tests/parsers/boot_clock_test.cpp, getconf_test.cpp).
#include <gtest/gtest.h>

#include "orchestrator/run/device_clock.h"
#include "orchestrator/run/looper_session.h"
#include "orchestrator/run/proc_sampler.h"

namespace droidlab::orchestrator {
namespace {

TEST(DeviceClockTest, BootClockAndTicks) {
  DeviceClock clock;
  clock.realtime_at_boot_ms = 1'000'000;
  EXPECT_EQ(clock.ToBootMs(1'003'500), 3500);
  EXPECT_EQ(clock.TicksToMs(360'412), 3'604'120);  // 100 Hz
  clock.clk_tck = 250;
  EXPECT_EQ(clock.TicksToMs(1000), 4000);
}

TEST(ProcSampleTest, CpuPercentFromTickDeltasOverWallTime) {
  DeviceClock clock;  // 100 Hz, 4 KiB pages
  ProcReading first{4300, 10'000, 150, 40, 38'000, 31};
  ProcReading second{4300, 10'500, 170, 45, 38'100, 33};
  const store::ProcSample s0 = MakeProcSample(7, 0, first, std::nullopt, clock);
  EXPECT_FALSE(s0.cpu_pct);
  EXPECT_EQ(s0.rss_kb, 152'000);
  const store::ProcSample s1 = MakeProcSample(7, 500, second, first, clock);
  ASSERT_TRUE(s1.cpu_pct);
  // 25 ticks = 0.25 s of CPU over 0.5 s of wall time.
  EXPECT_DOUBLE_EQ(*s1.cpu_pct, 50.0);
  EXPECT_EQ(s1.utime, 170);
  EXPECT_EQ(s1.stime, 45);
  EXPECT_EQ(s1.num_threads, 33);
  EXPECT_EQ(s1.run_id, 7);
  EXPECT_EQ(s1.t_ms, 500);
  // Another pid (a new cold process): no delta across processes.
  ProcReading other{4400, 11'000, 10, 5, 30'000, 20};
  EXPECT_FALSE(MakeProcSample(7, 1000, other, second, clock).cpu_pct);
}

TEST(LooperSettingTest, KeepsOtherKeysAndSetsOurs) {
  parsers::SettingsValue unset;
  EXPECT_EQ(LooperSettingValue(unset, 10),
            "enabled=true,sampling_interval=10,ignore_battery_status=true");
  parsers::SettingsValue previous{"sampling_interval=7,track_screen_state=false,enabled=false"};
  EXPECT_EQ(LooperSettingValue(previous, 1),
            "sampling_interval=1,track_screen_state=false,enabled=true,ignore_battery_status=true");
  parsers::SettingsValue malformed{"junk,sampling_interval=3"};
  EXPECT_EQ(LooperSettingValue(malformed, 5),
            "sampling_interval=5,enabled=true,ignore_battery_status=true");
}

}  // namespace
}  // namespace droidlab::orchestrator
