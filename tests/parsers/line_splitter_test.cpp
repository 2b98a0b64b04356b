// LineSplitter over byte streams as adb delivers them: chunks cut at any byte, "\n", "\r\n",
// "\r\r\n" (adb shell v1 over a pty on Android < 7 adds a '\r'), no final newline, NUL bytes.
#include "parsers/line_splitter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace droidlab::parsers {
namespace {

std::vector<std::string> SplitInChunks(std::string_view input, size_t chunk,
                                       size_t max_line = LineSplitter::kDefaultMaxLineBytes) {
  LineSplitter splitter(max_line);
  std::vector<std::string> lines;
  auto sink = [&](std::string_view line) { lines.emplace_back(line); };
  for (size_t i = 0; i < input.size(); i += chunk) splitter.Feed(input.substr(i, chunk), sink);
  splitter.Finish(sink);
  return lines;
}

TEST(LineSplitterTest, AllLineEndingsAtEveryChunkSize) {
  const std::string input = "a\nbb\r\nccc\r\r\n\nlast";
  const std::vector<std::string> want = {"a", "bb", "ccc", "", "last"};
  for (size_t chunk = 1; chunk <= input.size(); ++chunk) {
    EXPECT_EQ(SplitInChunks(input, chunk), want) << "chunk size " << chunk;
  }
}

TEST(LineSplitterTest, SplitBetweenCarriageReturnAndNewline) {
  LineSplitter splitter;
  std::vector<std::string> lines;
  auto sink = [&](std::string_view line) { lines.emplace_back(line); };
  splitter.Feed("abc\r", sink);
  EXPECT_TRUE(lines.empty());
  splitter.Feed("\r", sink);
  splitter.Feed("\ndef", sink);
  splitter.Finish(sink);
  EXPECT_EQ(lines, (std::vector<std::string>{"abc", "def"}));
}

TEST(LineSplitterTest, CarriageReturnInsideLineIsKept) {
  EXPECT_EQ(SplitInChunks("a\rb\n", 2), (std::vector<std::string>{"a\rb"}));
}

TEST(LineSplitterTest, NulBytesAndInvalidUtf8PassThrough) {
  const std::string input("x\0y\xff\xfe\n", 6);
  auto lines = SplitInChunks(input, 1);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], std::string("x\0y\xff\xfe", 5));
}

TEST(LineSplitterTest, NoTrailingNewlineAndEmptyInput) {
  EXPECT_EQ(SplitInChunks("only", 3), (std::vector<std::string>{"only"}));
  EXPECT_TRUE(SplitInChunks("", 1).empty());
}

TEST(LineSplitterTest, OverlongLinesAreCutAndCountedAtEveryChunkSize) {
  const std::string input = std::string(25, 'x') + "\nok\n" + std::string(10, 'y');
  for (size_t chunk = 1; chunk <= input.size(); ++chunk) {
    LineSplitter splitter(10);
    std::vector<std::string> lines;
    auto sink = [&](std::string_view line) { lines.emplace_back(line); };
    for (size_t i = 0; i < input.size(); i += chunk) splitter.Feed(input.substr(i, chunk), sink);
    splitter.Finish(sink);
    EXPECT_EQ(lines, (std::vector<std::string>{std::string(10, 'x'), "ok", std::string(10, 'y')}))
        << "chunk size " << chunk;
    EXPECT_EQ(splitter.overlong_lines(), 1u) << "chunk size " << chunk;
    EXPECT_EQ(splitter.lines(), 3u);
  }
}

}  // namespace
}  // namespace droidlab::parsers
