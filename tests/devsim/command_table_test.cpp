#include "tools/devsim/android/command_table.h"

#include <gtest/gtest.h>

namespace droidlab::devsim {
namespace {

TEST(CommandTableTest, EveryCommandOfTheReadmeHasAHandler) {
  for (const char* name : {"getprop", "settings", "pidof", "cat", "am", "pm", "logcat", "input",
                           "wm", "dumpsys", "cmd", "ps", "date", "getconf", "devsim-fault"}) {
    EXPECT_NE(FindCommand(name), nullptr) << name;
  }
}

TEST(CommandTableTest, SystemBinPrefixesNameTheSameCommand) {
  EXPECT_EQ(FindCommand("/system/bin/getprop"), FindCommand("getprop"));
  EXPECT_EQ(FindCommand("/system/xbin/pidof"), FindCommand("pidof"));
  EXPECT_NE(FindCommand("getprop"), FindCommand("pidof"));
}

TEST(CommandTableTest, UnknownNamesHaveNone) {
  EXPECT_EQ(FindCommand("nosuchcommand"), nullptr);
  EXPECT_EQ(FindCommand("/system/bin/nosuchcommand"), nullptr);
  EXPECT_EQ(FindCommand("/vendor/bin/getprop"), nullptr);
  EXPECT_EQ(FindCommand(""), nullptr);
}

}  // namespace
}  // namespace droidlab::devsim
