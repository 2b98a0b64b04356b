// The proc sampler's frames (parsers/proc_sample_stream.h): good frames, frames with no process,
// and every way a stream can be cut or garbled, counted and never fatal.
#include "parsers/proc_sample_stream.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace droidlab::parsers {
namespace {

// A real Android 14 line (the proc_stat tests' sample), shortened to the fields up to 24 and
// valid as such.
constexpr std::string_view kStat =
    "12345 (com.example.app) S 567 567 0 0 -1 1077952832 6380 0 0 0 52 17 0 0 10 -10 23 0 "
    "104858 15239241728 29366";

std::vector<ProcStreamSample> Feed(ProcStreamReader& reader, const std::vector<std::string>& lines,
                                   std::vector<std::string>* comms = nullptr) {
  std::vector<ProcStreamSample> samples;
  for (const auto& line : lines) {
    auto sample = reader.AddLine(line);
    if (!sample) continue;
    if (comms && sample->stat) comms->emplace_back(sample->stat->comm);
    samples.push_back(*sample);
  }
  return samples;
}

TEST(ProcStreamReaderTest, OneFrameWithTheApp) {
  ProcStreamReader reader;
  std::vector<std::string> comms;
  auto samples = Feed(reader, {"@proc 82044.14 215440.94", std::string(kStat), "@end"}, &comms);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].uptime.uptime_cs, 8204414);
  ASSERT_TRUE(samples[0].stat);
  EXPECT_EQ(samples[0].stat->pid, 12345);
  EXPECT_EQ(samples[0].stat->utime, 52u);
  EXPECT_EQ(samples[0].stat->stime, 17u);
  EXPECT_EQ(samples[0].stat->num_threads, 23);
  EXPECT_EQ(samples[0].stat->rss, 29366);
  EXPECT_EQ(comms, std::vector<std::string>{"com.example.app"});
  EXPECT_EQ(reader.frames(), 1u);
  EXPECT_EQ(reader.bad_frames(), 0u);
  EXPECT_EQ(reader.stray_lines(), 0u);
}

// Between a force-stop and the next launch the loop prints an empty line: a sample with no
// process, not an error.
TEST(ProcStreamReaderTest, EmptyLineIsNoProcess) {
  ProcStreamReader reader;
  auto samples = Feed(reader, {"@proc 1.00 2.00", "", "@end"});
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_FALSE(samples[0].stat);
  EXPECT_EQ(reader.bad_frames(), 0u);
}

// A pty ends lines in "\r\n"; the splitter leaves the "\r".
TEST(ProcStreamReaderTest, PtyLineEnds) {
  ProcStreamReader reader;
  auto samples = Feed(reader, {"@proc 1.00 2.00\r", std::string(kStat) + "\r", "@end\r"});
  ASSERT_EQ(samples.size(), 1u);
  ASSERT_TRUE(samples[0].stat);
  EXPECT_EQ(samples[0].stat->rss, 29366);
}

// The stream cut in the middle of a frame (its last tick when the run ended, or a truncated
// packet): the half frame is never a sample, and the next frame reads.
TEST(ProcStreamReaderTest, TruncatedFrameIsDroppedAndTheNextReads) {
  ProcStreamReader reader;
  auto samples = Feed(reader, {"@proc 1.00 2.00", std::string(kStat.substr(0, 30)),
                               "@proc 1.10 2.50", std::string(kStat), "@end"});
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].uptime.uptime_cs, 110);
  EXPECT_EQ(reader.bad_frames(), 1u);
  EXPECT_EQ(reader.last_problem(), "a frame with no end");
}

// A stat line cut short but closed all the same (bytes lost mid-line) is refused by
// ParseProcPidStat, and counted.
TEST(ProcStreamReaderTest, GarbledStatLineIsCounted) {
  ProcStreamReader reader;
  auto samples = Feed(reader, {"@proc 1.00 2.00", "12345 (com.example.app) S 567 x", "@end"});
  EXPECT_TRUE(samples.empty());
  EXPECT_EQ(reader.bad_frames(), 1u);
  EXPECT_TRUE(reader.last_problem().starts_with("stat: ")) << reader.last_problem();
}

TEST(ProcStreamReaderTest, BadUptimeDropsTheFrame) {
  ProcStreamReader reader;
  auto samples = Feed(reader, {"@proc 1.0 2.00", std::string(kStat), "@end"});
  EXPECT_TRUE(samples.empty());
  EXPECT_EQ(reader.bad_frames(), 1u);
  EXPECT_TRUE(reader.last_problem().starts_with("uptime: ")) << reader.last_problem();
}

// Something else wrote into the stream (a shell's error message): neither line is trusted.
TEST(ProcStreamReaderTest, TwoLinesInAFrameDropIt) {
  ProcStreamReader reader;
  auto samples = Feed(reader, {"@proc 1.00 2.00", "/system/bin/sh: can't open /proc//stat",
                               std::string(kStat), "@end"});
  EXPECT_TRUE(samples.empty());
  EXPECT_EQ(reader.bad_frames(), 1u);
}

// The stream joined mid-frame (its first bytes lost): lines before the first start and an end
// with no start are stray, counted, and the stream reads on.
TEST(ProcStreamReaderTest, StrayLinesBeforeTheFirstFrame) {
  ProcStreamReader reader;
  auto samples =
      Feed(reader, {std::string(kStat), "@end", "@proc 1.00 2.00", std::string(kStat), "@end"});
  EXPECT_EQ(samples.size(), 1u);
  EXPECT_EQ(reader.stray_lines(), 2u);
  EXPECT_EQ(reader.bad_frames(), 0u);
}

// A frame whose end marker itself was cut ("@en") is not closed by it: the line is a second
// line of the frame, which is then dropped at the next start.
TEST(ProcStreamReaderTest, CutEndMarkerIsNotAnEnd) {
  ProcStreamReader reader;
  auto samples =
      Feed(reader, {"@proc 1.00 2.00", std::string(kStat), "@en", "@proc 1.10 2.10", "", "@end"});
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_FALSE(samples[0].stat);
  EXPECT_EQ(reader.bad_frames(), 1u);
}

// The pid changes across a cold launch: each frame carries its own stat line, so consecutive
// samples simply name different pids.
TEST(ProcStreamReaderTest, PidChangesBetweenFrames) {
  ProcStreamReader reader;
  std::string other = std::string(kStat);
  other.replace(0, 5, "23456");
  auto samples = Feed(reader, {"@proc 1.00 2.00", std::string(kStat), "@end", "@proc 1.10 2.10", "",
                               "@end", "@proc 1.20 2.20", other, "@end"});
  ASSERT_EQ(samples.size(), 3u);
  EXPECT_EQ(samples[0].stat->pid, 12345);
  EXPECT_FALSE(samples[1].stat);
  EXPECT_EQ(samples[2].stat->pid, 23456);
}

}  // namespace
}  // namespace droidlab::parsers
