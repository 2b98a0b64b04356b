// The device facts from `getprop` (system/core/toolbox/getprop.cpp), as the registry and the
// preflight both read them.
#include "parsers/device_properties.h"

#include <gtest/gtest.h>

#include "tests/common/test_data.h"

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

// Android 11 (vivo V2026).
TEST(DevicePropertiesTest, Android11Vivo) {
  auto r = ParseDeviceProperties(ReadTestData("getprop/android11_vivo_v2026_excerpt.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->model, "V2026");
  EXPECT_EQ(r->manufacturer, "vivo");
  EXPECT_EQ(r->sdk, 30);
  EXPECT_EQ(r->release, "11");
  EXPECT_EQ(r->abi, "arm64-v8a");
  EXPECT_EQ(r->fingerprint,
            "vivo/PD2026F_EX_A/PD2026F:11/RP1A.200720.012/15.40.47:user/release-keys");
  EXPECT_FALSE(r->serialno);  // not in the excerpt
}

// Android 14 over a pty, with a multi-line value before the SDK.
TEST(DevicePropertiesTest, Android14PtyMultiLine) {
  auto r = ParseDeviceProperties(ReadTestData("getprop/android14_multiline_boot_reason_pty.txt"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->sdk, 34);
  EXPECT_FALSE(r->model);
}

TEST(DevicePropertiesTest, EmptyOrNonNumericValuesAreAbsent) {
  auto r = ParseDeviceProperties(
      "[ro.build.version.sdk]: [S]\n[ro.product.model]: []\n[ro.serialno]: [emulator-5554]\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->sdk);    // not a number
  EXPECT_FALSE(r->model);  // empty means unset
  EXPECT_EQ(r->serialno, "emulator-5554");
  auto padded = ParseDeviceProperties("[ro.build.version.sdk]: [ 33]\n");
  ASSERT_TRUE(padded.ok());
  EXPECT_FALSE(padded->sdk);
}

TEST(DevicePropertiesTest, NotGetpropOutput) {
  auto r = ParseDeviceProperties("sh: getprop: not found\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ParseErrorCode::kNotThisFormat);
}

}  // namespace
}  // namespace droidlab::parsers
