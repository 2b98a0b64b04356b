// Service strings of packages/modules/adb SERVICES.TXT and client/adb_client.cpp, exact bytes.
#include "adb/services.h"

#include <gtest/gtest.h>

namespace droidlab::adb {
namespace {

Serial S(std::string_view text) { return std::move(Serial::Parse(text)).value(); }

TEST(ServicesTest, HostServicesExactBytes) {
  EXPECT_EQ(EncodeRequest(HostVersion()), "000chost:version");
  EXPECT_EQ(EncodeRequest(HostDevices()), "000chost:devices");
  EXPECT_EQ(EncodeRequest(HostDevicesLong()), "000ehost:devices-l");
  EXPECT_EQ(EncodeRequest(HostTrackDevices()), "0012host:track-devices");
  EXPECT_EQ(EncodeRequest(HostTrackDevicesLong()), "0014host:track-devices-l");
  EXPECT_EQ(EncodeRequest(HostFeatures()), "000dhost:features");
}

TEST(ServicesTest, DeviceSelection) {
  EXPECT_EQ(HostTransport(S("emulator-5554")).str(), "host:transport:emulator-5554");
  EXPECT_EQ(EncodeRequest(HostTransport(S("127.0.0.1:5555"))), "001dhost:transport:127.0.0.1:5555");
  EXPECT_EQ(HostTportSerial(S("R58M123ABC")).str(), "host:tport:serial:R58M123ABC");
  EXPECT_EQ(HostTransportId(3).str(), "host:transport-id:3");
  EXPECT_EQ(HostSerialFeatures(S("emulator-5554")).str(), "host-serial:emulator-5554:features");
}

// The recovery ladder's services, as adb's own client sends them (client/commandline.cpp:
// `adb -s S reconnect` is format_host_command("reconnect"), `adb connect` host:connect:,
// `adb reconnect device` opens "reconnect" on the device, `adb reboot` "reboot:").
TEST(ServicesTest, RecoveryLadderServices) {
  EXPECT_EQ(HostSerialReconnect(S("R58M123ABC")).str(), "host-serial:R58M123ABC:reconnect");
  EXPECT_EQ(HostConnect(S("127.0.0.1:5555")).str(), "host:connect:127.0.0.1:5555");
  EXPECT_EQ(DeviceReconnect().str(), "reconnect");
  EXPECT_EQ(Reboot().str(), "reboot:");
}

// client/commandline.cpp ShellServiceString: "shell" + ",v2,raw" + ":" + command.
TEST(ServicesTest, Shell) {
  auto cmd = BuildShellCommand({"echo", "hi there"});
  ASSERT_TRUE(cmd);
  auto v2 = ShellV2Raw(*cmd);
  ASSERT_TRUE(v2);
  EXPECT_EQ(v2->str(), "shell,v2,raw:echo 'hi there'");
  EXPECT_EQ(EncodeRequest(*v2), "001cshell,v2,raw:echo 'hi there'");
  auto v1 = ShellV1(*cmd);
  ASSERT_TRUE(v1);
  EXPECT_EQ(v1->str(), "shell:echo 'hi there'");
}

TEST(ServicesTest, ShellTooLongForOneRequest) {
  std::string big(0xffff, 'a');
  auto cmd = BuildShellCommand({"echo", big});
  ASSERT_TRUE(cmd);
  auto v2 = ShellV2Raw(*cmd);
  ASSERT_FALSE(v2);
  EXPECT_EQ(v2.error().code, AdbErrc::kInvalidArgument);
  // The largest that fits.
  auto fits = BuildShellCommand({std::string(0xffff - 13, 'a')});
  ASSERT_TRUE(fits);
  auto ok = ShellV2Raw(*fits);
  ASSERT_TRUE(ok);
  EXPECT_EQ(EncodeRequest(*ok).substr(0, 4), "ffff");
}

}  // namespace
}  // namespace droidlab::adb
