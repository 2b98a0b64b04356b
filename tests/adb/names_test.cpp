#include "adb/names.h"

#include <gtest/gtest.h>

#include <string>

namespace droidlab::adb {
namespace {

using namespace std::literals;

// Attempts to get shell syntax, paths or odd bytes into a name. Every grammar refuses each.
const std::string kInjections[] = {
    "com.x; reboot",
    "com.x;reboot",
    "$(reboot)",
    "com.x$(reboot)",
    "com.x`reboot`",
    "`reboot`",
    "com.x\nreboot",
    "com.x\rreboot",
    "com.x'",
    "com.x\"",
    "com.x && reboot",
    "com.x|reboot",
    "com.x>/sdcard/x",
    "com.x<in",
    "com.x&",
    "com.x\\n",
    "com.x*",
    "com.x?",
    "com.x[a]",
    "com.x{a,b}",
    "~root",
    "com.x#c",
    "com.x reboot",
    "com.x\treboot",
    "com.é",           // UTF-8 é
    "com.x\u202e",     // right-to-left override
    "com.x\0reboot"s,  // NUL
    "com.x\x1b[2J",    // escape sequence
    "../../etc/passwd",
    "/data/local/tmp",
    "",
};

TEST(NamesTest, InjectionsRefusedByEveryGrammar) {
  for (const std::string& text : kInjections) {
    auto serial = Serial::Parse(text);
    EXPECT_FALSE(serial) << "serial: " << text;
    if (!serial) {
      EXPECT_EQ(serial.error().code, AdbErrc::kInvalidArgument);
    }
    EXPECT_FALSE(PackageName::Parse(text)) << "package: " << text;
    EXPECT_FALSE(ComponentName::Parse(text)) << "component: " << text;
    EXPECT_FALSE(ComponentName::Parse("com.x/" + text)) << "component class: " << text;
    EXPECT_FALSE(ComponentName::Parse(text + "/.Main")) << "component package: " << text;
  }
}

TEST(SerialTest, RealSerials) {
  for (std::string_view s : {"emulator-5554", "127.0.0.1:5555", "R58M123ABC",
                             "adb-R58M123ABC-AbCdEf._adb-tls-connect._tcp", "0123456789ABCDEF",
                             "192.168.1.20:37157", "localhost:7001"}) {
    auto serial = Serial::Parse(s);
    ASSERT_TRUE(serial) << s << ": " << serial.error().message;
    EXPECT_EQ(serial->str(), s);
  }
}

TEST(SerialTest, MessagesNameTheByteSafely) {
  auto bad = Serial::Parse("abc;def");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "serial 'abc;def' has a bad byte ';' at 3");
  auto nl = Serial::Parse("abc\nrm");
  ASSERT_FALSE(nl);
  EXPECT_EQ(nl.error().message, "serial 'abc?rm' has a bad byte 0x0a at 3");
}

TEST(SerialTest, Length) {
  EXPECT_TRUE(Serial::Parse(std::string(255, 'a')));
  EXPECT_FALSE(Serial::Parse(std::string(256, 'a')));
}

TEST(SerialTest, SlashRefused) {
  EXPECT_FALSE(Serial::Parse("../x"));
  EXPECT_FALSE(Serial::Parse("a/b"));
  EXPECT_FALSE(Serial::Parse("[::1]:5555"));  // IPv6 not accepted yet (names.h)
}

// FrameworkParsingPackageUtils.validateName(name, requireSeparator=true, requireFilename=true).
TEST(PackageNameTest, Valid) {
  for (std::string_view s : {"com.example.app", "com.android.settings", "a.b", "com.x_y.z9",
                             "com.Example.App", "org.chromium.chrome", "A.B_"}) {
    auto p = PackageName::Parse(s);
    EXPECT_TRUE(p) << s << ": " << p.error().message;
  }
}

TEST(PackageNameTest, Invalid) {
  for (std::string_view s : {"android",   // one segment
                             "com",       // one segment
                             "com.9app",  // a segment starts with a digit
                             "com._app",  // ... or '_'
                             "_com.app",  //
                             "com..app",  // empty segment (validateName lets it pass)
                             ".com.app", "com.app.", "com-x.app", "com.x$y", "com.x/y"}) {
    auto p = PackageName::Parse(s);
    EXPECT_FALSE(p) << s;
  }
  EXPECT_EQ(PackageName::Parse("com").error().message,
            "package name 'com' must have at least one '.' separator");
  EXPECT_EQ(PackageName::Parse("com.x; reboot").error().message,
            "package name 'com.x; reboot' has a bad byte ';' at 5");
  EXPECT_EQ(PackageName::Parse("com.9").error().message,
            "package name 'com.9' has a bad byte '9' at 4 (a segment must start with a letter)");
}

TEST(PackageNameTest, Length223) {
  std::string name = "com." + std::string(219, 'a');
  EXPECT_EQ(name.size(), 223u);
  EXPECT_TRUE(PackageName::Parse(name));
  EXPECT_FALSE(PackageName::Parse(name + "a"));
}

TEST(ComponentNameTest, ShortForm) {
  auto c = ComponentName::Parse("com.example.app/.MainActivity");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->package().str(), "com.example.app");
  EXPECT_EQ(c->class_name(), ".MainActivity");
  EXPECT_EQ(c->FullClassName(), "com.example.app.MainActivity");
  EXPECT_EQ(c->str(), "com.example.app/.MainActivity");
}

TEST(ComponentNameTest, FullAndBareAndNested) {
  auto full = ComponentName::Parse("com.android.settings/com.android.settings.Settings");
  ASSERT_TRUE(full);
  EXPECT_EQ(full->FullClassName(), "com.android.settings.Settings");
  auto other = ComponentName::Parse("com.example.app/org.lib.Shim$Inner");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->FullClassName(), "org.lib.Shim$Inner");
  auto bare = ComponentName::Parse("com.example.app/Main");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->FullClassName(), "Main");
  EXPECT_TRUE(ComponentName::Parse("com.example.app/.ui.Main$1"));
  EXPECT_TRUE(ComponentName::Parse("com.example.app/._Hidden"));
}

TEST(ComponentNameTest, Invalid) {
  for (std::string_view s :
       {"com.example.app", "com.example.app/", "com.example.app/.", "com.example.app/..Main",
        "com.example.app/.Main.", "/.Main", "com.example.app/.9Main", "com.example.app/.Main/x",
        "com.example.app/.Ma in", "com.example.app/.Main;reboot", "android/.Main"}) {
    EXPECT_FALSE(ComponentName::Parse(s)) << s;
  }
}

}  // namespace
}  // namespace droidlab::adb
