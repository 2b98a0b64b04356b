// SplitJoinedOutput (orchestrator/run/device_shell.h): the output of one `adb shell` that ran
// several commands (adb::BuildJoinedShellCommand) back into each command's output and status,
// as mksh (Android 7+) prints them; anything a shell that did not run the list as written would
// print is refused, so that DeviceShell::RunJoined runs the parts again one by one.
#include "orchestrator/run/device_shell.h"

#include <gtest/gtest.h>

#include <string>

namespace droidlab::orchestrator {
namespace {

constexpr char kMark[] = "droidlab-part-0123456789abcdef";

std::string Marked(int status) { return std::string(kMark) + " " + std::to_string(status) + "\n"; }

TEST(SplitJoinedOutputTest, EachPartKeepsItsOwnBytesAndStatus) {
  const std::string out = "Success\n" + Marked(0) + "" + Marked(0) + "12345\n" + Marked(0);
  const auto split = SplitJoinedOutput(out, kMark, 3);
  ASSERT_TRUE(split);
  ASSERT_EQ(split->size(), 3u);
  EXPECT_EQ((*split)[0].out, "Success\n");
  EXPECT_EQ((*split)[1].out, "");
  EXPECT_EQ((*split)[2].out, "12345\n");
  for (const adb::ShellResult& part : *split) EXPECT_EQ(part.exit_code, 0);
}

TEST(SplitJoinedOutputTest, AStatusOtherThanZeroAndOutputWithoutItsLastNewline) {
  // pidof prints nothing and exits 1 when no process has the name; `printf x` ends in no newline.
  const std::string out = "x" + Marked(0) + Marked(1) + "/system/bin/sh: nope: not found\n" +
                          Marked(127);
  const auto split = SplitJoinedOutput(out, kMark, 3);
  ASSERT_TRUE(split);
  EXPECT_EQ((*split)[0].out, "x");
  EXPECT_EQ((*split)[1].out, "");
  EXPECT_EQ((*split)[1].exit_code, 1);
  EXPECT_EQ((*split)[2].out, "/system/bin/sh: nope: not found\n");
  EXPECT_EQ((*split)[2].exit_code, 127);
}

TEST(SplitJoinedOutputTest, AShellV1PtyEndsEachLineWithCarriageReturn) {
  const std::string mark = kMark;
  const std::string out = "a\r\n" + mark + " 0\r\nb\r\n" + mark + " 255\r\n";
  const auto split = SplitJoinedOutput(out, kMark, 2);
  ASSERT_TRUE(split);
  EXPECT_EQ((*split)[0].out, "a\r\n");
  EXPECT_EQ((*split)[1].out, "b\r\n");
  EXPECT_EQ((*split)[1].exit_code, 255);
}

TEST(SplitJoinedOutputTest, TheLastMarkMayEndTheOutputWithoutANewline) {
  const std::string out = "a\n" + std::string(kMark) + " 0";
  const auto split = SplitJoinedOutput(out, kMark, 1);
  ASSERT_TRUE(split);
  EXPECT_EQ((*split)[0].out, "a\n");
}

TEST(SplitJoinedOutputTest, RefusesWhatAShellThatRanTheListOtherwiseWouldPrint) {
  const std::string mark = kMark;
  // A mark missing (the shell stopped: `exit`, a syntax error), or one too many.
  EXPECT_FALSE(SplitJoinedOutput("a\n" + Marked(0), kMark, 2));
  EXPECT_FALSE(SplitJoinedOutput("", kMark, 1));
  EXPECT_FALSE(SplitJoinedOutput("a\n" + Marked(0) + Marked(0), kMark, 1));
  // Text after the last mark: not a part's.
  EXPECT_FALSE(SplitJoinedOutput("a\n" + Marked(0) + "late\n", kMark, 1));
  // `$?` not expanded, a status out of range, a mark not ending its line.
  EXPECT_FALSE(SplitJoinedOutput("a\n" + mark + " $?\n", kMark, 1));
  EXPECT_FALSE(SplitJoinedOutput("a\n" + mark + " 256\n", kMark, 1));
  EXPECT_FALSE(SplitJoinedOutput("a\n" + mark + " -1\n", kMark, 1));
  EXPECT_FALSE(SplitJoinedOutput("a\n" + mark + " 0 x\n", kMark, 1));
  EXPECT_FALSE(SplitJoinedOutput("a\n" + mark + "\n", kMark, 1));
}

}  // namespace
}  // namespace droidlab::orchestrator
