#include "adb/error.h"

#include <gtest/gtest.h>

namespace droidlab::adb {
namespace {

struct FailTextCase {
  const char* name;
  const char* text;
  AdbErrc code;
};

class ClassifyFailTextTest : public ::testing::TestWithParam<FailTextCase> {};

TEST_P(ClassifyFailTextTest, KeepsTextAndClassifies) {
  AdbError e = ClassifyFailText(GetParam().text);
  EXPECT_EQ(e.code, GetParam().code) << GetParam().text;
  EXPECT_EQ(e.message, GetParam().text);
}

// Texts from packages/modules/adb (adb 34): transport.cpp acquire_one_transport, sockets.cpp
// (smart_socket_enqueue, local_socket_close), adb.cpp handle_host_request, diagnose_usb.cpp.
INSTANTIATE_TEST_SUITE_P(
    AdbTexts, ClassifyFailTextTest,
    ::testing::Values(
        FailTextCase{"NotFound", "device 'R58M123ABC' not found", AdbErrc::kDeviceNotFound},
        FailTextCase{"NotFoundTcp", "device '127.0.0.1:5555' not found", AdbErrc::kDeviceNotFound},
        FailTextCase{"NotFoundQuoteInSerial", "device 'a'b' not found", AdbErrc::kDeviceNotFound},
        FailTextCase{"NoDevices", "no devices/emulators found", AdbErrc::kDeviceNotFound},
        FailTextCase{"NoUsbDevices", "no devices found", AdbErrc::kDeviceNotFound},
        FailTextCase{"NoEmulators", "no emulators found", AdbErrc::kDeviceNotFound},
        FailTextCase{"NoTransportId", "no device with transport id '7'", AdbErrc::kDeviceNotFound},
        FailTextCase{"Offline", "device offline", AdbErrc::kDeviceOffline},
        FailTextCase{"OfflineNoTransport", "device offline (no transport)",
                     AdbErrc::kDeviceOffline},
        FailTextCase{"OfflineTransport", "device offline (transport offline)",
                     AdbErrc::kDeviceOffline},
        FailTextCase{"Connecting", "device still connecting", AdbErrc::kDeviceOffline},
        FailTextCase{"Authorizing", "device still authorizing", AdbErrc::kDeviceOffline},
        FailTextCase{"Unauthorized",
                     "device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\nTry "
                     "'adb kill-server' if that seems wrong.\nOtherwise check for a confirmation "
                     "dialog on your device.",
                     AdbErrc::kDeviceUnauthorized},
        FailTextCase{"NoPermissions",
                     "insufficient permissions for device: user in plugdev group; are your udev "
                     "rules wrong?\nSee [http://developer.android.com/tools/device.html] for more "
                     "information",
                     AdbErrc::kDeviceUnauthorized},
        FailTextCase{"Ambiguous", "more than one device/emulator", AdbErrc::kInvalidArgument},
        FailTextCase{"AmbiguousSerial", "more than one device with serial 1234",
                     AdbErrc::kInvalidArgument},
        FailTextCase{"Closed", "closed", AdbErrc::kRejected},
        FailTextCase{"UnknownHostService", "unknown host service 'host:frobnicate'",
                     AdbErrc::kRejected},
        FailTextCase{"Empty", "", AdbErrc::kRejected},
        FailTextCase{"NotFoundPrefixOnly", "device '", AdbErrc::kRejected}),
    [](const ::testing::TestParamInfo<FailTextCase>& param_info) {
      return std::string(param_info.param.name);
    });

TEST(ErrcNameTest, StableNames) {
  EXPECT_EQ(ErrcName(AdbErrc::kServerUnreachable), "server_unreachable");
  EXPECT_EQ(ErrcName(AdbErrc::kDeviceUnauthorized), "device_unauthorized");
  EXPECT_EQ(ErrcName(AdbErrc::kCancelled), "cancelled");
}

TEST(ResultTest, ValueAndError) {
  Result<int> ok = 3;
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, 3);
  Result<int> bad = MakeError(AdbErrc::kTimeout, "deadline passed");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, AdbErrc::kTimeout);
  Result<void> done;
  EXPECT_TRUE(done);
  Result<void> failed = MakeError(AdbErrc::kCancelled, "stop");
  EXPECT_FALSE(failed);
  EXPECT_EQ(failed.error().message, "stop");
}

}  // namespace
}  // namespace droidlab::adb
