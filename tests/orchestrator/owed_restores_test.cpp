// OwedRestores: the bookkeeping of looper_stats settings owed by unplugged devices (the paying
// itself runs against devsim in tests/e2e/run_executor_e2e_test.cpp and serve_e2e_test.cpp).
#include "orchestrator/run/owed_restores.h"

#include <gtest/gtest.h>

namespace droidlab::orchestrator {
namespace {

LooperSession SessionWithPrevious(const std::string& value) {
  LooperSession s;
  s.previous_read = true;
  s.previous.value = value;
  s.value = "enabled=true,sampling_interval=1";
  return s;
}

TEST(OwedRestoresTest, TakeHandsTheDebtToOnePayerAtATime) {
  OwedRestores owed;
  EXPECT_FALSE(owed.Owes("A"));
  owed.Add("A", SessionWithPrevious("sampling_interval=7"));
  EXPECT_TRUE(owed.Owes("A"));
  EXPECT_FALSE(owed.Owes("B"));
  bool busy = true;
  auto taken = owed.Take("A", &busy);
  ASSERT_TRUE(taken);
  EXPECT_FALSE(busy);
  EXPECT_EQ(taken->previous.value, "sampling_interval=7");
  // While it is being paid, nobody else gets it, and the device still owes.
  auto second = owed.Take("A", &busy);
  EXPECT_FALSE(second);
  EXPECT_TRUE(busy);
  EXPECT_TRUE(owed.Owes("A"));
  owed.Release("A", std::nullopt);
  EXPECT_FALSE(owed.Owes("A"));
  EXPECT_FALSE(owed.Take("A", &busy));
  EXPECT_FALSE(busy);
  EXPECT_EQ(owed.size(), 0u);
}

TEST(OwedRestoresTest, AFailedPaymentPutsTheDebtBack) {
  OwedRestores owed;
  owed.Add("A", SessionWithPrevious("x=1"));
  auto taken = owed.Take("A");
  ASSERT_TRUE(taken);
  owed.Release("A", taken);
  EXPECT_TRUE(owed.Owes("A"));
  auto again = owed.Take("A");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->previous.value, "x=1");
}

// A second run that also could not restore saw the first run's value as "previous": the
// device's own setting is the first debt's.
TEST(OwedRestoresTest, TheFirstDebtHoldsTheDevicesOwnSetting) {
  OwedRestores owed;
  owed.Add("A", SessionWithPrevious("device's own"));
  owed.Add("A", SessionWithPrevious("enabled=true,sampling_interval=1"));
  auto taken = owed.Take("A");
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->previous.value, "device's own");
  owed.Release("A", std::nullopt);
  EXPECT_EQ(owed.size(), 0u);
}

}  // namespace
}  // namespace droidlab::orchestrator
