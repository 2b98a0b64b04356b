// /proc/<pid>/stat as Linux fs/proc/array.c do_task_stat prints it ("%d (%s) %c %d ..."), field
// names from proc(5); /proc/uptime as fs/proc/uptime.c prints it ("%lu.%02lu %lu.%02lu\n").
#include "parsers/proc_stat.h"
#include "tests/common/test_data.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace droidlab::parsers {
namespace {

using droidlab::testutil::ReadTestData;

// Fields 3..52 of a 3.5+ kernel line after ") ", for an app process (Android 13, kernel 5.10).
constexpr std::string_view kAppTail =
    "S 612 612 0 0 -1 1077952832 6380 0 0 0 52 17 0 0 10 -10 23 0 104858 15239241728 29366 "
    "18446744073709551615 1 1 0 0 0 0 4612 1 1073775864 0 0 0 17 6 0 0 0 0 0 0 0 0 0 0 0 0 0";

// Real line: Huawei system_server (tests/data/proc_stat/README.md), 52 fields.
TEST(ProcPidStatTest, RealHuaweiSystemServer52Fields) {
  const std::string line = ReadTestData("proc_stat/android_arm64_huawei_system_server.stat");  // comm views into it
  auto st = ParseProcPidStat(line);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->pid, 1286);
  EXPECT_EQ(st->comm, "system_server");
  EXPECT_EQ(st->state, 'S');
  EXPECT_EQ(st->ppid, 889);
  EXPECT_EQ(st->pgrp, 889);
  EXPECT_EQ(st->session, 0);
  EXPECT_EQ(st->tty_nr, 0);
  EXPECT_EQ(st->tpgid, -1);
  EXPECT_EQ(st->flags, 1077952832u);
  EXPECT_EQ(st->minflt, 404759u);
  EXPECT_EQ(st->cminflt, 0u);
  EXPECT_EQ(st->majflt, 2760u);
  EXPECT_EQ(st->cmajflt, 0u);
  EXPECT_EQ(st->utime, 9595u);
  EXPECT_EQ(st->stime, 4059u);
  EXPECT_EQ(st->cutime, 0);
  EXPECT_EQ(st->cstime, 0);
  EXPECT_EQ(st->priority, 18);
  EXPECT_EQ(st->nice, -2);
  EXPECT_EQ(st->num_threads, 265);
  EXPECT_EQ(st->itrealvalue, 0);
  EXPECT_EQ(st->starttime, 599u);
  EXPECT_EQ(st->vsize, 10783543296u);
  EXPECT_EQ(st->rss, 86828);
  EXPECT_EQ(st->rsslim, 18446744073709551615u);
  EXPECT_EQ(st->startcode, 1u);
  EXPECT_EQ(st->endcode, 1u);
  EXPECT_EQ(st->signal, 0u);
  EXPECT_EQ(st->blocked, 4612u);
  EXPECT_EQ(st->sigignore, 0u);
  EXPECT_EQ(st->sigcatch, 1073794299u);
  EXPECT_EQ(st->exit_signal, 17);
  EXPECT_EQ(st->processor, 1);
  EXPECT_EQ(st->rt_priority, 0u);
  EXPECT_EQ(st->policy, 0u);
  EXPECT_EQ(st->delayacct_blkio_ticks, 76u);
  EXPECT_EQ(st->guest_time, 0u);
  EXPECT_EQ(st->cguest_time, 0);
  EXPECT_EQ(st->env_end, 0u);
  EXPECT_EQ(st->exit_code, 0);
  EXPECT_EQ(st->field_count, 52);
}

// Real line: Android 7 era system_server at nice -10 (Gityuan's notes).
TEST(ProcPidStatTest, RealAndroid7SystemServerNegativeNice) {
  const std::string line = ReadTestData("proc_stat/android7_gityuan_system_server.stat");  // comm views into it
  auto st = ParseProcPidStat(line);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->pid, 1557);
  EXPECT_EQ(st->comm, "system_server");
  EXPECT_EQ(st->minflt, 2085481u);
  EXPECT_EQ(st->cminflt, 15248u);
  EXPECT_EQ(st->utime, 166114u);
  EXPECT_EQ(st->stime, 129684u);
  EXPECT_EQ(st->cutime, 26);
  EXPECT_EQ(st->cstime, 30);
  EXPECT_EQ(st->priority, 10);
  EXPECT_EQ(st->nice, -10);
  EXPECT_EQ(st->num_threads, 221);
  EXPECT_EQ(st->starttime, 2284u);
  EXPECT_EQ(st->vsize, 2790821888u);
  EXPECT_EQ(st->rss, 93087);
  // The post labels 6660 "signal"; by position (fields 31-34) it is blocked, and 36088 sigcatch.
  EXPECT_EQ(st->signal, 0u);
  EXPECT_EQ(st->blocked, 6660u);
  EXPECT_EQ(st->sigignore, 0u);
  EXPECT_EQ(st->sigcatch, 36088u);
  EXPECT_EQ(st->processor, 3);
  EXPECT_EQ(st->field_count, 52);
}

TEST(ProcPidStatTest, RealAppProcess) {
  const std::string line = ReadTestData("proc_stat/android_arm64_app_testapplication.stat");  // comm views into it
  auto st = ParseProcPidStat(line);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->pid, 30228);
  EXPECT_EQ(st->comm, "testapplication");
  EXPECT_EQ(st->ppid, 288);  // zygote
  EXPECT_EQ(st->flags, 1077936448u);
  EXPECT_EQ(st->utime, 283u);
  EXPECT_EQ(st->stime, 161u);
  EXPECT_EQ(st->num_threads, 25);
  EXPECT_EQ(st->starttime, 2693165u);
  EXPECT_EQ(st->vsize, 14244589568u);
  EXPECT_EQ(st->rss, 49086);
  EXPECT_EQ(st->kstkesp, 0u);
  EXPECT_EQ(st->wchan, 0u);
}

struct CommCase {
  const char* name;
  std::string line;
  std::string_view comm;
};

class ProcPidStatCommTest : public testing::TestWithParam<CommCase> {};

// comm is task->comm (TASK_COMM_LEN 16: at most 15 bytes), printed raw between "(" and ")".
TEST_P(ProcPidStatCommTest, CommEndsAtLastParen) {
  const CommCase& c = GetParam();
  auto st = ParseProcPidStat(c.line);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->comm, c.comm);
  EXPECT_EQ(st->pid, 4321);
  EXPECT_EQ(st->state, 'S');
  EXPECT_EQ(st->ppid, 612);
  EXPECT_EQ(st->utime, 52u);
  EXPECT_EQ(st->stime, 17u);
  EXPECT_EQ(st->nice, -10);
  EXPECT_EQ(st->num_threads, 23);
  EXPECT_EQ(st->starttime, 104858u);
  EXPECT_EQ(st->rss, 29366);
  EXPECT_EQ(st->field_count, 52);
  // The view points into the line, not into a copy.
  EXPECT_GE(st->comm.data(), c.line.data());
  EXPECT_LE(st->comm.data() + st->comm.size(), c.line.data() + c.line.size());
}

std::string Line(std::string_view comm) {
  return "4321 (" + std::string(comm) + ") " + std::string(kAppTail) + "\n";
}

INSTANTIATE_TEST_SUITE_P(
    ProcPidStatAndroidComms, ProcPidStatCommTest,
    testing::Values(
        CommCase{"AppTruncatedTo15", Line("com.google.andr"), "com.google.andr"},
        CommCase{"AppTailTruncated", Line("ndroid.systemui"), "ndroid.systemui"},
        CommCase{"Zygote64", Line("zygote64"), "zygote64"},
        CommCase{"BinderThread", Line("Binder:1234_1"), "Binder:1234_1"},
        CommCase{"KernelThread", Line("kworker/0:1H"), "kworker/0:1H"},
        CommCase{"WithSpaces", Line("Jit thread pool"), "Jit thread pool"},
        CommCase{"ParenInside", Line("a) b"), "a) b"},
        CommCase{"LooksLikeFields", Line("x) S 1 2 3"), "x) S 1 2 3"},
        CommCase{"Parens", Line("()"), "()"},
        CommCase{"OpenParenOnly", Line("("), "("},
        CommCase{"Empty", Line(""), ""},
        CommCase{"NoTrailingNewline", "4321 (sh) " + std::string(kAppTail), "sh"},
        CommCase{"CrLf", "4321 (sh) " + std::string(kAppTail) + "\r\n", "sh"}),
    [](const testing::TestParamInfo<CommCase>& param_info) {
      return std::string(param_info.param.name);
    });

// Kernel 2.6.24–3.2 print 44 fields, 3.3/3.4 print 47: the rest stays nullopt.
TEST(ProcPidStatTest, OldKernel44Fields) {
  // Android 4.x era kernel 3.0: fields 1..44.
  const std::string line =
      "715 (com.android.phone) S 122 122 0 0 -1 4194624 19452 0 61 0 381 215 0 0 20 0 19 0 "
      "2398 559734784 7891 4294967295 1 1 0 0 0 0 4612 0 38136 4294967295 0 0 17 1 0 0 0 0 0\n";
  auto st = ParseProcPidStat(line);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->field_count, 44);
  EXPECT_EQ(st->comm, "com.android.phone");
  EXPECT_EQ(st->rsslim, 4294967295u);
  EXPECT_EQ(st->wchan, 4294967295u);
  EXPECT_EQ(st->cguest_time, 0);
  EXPECT_FALSE(st->start_data.has_value());
  EXPECT_FALSE(st->exit_code.has_value());
}

TEST(ProcPidStatTest, Kernel33With47Fields) {
  std::string line = "100 (surfaceflinger) S 1 100 0 0 -1 1077936384 ";
  line += "1 2 3 4 5 6 7 8 9 10 11 0 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 "
          "33 34 35 36 37 38";  // value v is field v + 9: fields 10..47
  auto st = ParseProcPidStat(line);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->field_count, 47);
  EXPECT_EQ(st->utime, 5u);
  EXPECT_EQ(st->cguest_time, 35);
  EXPECT_EQ(st->start_data, 36u);
  EXPECT_EQ(st->end_data, 37u);
  EXPECT_EQ(st->start_brk, 38u);
  EXPECT_FALSE(st->arg_start.has_value());
}

TEST(ProcPidStatTest, Exactly24FieldsIsEnough) {
  const std::string line = "7 (init) S 0 0 0 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 9 100 200\n";
  auto st = ParseProcPidStat(line);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->field_count, 24);
  EXPECT_EQ(st->vsize, 100u);
  EXPECT_EQ(st->rss, 200);
  EXPECT_FALSE(st->rsslim.has_value());
  EXPECT_FALSE(st->processor.has_value());
}

TEST(ProcPidStatTest, ExtraFieldsFromANewerKernelAreCounted) {
  const std::string line = "4321 (x) " + std::string(kAppTail) + " 7 8\n";
  auto st = ParseProcPidStat(line);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->field_count, 54);
  EXPECT_EQ(st->exit_code, 0);
}

TEST(ProcPidStatTest, NegativeSignedFields) {
  // A shell on a tty: tty_nr 34816, a foreground tpgid; an RT thread has priority -51.
  const std::string line =
      "900 (sh) R 1 900 900 34816 -1 4194304 1 0 0 0 0 0 -3 -4 -51 -20 1 0 5 10 -1\n";
  auto st = ParseProcPidStat(line);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->state, 'R');
  EXPECT_EQ(st->tty_nr, 34816);
  EXPECT_EQ(st->tpgid, -1);
  EXPECT_EQ(st->cutime, -3);
  EXPECT_EQ(st->cstime, -4);
  EXPECT_EQ(st->priority, -51);
  EXPECT_EQ(st->nice, -20);
  EXPECT_EQ(st->rss, -1);
}

TEST(ProcPidStatTest, Uint64ExtremesAndOverflow) {
  std::string line = "1 (a) S 0 0 0 0 0 18446744073709551615 0 0 0 0 0 0 0 0 20 0 1 0 0 0 0\n";
  auto st = ParseProcPidStat(line);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->flags, 18446744073709551615u);
  line = "1 (a) S 0 0 0 0 0 18446744073709551616 0 0 0 0 0 0 0 0 20 0 1 0 0 0 0\n";
  auto bad = ParseProcPidStat(line);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ParseErrorCode::kMalformed);
  EXPECT_NE(bad.error().message.find("(flags)"), std::string::npos) << bad.error().message;
  line = "1 (a) S 0 0 0 0 0 0 0 0 0 0 0 0 0 0 20 -9223372036854775808 1 0 0 0 0\n";
  auto min = ParseProcPidStat(line);
  ASSERT_TRUE(min.ok()) << min.error().message;
  EXPECT_EQ(min->nice, INT64_MIN);
}

struct BadCase {
  const char* name;
  std::string line;
  ParseErrorCode code;
  std::string_view message_part;
};

class ProcPidStatBadTest : public testing::TestWithParam<BadCase> {};

TEST_P(ProcPidStatBadTest, Rejected) {
  const BadCase& c = GetParam();
  auto st = ParseProcPidStat(c.line);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, c.code);
  EXPECT_NE(st.error().message.find(c.message_part), std::string::npos) << st.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    ProcPidStatGarbage, ProcPidStatBadTest,
    testing::Values(
        BadCase{"Empty", "", ParseErrorCode::kEmpty, "empty"},
        BadCase{"OnlyNewline", "\n", ParseErrorCode::kEmpty, "empty"},
        BadCase{"NoParen", "hello world\n", ParseErrorCode::kNotThisFormat, "PID ("},
        BadCase{"NoCloseParen", "12 (abc S 1 2 3", ParseErrorCode::kNotThisFormat, "')'"},
        BadCase{"ParenFirst", "(abc) S 1", ParseErrorCode::kNotThisFormat, "PID ("},
        BadCase{"PidNotNumber", "x1 (a) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21",
                ParseErrorCode::kMalformed, "(pid)"},
        BadCase{"NegativePid", "-1 (a) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21",
                ParseErrorCode::kMalformed, "(pid)"},
        BadCase{"NoState", "1 (a)", ParseErrorCode::kMalformed, "(state)"},
        BadCase{"TwentyThreeFields",
                "1 (a) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20\n",
                ParseErrorCode::kMalformed, "23 fields"},
        BadCase{"ThreeFields", "1 (a) S\n", ParseErrorCode::kMalformed, "(ppid) is missing"},
        BadCase{"LetterInUtime", "1 (a) S 1 2 3 4 5 6 7 8 9 10 1x 12 13 14 15 16 17 18 19 20 21",
                ParseErrorCode::kMalformed, "(utime)"},
        BadCase{"MinusInUnsigned", "1 (a) S 1 2 3 4 5 -6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",
                ParseErrorCode::kMalformed, "(flags)"},
        BadCase{"DoubleSpace", "1 (a) S 1 2 3 4 5 6 7 8 9 10  11 12 13 14 15 16 17 18 19 20 21",
                ParseErrorCode::kMalformed, "(utime)"},
        BadCase{"TabSeparated", "1 (a) S 1\t2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21",
                ParseErrorCode::kMalformed, "(ppid)"},
        BadCase{"PlusSign", "1 (a) S +1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21",
                ParseErrorCode::kMalformed, "(ppid)"}),
    [](const testing::TestParamInfo<BadCase>& param_info) {
      return std::string(param_info.param.name);
    });

// fs/proc/uptime.c: "%lu.%02lu %lu.%02lu\n" (uptime, summed idle of all CPUs).
TEST(ProcUptimeTest, RealAndroid7Uptime) {
  auto up = ParseProcUptime(ReadTestData("proc_stat/android7_gityuan.uptime"));
  ASSERT_TRUE(up.ok()) << up.error().message;
  EXPECT_EQ(up->uptime_cs, 8204414);
  EXPECT_EQ(up->idle_cs, 21544094);
}

TEST(ProcUptimeTest, ExactCentisecondsNoFloat) {
  auto up = ParseProcUptime("0.07 0.00");
  ASSERT_TRUE(up.ok());
  EXPECT_EQ(up->uptime_cs, 7);
  EXPECT_EQ(up->idle_cs, 0);
  up = ParseProcUptime("35747.56 141231.15\r\n");
  ASSERT_TRUE(up.ok());
  EXPECT_EQ(up->uptime_cs, 3574756);
  EXPECT_EQ(up->idle_cs, 14123115);
}

TEST(ProcUptimeTest, Rejected) {
  EXPECT_EQ(ParseProcUptime("").error().code, ParseErrorCode::kEmpty);
  for (std::string_view bad : {"35747.56", "35747.5 1.00", "35747 141231", "a.bc 1.00",
                               "1.00 2.00 3.00", "-1.00 2.00", "1.00  2.00", "1.005 2.00"}) {
    auto up = ParseProcUptime(bad);
    ASSERT_FALSE(up.ok()) << bad;
    EXPECT_EQ(up.error().code, ParseErrorCode::kMalformed) << bad;
  }
}

}  // namespace
}  // namespace droidlab::parsers
