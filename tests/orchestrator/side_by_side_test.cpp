// PlanSideBySide (orchestrator/run/side_by_side.h): the ABBA order of a side-by-side run, the
// installs it needs and where its warm-ups go.
#include "orchestrator/run/side_by_side.h"

#include <gtest/gtest.h>

#include <string>

namespace droidlab::orchestrator {
namespace {

// One letter a launch: A / B counted, a / b warm-up; "|" before a launch that installs first.
std::string Spell(const std::vector<PlannedLaunch>& plan) {
  std::string out;
  for (const auto& l : plan) {
    if (l.install_before) out += '|';
    const char c = l.arm == Arm::kBaseline ? 'A' : 'B';
    out += l.warmup ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

TEST(SideBySideTest, BlocksAlternateAbba) {
  EXPECT_EQ(ArmOfBlock(0), Arm::kBaseline);
  EXPECT_EQ(ArmOfBlock(1), Arm::kCandidate);
  EXPECT_EQ(ArmOfBlock(2), Arm::kCandidate);
  EXPECT_EQ(ArmOfBlock(3), Arm::kBaseline);
  EXPECT_EQ(ArmOfBlock(4), Arm::kBaseline);
  EXPECT_EQ(ArmOfBlock(5), Arm::kCandidate);
  EXPECT_EQ(Spell(PlanSideBySide(8, 2, 0)), "|AA|BBBB|AAAA|BBBB|AA");
}

TEST(SideBySideTest, EachBuildGetsExactlyItsIterations) {
  for (int64_t iterations : {1, 2, 5, 7, 20, 21}) {
    for (int64_t block : {1, 3, 5, 50}) {
      int64_t a = 0, b = 0;
      for (const auto& l : PlanSideBySide(iterations, block, 1)) {
        if (l.warmup) continue;
        (l.arm == Arm::kBaseline ? a : b) += 1;
      }
      EXPECT_EQ(a, iterations) << iterations << " in blocks of " << block;
      EXPECT_EQ(b, iterations) << iterations << " in blocks of " << block;
    }
  }
}

TEST(SideBySideTest, TheLastBlockOfEachBuildIsShorter) {
  // 5 in blocks of 2: A2 B2 B2 A2 A1 B1.
  EXPECT_EQ(Spell(PlanSideBySide(5, 2, 0)), "|AA|BBBB|AAA|B");
}

TEST(SideBySideTest, WarmupsOpenEveryBlockAfterAnInstall) {
  EXPECT_EQ(Spell(PlanSideBySide(4, 2, 1)), "|aAA|bBBBB|aAA");
  // A block that follows one of the same build installs nothing and warms nothing.
  const auto plan = PlanSideBySide(4, 1, 2);
  EXPECT_EQ(Spell(plan), "|aaA|bbBB|aaAA|bbBB|aaA");
}

TEST(SideBySideTest, OneBlockEachIsAB) { EXPECT_EQ(Spell(PlanSideBySide(3, 10, 0)), "|AAA|BBB"); }

TEST(SideBySideTest, NothingToPlan) {
  EXPECT_TRUE(PlanSideBySide(0, 5, 1).empty());
  EXPECT_TRUE(PlanSideBySide(5, 0, 1).empty());
}

}  // namespace
}  // namespace droidlab::orchestrator
