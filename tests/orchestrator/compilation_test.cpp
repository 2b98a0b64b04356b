// The compilation state's pure parts (orchestrator/run/compilation.h, issue 14 §2): the command
// per Android version (PackageManagerShellCommand.runCompile, Android 7–13; ART Service's
// ArtShellCommand, 14+) and the judgement of the state reached.
#include "orchestrator/run/compilation.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace droidlab::orchestrator {
namespace {

using Argv = std::vector<std::string>;

TEST(CompilationTest, TheCommandFollowsTheAndroidVersion) {
  const std::string pkg = "com.example.app";
  EXPECT_EQ(CompileCommand(pkg, Compilation::kSpeedProfile, 33),
            (Argv{"cmd", "package", "compile", "-m", "speed-profile", "-f", pkg}));
  EXPECT_EQ(CompileCommand(pkg, Compilation::kSpeed, 34),
            (Argv{"cmd", "package", "compile", "-m", "speed", "-f", pkg}));
  EXPECT_EQ(CompileCommand(pkg, Compilation::kVerify, 29),
            (Argv{"cmd", "package", "compile", "-m", "verify", "-f", pkg}));
  // Android 7 had no "verify" or "extract" filter.
  EXPECT_EQ(CompileCommand(pkg, Compilation::kVerify, 25),
            (Argv{"cmd", "package", "compile", "-m", "interpret-only", "-f", pkg}));
  EXPECT_EQ(CompileCommand(pkg, Compilation::kNone, 24),
            (Argv{"cmd", "package", "compile", "-m", "verify-at-runtime", "-f", pkg}));
  EXPECT_EQ(CompileCommand(pkg, Compilation::kNone, 30),
            (Argv{"cmd", "package", "compile", "-m", "extract", "-f", pkg}));
  // ART Service takes only speed-profile, speed and verify: "none" deletes the artifacts.
  EXPECT_EQ(CompileCommand(pkg, Compilation::kNone, 34),
            (Argv{"cmd", "package", "delete-dexopt", pkg}));
  // An unknown SDK gets Android 8–13's forms.
  EXPECT_EQ(CompileCommand(pkg, Compilation::kNone, std::nullopt),
            (Argv{"cmd", "package", "compile", "-m", "extract", "-f", pkg}));
  EXPECT_TRUE(CompileCommand(pkg, Compilation::kAsIs, 33).empty());
  EXPECT_TRUE(CompileCommand(pkg, Compilation::kSpeed, 23).empty());  // compiled at install
}

CompilationRecord Reached(Compilation requested, std::optional<std::string> reached) {
  CompilationRecord r;
  r.requested = requested;
  r.reached = std::move(reached);
  return r;
}

TEST(CompilationTest, TheStateReachedMustBeTheOneAsked) {
  EXPECT_FALSE(CompilationMismatch(Reached(Compilation::kSpeedProfile, "speed-profile"), 33));
  EXPECT_FALSE(CompilationMismatch(Reached(Compilation::kSpeed, "speed"), 34));
  EXPECT_FALSE(CompilationMismatch(Reached(Compilation::kVerify, "verify"), 30));
  EXPECT_FALSE(CompilationMismatch(Reached(Compilation::kNone, "extract"), 30));
  EXPECT_FALSE(CompilationMismatch(Reached(Compilation::kNone, "run-from-apk"), 34));
  EXPECT_FALSE(CompilationMismatch(Reached(Compilation::kAsIs, "quicken"), 28));
  const auto speed = CompilationMismatch(Reached(Compilation::kSpeed, "speed-profile"), 33);
  ASSERT_TRUE(speed);
  EXPECT_EQ(*speed, "asked for compilation \"speed\", the phone reached \"speed-profile\"");
  // ART Service compiles speed-profile without a profile as verify: the words say what to do.
  const auto no_profile =
      CompilationMismatch(Reached(Compilation::kSpeedProfile, "verify"), 34);
  ASSERT_TRUE(no_profile);
  EXPECT_NE(no_profile->find("has none yet"), std::string::npos) << *no_profile;
}

TEST(CompilationTest, AStateNotReadIsNoMismatch) {
  EXPECT_FALSE(CompilationMismatch(Reached(Compilation::kSpeed, std::nullopt), 33));
  // Android 7's dump is not read: whatever was found there is not judged.
  EXPECT_FALSE(CompilationMismatch(Reached(Compilation::kVerify, "interpret-only"), 25));
}

TEST(CompilationTest, AChangeDuringTheRunIsSeen) {
  CompilationRecord r = Reached(Compilation::kVerify, "verify");
  EXPECT_FALSE(r.ChangedDuringRun());
  r.after = "verify";
  EXPECT_FALSE(r.ChangedDuringRun());
  r.after = "speed-profile";
  EXPECT_TRUE(r.ChangedDuringRun());
}

}  // namespace
}  // namespace droidlab::orchestrator
