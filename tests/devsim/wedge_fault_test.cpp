// `devsim-fault wedge UNTIL`: a phone that stops answering — every command but devsim-fault
// prints nothing and never ends — until the recovery ladder's rung UNTIL names (issue 17 §3,
// orchestrator/lab/device_recovery.h): a new connection from the host ("transport"), adbd's
// `reconnect` service ("device", packages/modules/adb/daemon/services.cpp reconnect_service), a
// reboot ("reboot"), or nothing ("never"). A higher rung clears the lower wedges too.
#include <gtest/gtest.h>

#include "tests/devsim/pinned_clock_phone.h"

namespace droidlab::devsim {
namespace {

using std::chrono::milliseconds;

class WedgeFaultTest : public PinnedClockPhoneTest {
 protected:
  void SetUp() override { MakePhone(DefaultScenario()); }
  bool Answers() { return !Sh("cat /proc/uptime").hang; }
};

TEST_F(WedgeFaultTest, AWedgedPhoneHangsEveryCommandButDevsimFault) {
  ASSERT_TRUE(Answers());
  const CommandOutput wedged = Sh("devsim-fault wedge transport");
  EXPECT_EQ(wedged.exit_code, 0);
  EXPECT_EQ(wedged.Stdout(), "wedged until transport\n");
  EXPECT_FALSE(Answers());
  EXPECT_TRUE(Sh("dumpsys battery").hang);
  EXPECT_TRUE(Sh("getprop ro.product.model").hang);
  EXPECT_FALSE(Sh("devsim-fault list").hang) << "the test's own channel must still work";
}

TEST_F(WedgeFaultTest, EachWedgeIsClearedByItsRungAndTheOnesAbove) {
  ASSERT_EQ(Sh("devsim-fault wedge transport").exit_code, 0);
  android_->TransportConnected();
  EXPECT_TRUE(Answers()) << "a new connection clears a host-side wedge";

  ASSERT_EQ(Sh("devsim-fault wedge device").exit_code, 0);
  android_->TransportConnected();
  EXPECT_FALSE(Answers()) << "a new connection does not clear adbd's";
  android_->AdbdReconnect();
  EXPECT_TRUE(Answers());

  ASSERT_EQ(Sh("devsim-fault wedge transport").exit_code, 0);
  android_->AdbdReconnect();
  EXPECT_TRUE(Answers()) << "adbd's reconnect also makes a new connection";

  ASSERT_EQ(Sh("devsim-fault wedge reboot").exit_code, 0);
  android_->TransportConnected();
  android_->AdbdReconnect();
  EXPECT_FALSE(Answers());
  ASSERT_EQ(Sh("devsim-fault reboot 100 100").exit_code, 0);
  Pass(milliseconds(300));
  EXPECT_TRUE(Answers()) << "a reboot clears it";
}

TEST_F(WedgeFaultTest, NeverIsClearedOnlyByTheTest) {
  ASSERT_EQ(Sh("devsim-fault wedge never").exit_code, 0);
  android_->TransportConnected();
  android_->AdbdReconnect();
  ASSERT_EQ(Sh("devsim-fault reboot 100 100").exit_code, 0);
  Pass(milliseconds(300));
  EXPECT_FALSE(Answers()) << "a phone whose flash is gone stays gone after a reboot";
  ASSERT_EQ(Sh("devsim-fault clear").exit_code, 0);
  EXPECT_TRUE(Answers());
}

TEST_F(WedgeFaultTest, AnUnknownRungIsAUsageError) {
  const CommandOutput bad = Sh("devsim-fault wedge forever");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.Stderr().find("wedge transport|device|reboot|never"), std::string::npos)
      << bad.Stderr();
  EXPECT_EQ(Sh("devsim-fault wedge").exit_code, 2);
  EXPECT_TRUE(Answers());
}

}  // namespace
}  // namespace droidlab::devsim
