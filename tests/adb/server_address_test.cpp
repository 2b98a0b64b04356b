// Where the adb server is, as adb's client decides it: option, ADB_SERVER_SOCKET,
// ANDROID_ADB_SERVER_PORT, 5037 (packages/modules/adb client/main.cpp).
#include "adb/server_address.h"

#include <gtest/gtest.h>

namespace droidlab::adb {
namespace {

struct AddressCase {
  std::string name;
  std::optional<std::string_view> option, socket_env, port_env;
  std::string expected;  // ToString(), or "error"
};

class ServerAddressTest : public ::testing::TestWithParam<AddressCase> {};

TEST_P(ServerAddressTest, Resolves) {
  const AddressCase& c = GetParam();
  auto address = ResolveServerAddress(c.option, c.socket_env, c.port_env);
  if (c.expected == "error") {
    ASSERT_FALSE(address.ok()) << address->ToString();
    EXPECT_EQ(address.error().code, AdbErrc::kInvalidArgument);
  } else {
    ASSERT_TRUE(address.ok()) << address.error().message;
    EXPECT_EQ(address->ToString(), c.expected);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ServerAddressTest,
    ::testing::Values(
        AddressCase{"Default", {}, {}, {}, "127.0.0.1:5037"},
        AddressCase{"EmptyValuesAreUnset", "", "", "", "127.0.0.1:5037"},
        AddressCase{"PortEnv", {}, {}, "15037", "127.0.0.1:15037"},
        AddressCase{"SocketEnv", {}, "tcp:labhost:5038", "15037", "labhost:5038"},
        AddressCase{"SocketEnvPortOnly", {}, "tcp:5039", {}, "127.0.0.1:5039"},
        AddressCase{"SocketEnvV6", {}, "tcp:[::1]:5040", {}, "[::1]:5040"},
        AddressCase{"OptionWins", "10.0.0.2:7000", "tcp:labhost:5038", "15037", "10.0.0.2:7000"},
        AddressCase{"OptionTcpForm", "tcp:localhost:7001", {}, {}, "localhost:7001"},
        AddressCase{"OptionBarePort", "7002", {}, {}, "127.0.0.1:7002"},
        AddressCase{"SocketEnvNotTcp", {}, "localfilesystem:/tmp/adb", {}, "error"},
        AddressCase{"PortEnvNotANumber", {}, {}, "50x", "error"},
        AddressCase{"PortZero", "127.0.0.1:0", {}, {}, "error"},
        AddressCase{"PortTooBig", {}, "tcp:h:65536", {}, "error"},
        AddressCase{"UnbracketedV6", "::1:5037", {}, {}, "error"},
        AddressCase{"BadHostByte", "host;rm:5037", {}, {}, "error"},
        AddressCase{"EmptyHost", ":5037", {}, {}, "error"}),
    [](const auto& test) { return test.param.name; });

TEST(ServerAddressLocalTest, OnlyLoopbackIsLocal) {
  EXPECT_TRUE((ServerAddress{"127.0.0.1", 5037}).IsLocal());
  EXPECT_TRUE((ServerAddress{"localhost", 5037}).IsLocal());
  EXPECT_TRUE((ServerAddress{"::1", 5037}).IsLocal());
  EXPECT_FALSE((ServerAddress{"10.0.0.2", 5037}).IsLocal());
  EXPECT_FALSE((ServerAddress{"labhost", 5037}).IsLocal());
}

}  // namespace
}  // namespace droidlab::adb
