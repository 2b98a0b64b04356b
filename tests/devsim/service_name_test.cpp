#include "tools/devsim/service_name.h"

#include <gtest/gtest.h>

namespace droidlab::devsim {
namespace {

using namespace std::string_literals;

TEST(ServiceNameTest, ShellV1IsRawWithoutProtocol) {
  const auto request = ParseShellService("shell:getprop ro.product.model\0"s);
  ASSERT_TRUE(request);
  EXPECT_FALSE(request->shell_protocol);
  EXPECT_FALSE(request->pty);
  EXPECT_EQ(request->command, "getprop ro.product.model");
}

TEST(ServiceNameTest, ShellV2Raw) {
  const auto request = ParseShellService("shell,v2,raw:exit 3");
  ASSERT_TRUE(request);
  EXPECT_TRUE(request->shell_protocol);
  EXPECT_FALSE(request->pty);
  EXPECT_EQ(request->command, "exit 3");
}

TEST(ServiceNameTest, WhatAdbLogcatSends) {
  const auto request =
      ParseShellService("shell,v2,TERM=xterm:export ANDROID_LOG_TAGS=\"''\"; exec logcat -d");
  ASSERT_TRUE(request);
  EXPECT_TRUE(request->shell_protocol);
  EXPECT_FALSE(request->pty);  // adbd: raw when a command is given and no type is
  EXPECT_EQ(request->term, "xterm");
  EXPECT_EQ(request->command, "export ANDROID_LOG_TAGS=\"''\"; exec logcat -d");
}

TEST(ServiceNameTest, CommandMayContainColonsAndCommas) {
  const auto request = ParseShellService("shell,v2,pty:echo a:b,c");
  ASSERT_TRUE(request);
  EXPECT_TRUE(request->pty);
  EXPECT_EQ(request->command, "echo a:b,c");
}

TEST(ServiceNameTest, EmptyCommandIsInteractivePty) {
  const auto request = ParseShellService("shell,v2,TERM=xterm-256color:");
  ASSERT_TRUE(request);
  EXPECT_TRUE(request->pty);
  EXPECT_TRUE(request->command.empty());
}

TEST(ServiceNameTest, OtherServicesAreNotShell) {
  EXPECT_FALSE(ParseShellService("sync:"));
  EXPECT_FALSE(ParseShellService("shellfoo:x"));
  EXPECT_FALSE(ParseShellService("reverse:list-forward"));
}

// adbd's services that take the transport down (packages/modules/adb/daemon/services.cpp):
// "reconnect" exactly (`adb reconnect device` sends it NUL-terminated), "reboot:" with or
// without a target (`adb reboot`, `adb reboot bootloader`).
TEST(ServiceNameTest, AdbdReconnectAndRebootServices) {
  EXPECT_EQ(ParseAdbdService(std::string_view("reconnect\0", 10)), AdbdService::kReconnect);
  EXPECT_EQ(ParseAdbdService("reconnect"), AdbdService::kReconnect);
  EXPECT_EQ(ParseAdbdService("reboot:"), AdbdService::kReboot);
  EXPECT_EQ(ParseAdbdService("reboot:bootloader"), AdbdService::kReboot);
  EXPECT_EQ(ParseAdbdService("reconnect-offline"), AdbdService::kNone);
  EXPECT_EQ(ParseAdbdService("reboot"), AdbdService::kNone);
  EXPECT_EQ(ParseAdbdService("shell:reboot"), AdbdService::kNone);
}

}  // namespace
}  // namespace droidlab::devsim
