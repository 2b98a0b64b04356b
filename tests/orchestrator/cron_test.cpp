#include "orchestrator/lab/cron.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace droidlab::orchestrator {
namespace {

using std::chrono::days;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;
using std::chrono::sys_days;
using std::chrono::year;
using Action = MissedFiringDecision::Action;

SysSeconds Utc(int y, unsigned mo, unsigned d, int h = 0, int mi = 0, int s = 0) {
  return SysSeconds{sys_days{year{y} / static_cast<int>(mo) / static_cast<int>(d)}} + hours{h} +
         minutes{mi} + seconds{s};
}

// "2026-03-29 03:00:00" of seconds since a (wall or UTC) epoch.
std::string Civil(std::int64_t secs) {
  const std::int64_t day = (secs >= 0 ? secs : secs - 86399) / 86400;
  const std::int64_t sod = secs - day * 86400;
  const std::chrono::year_month_day ymd{sys_days{days{day}}};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u %02d:%02d:%02d", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(sod / 3600), static_cast<int>(sod / 60 % 60),
                static_cast<int>(sod % 60));
  return buf;
}

std::string Iso(std::optional<SysSeconds> t) {
  if (!t) return "none";
  return Civil(t->time_since_epoch().count()) + "Z";
}

CronExpression Cron(std::string_view text) {
  auto r = ParseCron(text);
  EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : CronExpression{};
}

TimeZone Zone(std::string_view name) {
  auto r = TimeZone::Find(name);
  EXPECT_TRUE(r.ok()) << name;
  return std::move(r).value();  // throws (fails the test) when the zone is missing
}

// All firings in (from, to], by repeated NextFiring.
std::vector<SysSeconds> Firings(const CronExpression& e, const TimeZone& z, SysSeconds from,
                                SysSeconds to) {
  std::vector<SysSeconds> out;
  for (auto t = NextFiring(e, z, from); t && *t <= to; t = NextFiring(e, z, *t)) {
    out.push_back(*t);
    if (out.size() > 100000) break;
  }
  return out;
}

std::vector<std::string> IsoAll(const std::vector<SysSeconds>& ts) {
  std::vector<std::string> out;
  for (auto t : ts) out.push_back(Iso(t));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Parsing: every syntax form.

std::uint64_t Bits(std::initializer_list<int> values) {
  std::uint64_t b = 0;
  for (int v : values) b |= std::uint64_t{1} << v;
  return b;
}

std::uint64_t Range(int lo, int hi, int step = 1) {
  std::uint64_t b = 0;
  for (int v = lo; v <= hi; v += step) b |= std::uint64_t{1} << v;
  return b;
}

TEST(CronParseTest, StarMeansEveryValueOfEachField) {
  const auto e = Cron("* * * * *");
  EXPECT_EQ(e.minutes(), Range(0, 59));
  EXPECT_EQ(e.hours(), Range(0, 23));
  EXPECT_EQ(e.days_of_month(), Range(1, 31));
  EXPECT_EQ(e.months(), Range(1, 12));
  EXPECT_EQ(e.days_of_week(), Range(0, 6));
  EXPECT_FALSE(e.dom_restricted());
  EXPECT_FALSE(e.dow_restricted());
  EXPECT_FALSE(e.fixed_time());
}

TEST(CronParseTest, ListsRangesAndSteps) {
  EXPECT_EQ(Cron("1,5 * * * *").minutes(), Bits({1, 5}));
  EXPECT_EQ(Cron("1-5 * * * *").minutes(), Range(1, 5));
  EXPECT_EQ(Cron("*/15 * * * *").minutes(), Bits({0, 15, 30, 45}));
  EXPECT_EQ(Cron("1-30/5 * * * *").minutes(), Bits({1, 6, 11, 16, 21, 26}));
  EXPECT_EQ(Cron("0,10-12,*/20 * * * *").minutes(), Bits({0, 10, 11, 12, 20, 40}));
  EXPECT_EQ(Cron("0 */6 * * *").hours(), Bits({0, 6, 12, 18}));
  EXPECT_EQ(Cron("0 0 */10 * *").days_of_month(), Bits({1, 11, 21, 31}));
  EXPECT_EQ(Cron("0 0 * */3 *").months(), Bits({1, 4, 7, 10}));
  EXPECT_EQ(Cron("0 0 * * 1-5/2").days_of_week(), Bits({1, 3, 5}));
  EXPECT_EQ(Cron("7 * * * *").minutes(), Bits({7}));
  EXPECT_EQ(Cron("0 0 1 1 *").days_of_month(), Bits({1}));
  // A step larger than the range keeps only its start (Vixie cron).
  EXPECT_EQ(Cron("10-20/30 * * * *").minutes(), Bits({10}));
}

TEST(CronParseTest, MonthAndDayNamesAreCaseInsensitive) {
  EXPECT_EQ(Cron("0 0 * JAN-MAR *").months(), Range(1, 3));
  EXPECT_EQ(Cron("0 0 * jan,Dec *").months(), Bits({1, 12}));
  EXPECT_EQ(Cron("0 0 * * MON-FRI").days_of_week(), Range(1, 5));
  EXPECT_EQ(Cron("0 0 * * sun,Sat").days_of_week(), Bits({0, 6}));
  EXPECT_EQ(Cron("0 0 * * Mon-5").days_of_week(), Range(1, 5));
}

TEST(CronParseTest, SevenIsSunday) {
  EXPECT_EQ(Cron("0 0 * * 7").days_of_week(), Bits({0}));
  EXPECT_EQ(Cron("0 0 * * 5-7").days_of_week(), Bits({0, 5, 6}));
  EXPECT_EQ(Cron("0 0 * * 0,7").days_of_week(), Bits({0}));
  EXPECT_EQ(Cron("0 0 * * 7").days_of_week(), Cron("0 0 * * SUN").days_of_week());
}

TEST(CronParseTest, BlanksBetweenFieldsAndAroundAreAccepted) {
  const auto e = Cron("  0\t2  *   * \t*  ");
  EXPECT_EQ(e.minutes(), Bits({0}));
  EXPECT_EQ(e.hours(), Bits({2}));
  EXPECT_EQ(e.text(), "0\t2  *   * \t*");
}

TEST(CronParseTest, RestrictedFlagsFollowVixieStarRule) {
  EXPECT_TRUE(Cron("0 0 1 * MON").dom_restricted());
  EXPECT_TRUE(Cron("0 0 1 * MON").dow_restricted());
  // A field written starting with `*` counts as unrestricted even with a step (Vixie DOM_STAR).
  EXPECT_FALSE(Cron("0 0 */2 * MON").dom_restricted());
  EXPECT_FALSE(Cron("0 0 1 * */2").dow_restricted());
  EXPECT_TRUE(Cron("30 2 * * *").fixed_time());
  EXPECT_TRUE(Cron("*/15 2 * * *").fixed_time());
  EXPECT_FALSE(Cron("*/15 * * * *").fixed_time());
  EXPECT_FALSE(Cron("0 */2 * * *").fixed_time());
}

TEST(CronParseTest, MacrosExpandToTheirFiveFieldForms) {
  struct MacroCase {
    const char* macro;
    const char* fields;
  };
  for (const MacroCase& c : {MacroCase{"@yearly", "0 0 1 1 *"}, MacroCase{"@annually", "0 0 1 1 *"},
                             MacroCase{"@monthly", "0 0 1 * *"}, MacroCase{"@weekly", "0 0 * * 0"},
                             MacroCase{"@daily", "0 0 * * *"}, MacroCase{"@midnight", "0 0 * * *"},
                             MacroCase{"@hourly", "0 * * * *"}, MacroCase{"@DAILY", "0 0 * * *"}}) {
    const auto m = Cron(c.macro);
    const auto f = Cron(c.fields);
    EXPECT_EQ(m.minutes(), f.minutes()) << c.macro;
    EXPECT_EQ(m.hours(), f.hours()) << c.macro;
    EXPECT_EQ(m.days_of_month(), f.days_of_month()) << c.macro;
    EXPECT_EQ(m.months(), f.months()) << c.macro;
    EXPECT_EQ(m.days_of_week(), f.days_of_week()) << c.macro;
    EXPECT_EQ(m.fixed_time(), f.fixed_time()) << c.macro;
    EXPECT_EQ(m.text(), c.macro);
  }
}

struct BadCron {
  const char* name;
  const char* text;
  CronErrorCode code;
  const char* message;
};

class CronParseErrorTest : public ::testing::TestWithParam<BadCron> {};

TEST_P(CronParseErrorTest, NamesTheFieldAndTheToken) {
  const auto r = ParseCron(GetParam().text);
  ASSERT_FALSE(r.ok()) << GetParam().text;
  EXPECT_EQ(r.error().code, GetParam().code);
  EXPECT_EQ(r.error().message, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Cron, CronParseErrorTest,
    ::testing::Values(
        BadCron{"MinuteOutOfRange", "61 * * * *", CronErrorCode::kOutOfRange,
                "minute: 61 is out of range 0-59"},
        BadCron{"HourOutOfRange", "0 24 * * *", CronErrorCode::kOutOfRange,
                "hour: 24 is out of range 0-23"},
        BadCron{"DayOfMonthZero", "0 0 0 * *", CronErrorCode::kOutOfRange,
                "day-of-month: 0 is out of range 1-31"},
        BadCron{"MonthThirteen", "0 0 * 13 *", CronErrorCode::kOutOfRange,
                "month: 13 is out of range 1-12"},
        BadCron{"DayOfWeekEight", "0 0 * * 8", CronErrorCode::kOutOfRange,
                "day-of-week: 8 is out of range 0-7"},
        BadCron{"HugeNumber", "99999999999 * * * *", CronErrorCode::kOutOfRange,
                "minute: 99999999999 is out of range 0-59"},
        BadCron{"RangeEndOutOfRange", "0 20-25 * * *", CronErrorCode::kOutOfRange,
                "hour: 25 is out of range 0-23"},
        BadCron{"NotANumber", "x * * * *", CronErrorCode::kSyntax, "minute: 'x' is not a number"},
        BadCron{"BadMonthName", "0 0 * FOO *", CronErrorCode::kSyntax,
                "month: 'FOO' is not a number or a month name (JAN-DEC)"},
        BadCron{"BadDayName", "0 0 * * FUN", CronErrorCode::kSyntax,
                "day-of-week: 'FUN' is not a number or a day name (SUN-SAT)"},
        BadCron{"DayNameInMonthField", "0 0 * MON *", CronErrorCode::kSyntax,
                "month: 'MON' is not a number or a month name (JAN-DEC)"},
        BadCron{"ZeroStep", "*/0 * * * *", CronErrorCode::kOutOfRange,
                "minute: step 0 in '*/0' is out of range 1-59"},
        BadCron{"StepNotANumber", "*/x * * * *", CronErrorCode::kSyntax,
                "minute: step 'x' in '*/x' is not a number"},
        BadCron{"StepWithoutRange", "5/15 * * * *", CronErrorCode::kSyntax,
                "minute: '5/15' has a step but no range; write 5-59/15"},
        BadCron{"ReversedRange", "5-1 * * * *", CronErrorCode::kOutOfRange,
                "minute: range 5-1 is reversed (ranges do not wrap around)"},
        BadCron{"WrappingDayRange", "0 0 * * FRI-MON", CronErrorCode::kOutOfRange,
                "day-of-week: range FRI-MON is reversed (ranges do not wrap around)"},
        BadCron{"NegativeNumber", "-5 * * * *", CronErrorCode::kSyntax,
                "minute: '-5' is not a range N-M"},
        BadCron{"DoubleRange", "1-2-3 * * * *", CronErrorCode::kSyntax,
                "minute: '1-2-3' is not a range N-M"},
        BadCron{"EmptyListItem", "1,,2 * * * *", CronErrorCode::kSyntax,
                "minute: empty list item in '1,,2'"},
        BadCron{"TrailingComma", "0 1, * * *", CronErrorCode::kSyntax,
                "hour: empty list item in '1,'"},
        BadCron{"SixFieldsWithSeconds", "0 0 2 * * *", CronErrorCode::kFieldCount,
                "cron: 6 fields, but a seconds (or year) field is not supported; use 5 fields: "
                "minute hour day-of-month month day-of-week"},
        BadCron{"FourFields", "0 2 * *", CronErrorCode::kFieldCount,
                "cron: expected 5 fields (minute hour day-of-month month day-of-week), found 4"},
        BadCron{"Empty", "  ", CronErrorCode::kEmpty,
                "cron: empty expression; expected 5 fields: minute hour day-of-month month "
                "day-of-week, e.g. \"0 2 * * *\""},
        BadCron{"Reboot", "@reboot", CronErrorCode::kUnsupported,
                "cron: @reboot is not supported: a schedule fires at times of day"},
        BadCron{"UnknownMacro", "@often", CronErrorCode::kSyntax,
                "cron: unknown macro '@often' (known: @yearly @annually @monthly @weekly @daily "
                "@midnight @hourly)"},
        BadCron{"QuartzQuestionMark", "0 0 ? * MON", CronErrorCode::kUnsupported,
                "day-of-month: '?' (Quartz) is not supported; use *"},
        BadCron{"LastDay", "0 0 L * *", CronErrorCode::kUnsupported,
                "day-of-month: 'L' ('L', last day) is not supported"},
        BadCron{"NearestWeekday", "0 0 15W * *", CronErrorCode::kUnsupported,
                "day-of-month: '15W' ('W', nearest weekday) is not supported"},
        BadCron{"NthWeekday", "0 0 * * MON#2", CronErrorCode::kUnsupported,
                "day-of-week: 'MON#2' (nth weekday of the month) is not supported"},
        BadCron{"JenkinsHash", "H * * * *", CronErrorCode::kUnsupported,
                "minute: 'H' ('H', Jenkins hash) is not supported"}),
    [](const ::testing::TestParamInfo<BadCron>& param_info) {
      return std::string(param_info.param.name);
    });

// ---------------------------------------------------------------------------------------------
// Time zones.

TEST(CronTimeZoneTest, FindsIanaNames) {
  for (const char* name : {"UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe",
                           "Asia/Kolkata", "US/Eastern"}) {
    const auto z = TimeZone::Find(name);
    ASSERT_TRUE(z.ok()) << name << ": " << z.error().message;
    EXPECT_EQ(z->name(), name);
  }
}

TEST(CronTimeZoneTest, UnknownNameIsAnErrorNamingTheZone) {
  const auto z = TimeZone::Find("Mars/Olympus");
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.error().code, CronErrorCode::kUnknownTimeZone);
  EXPECT_EQ(z.error().message, "timezone: unknown IANA time zone \"Mars/Olympus\"");
  // Case matters, as in the tz database.
  EXPECT_EQ(TimeZone::Find("europe/berlin").error().code, CronErrorCode::kUnknownTimeZone);
  EXPECT_EQ(TimeZone::Find("").error().code, CronErrorCode::kEmpty);
  // Files in /usr/share/zoneinfo that are not zones, or not IANA names.
  for (const char* name : {"localtime", "posixrules", "posix/Europe/Berlin", "right/UTC",
                           "../../etc/passwd", "Factory"}) {
    EXPECT_EQ(TimeZone::Find(name).error().code, CronErrorCode::kUnknownTimeZone) << name;
  }
}

TEST(CronTimeZoneTest, OffsetsIncludeHalfHourZones) {
  EXPECT_EQ(Zone("Asia/Kolkata").OffsetAt(Utc(2026, 1, 1)), seconds{5 * 3600 + 1800});
  EXPECT_EQ(Zone("Australia/Lord_Howe").OffsetAt(Utc(2026, 1, 1)), seconds{11 * 3600});
  EXPECT_EQ(Zone("Australia/Lord_Howe").OffsetAt(Utc(2026, 7, 1)), seconds{10 * 3600 + 1800});
  EXPECT_EQ(Zone("Europe/Berlin").OffsetAt(Utc(2026, 7, 1)), seconds{7200});
  EXPECT_EQ(Zone("UTC").OffsetAt(Utc(2026, 7, 1)), seconds{0});
}

// ---------------------------------------------------------------------------------------------
// Next firing, ordinary days.

TEST(CronNextFiringTest, IsStrictlyAfterTheGivenInstantInUtc) {
  const auto utc = Zone("UTC");
  const auto daily = Cron("0 2 * * *");
  EXPECT_EQ(Iso(NextFiring(daily, utc, Utc(2026, 1, 15, 3, 0))), "2026-01-16 02:00:00Z");
  EXPECT_EQ(Iso(NextFiring(daily, utc, Utc(2026, 1, 15, 2, 0))), "2026-01-16 02:00:00Z");
  EXPECT_EQ(Iso(NextFiring(daily, utc, Utc(2026, 1, 15, 1, 59, 59))), "2026-01-15 02:00:00Z");
  EXPECT_EQ(Iso(NextFiring(Cron("*/15 * * * *"), utc, Utc(2026, 1, 15, 10, 7, 30))),
            "2026-01-15 10:15:00Z");
  // Year rollover.
  EXPECT_EQ(Iso(NextFiring(Cron("30 23 31 12 *"), utc, Utc(2026, 12, 31, 23, 30))),
            "2027-12-31 23:30:00Z");
  EXPECT_EQ(Iso(NextFiring(Cron("@yearly"), utc, Utc(2026, 6, 1))), "2027-01-01 00:00:00Z");
}

TEST(CronNextFiringTest, WeekdaysInEuropeBerlinFollowTheLocalCalendar) {
  const auto berlin = Zone("Europe/Berlin");
  const auto e = Cron("0 9 * * MON-FRI");
  // Friday 2026-01-16 10:00 CET -> Monday 09:00 CET (08:00Z).
  EXPECT_EQ(Iso(NextFiring(e, berlin, Utc(2026, 1, 16, 9, 0))), "2026-01-19 08:00:00Z");
  // Summer: 09:00 CEST is 07:00Z.
  EXPECT_EQ(Iso(NextFiring(e, berlin, Utc(2026, 7, 1, 0, 0))), "2026-07-01 07:00:00Z");
  // 00:30 Berlin on Jan 1 is Dec 31 23:30Z: the local date decides.
  EXPECT_EQ(Iso(NextFiring(Cron("30 0 1 1 *"), berlin, Utc(2026, 6, 1))), "2026-12-31 23:30:00Z");
}

TEST(CronNextFiringTest, AmericaNewYorkUsesEstInWinterAndEdtInSummer) {
  const auto ny = Zone("America/New_York");
  EXPECT_EQ(Iso(NextFiring(Cron("30 8 * * *"), ny, Utc(2026, 1, 10))), "2026-01-10 13:30:00Z");
  EXPECT_EQ(Iso(NextFiring(Cron("30 8 * * *"), ny, Utc(2026, 7, 10))), "2026-07-10 12:30:00Z");
  // Local midnight of Saturday is 05:00Z Saturday; 23:00Z Friday is still Friday 18:00 local.
  EXPECT_EQ(Iso(NextFiring(Cron("0 0 * * SAT"), ny, Utc(2026, 1, 16, 23))), "2026-01-17 05:00:00Z");
}

TEST(CronNextFiringTest, HalfHourOffsetsOfLordHoweAndKolkata) {
  const auto lord_howe = Zone("Australia/Lord_Howe");
  EXPECT_EQ(Iso(NextFiring(Cron("0 12 * * *"), lord_howe, Utc(2026, 1, 10))),
            "2026-01-10 01:00:00Z");  // +11 in summer
  EXPECT_EQ(Iso(NextFiring(Cron("0 12 * * *"), lord_howe, Utc(2026, 7, 10))),
            "2026-07-10 01:30:00Z");  // +10:30 in winter
  const auto kolkata = Zone("Asia/Kolkata");
  EXPECT_EQ(Iso(NextFiring(Cron("0 0 * * *"), kolkata, Utc(2026, 1, 10))), "2026-01-10 18:30:00Z");
  EXPECT_EQ(Iso(NextFiring(Cron("*/45 * * * *"), kolkata, Utc(2026, 1, 10, 0, 1))),
            "2026-01-10 00:15:00Z");  // 05:45 IST
}

// ---------------------------------------------------------------------------------------------
// DST nights of 2026: fixed-time jobs fire exactly once, at the documented instant.

struct DstNight {
  const char* name;
  const char* zone;
  const char* cron;
  SysSeconds from;                   // the noon before, UTC
  std::vector<std::string> firings;  // over the next 48 hours
};

class CronDstTest : public ::testing::TestWithParam<DstNight> {};

TEST_P(CronDstTest, FiresAtTheDocumentedInstants) {
  const DstNight& c = GetParam();
  const auto got = IsoAll(Firings(Cron(c.cron), Zone(c.zone), c.from, c.from + hours{48}));
  EXPECT_EQ(got, c.firings);
}

INSTANTIATE_TEST_SUITE_P(
    Cron, CronDstTest,
    ::testing::Values(
        // Spring forward, 02:00 CET -> 03:00 CEST at 01:00Z: 02:30 does not exist and fires once
        // at the end of the gap (03:00 CEST = 01:00Z); the next night is normal (00:30Z).
        DstNight{"BerlinSpring0230FiresOnceAtGapEnd",
                 "Europe/Berlin",
                 "30 2 * * *",
                 Utc(2026, 3, 28, 12),
                 {"2026-03-29 01:00:00Z", "2026-03-30 00:30:00Z"}},
        DstNight{"BerlinSpring0200FiresOnceAtGapEnd",
                 "Europe/Berlin",
                 "0 2 * * *",
                 Utc(2026, 3, 28, 12),
                 {"2026-03-29 01:00:00Z", "2026-03-30 00:00:00Z"}},
        // Several skipped wall times collapse into one firing.
        DstNight{"BerlinSpringSkippedTimesCollapse",
                 "Europe/Berlin",
                 "0,30 2 * * *",
                 Utc(2026, 3, 28, 12),
                 {"2026-03-29 01:00:00Z", "2026-03-30 00:00:00Z", "2026-03-30 00:30:00Z"}},
        // A job also due at 03:00 fires once there, and its 03:30 as usual.
        DstNight{"BerlinSpringGapEndCoincidesWith0300",
                 "Europe/Berlin",
                 "0,30 2,3 * * *",
                 Utc(2026, 3, 28, 22),
                 {"2026-03-29 01:00:00Z", "2026-03-29 01:30:00Z", "2026-03-30 00:00:00Z",
                  "2026-03-30 00:30:00Z", "2026-03-30 01:00:00Z", "2026-03-30 01:30:00Z"}},
        // Fall back, 03:00 CEST -> 02:00 CET at 01:00Z: 02:30 occurs twice, fires at the first
        // (CEST, 00:30Z), not again at 01:30Z.
        DstNight{"BerlinFall0230FiresOnceAtFirstOccurrence",
                 "Europe/Berlin",
                 "30 2 * * *",
                 Utc(2026, 10, 24, 12),
                 {"2026-10-25 00:30:00Z", "2026-10-26 01:30:00Z"}},
        // New York spring, 02:00 EST -> 03:00 EDT at 07:00Z.
        DstNight{"NewYorkSpring0230FiresOnceAtGapEnd",
                 "America/New_York",
                 "30 2 * * *",
                 Utc(2026, 3, 7, 12),
                 {"2026-03-08 07:00:00Z", "2026-03-09 06:30:00Z"}},
        // New York fall, 02:00 EDT -> 01:00 EST at 06:00Z: 02:30 exists once (EST).
        DstNight{"NewYorkFall0230ExistsOnce",
                 "America/New_York",
                 "30 2 * * *",
                 Utc(2026, 10, 31, 12),
                 {"2026-11-01 07:30:00Z", "2026-11-02 07:30:00Z"}},
        // ... and 01:30 is the repeated one: first occurrence (EDT, 05:30Z) only.
        DstNight{"NewYorkFall0130FiresOnceAtFirstOccurrence",
                 "America/New_York",
                 "30 1 * * *",
                 Utc(2026, 10, 31, 12),
                 {"2026-11-01 05:30:00Z", "2026-11-02 06:30:00Z"}},
        // Lord Howe springs forward 30 minutes, 02:00 +10:30 -> 02:30 +11 at 15:30Z.
        DstNight{"LordHoweSpring0215FiresAtGapEnd",
                 "Australia/Lord_Howe",
                 "15 2 * * *",
                 Utc(2026, 10, 3, 0),
                 {"2026-10-03 15:30:00Z", "2026-10-04 15:15:00Z"}},
        // and falls back 30 minutes, 02:00 +11 -> 01:30 +10:30 at 15:00Z: 01:45 twice.
        DstNight{"LordHoweFall0145FiresOnceAtFirstOccurrence",
                 "Australia/Lord_Howe",
                 "45 1 * * *",
                 Utc(2026, 4, 4, 0),
                 {"2026-04-04 14:45:00Z", "2026-04-05 15:15:00Z"}}),
    [](const ::testing::TestParamInfo<DstNight>& param_info) {
      return std::string(param_info.param.name);
    });

TEST(CronDstNightTest, BerlinSpringEveryMinuteOfHour2FiresOnceAtGapEnd) {
  // Minute wildcard, fixed hour: still anchored to the wall clock, so one firing in the gap.
  EXPECT_EQ(IsoAll(Firings(Cron("* 2 * * *"), Zone("Europe/Berlin"), Utc(2026, 3, 28, 12),
                           Utc(2026, 3, 29, 12))),
            (std::vector<std::string>{"2026-03-29 01:00:00Z"}));
}

TEST(CronDstNightTest, BerlinFallEveryMinuteOfHour2RunsOnlyInTheFirstPass) {
  const auto fired = Firings(Cron("* 2 * * *"), Zone("Europe/Berlin"), Utc(2026, 10, 24, 12),
                             Utc(2026, 10, 25, 12));
  ASSERT_EQ(fired.size(), 60U);
  EXPECT_EQ(Iso(fired.front()), "2026-10-25 00:00:00Z");
  EXPECT_EQ(Iso(fired.back()), "2026-10-25 00:59:00Z");
}

// Real-time jobs: every 15 real minutes straight through both nights.
struct RealTimeNight {
  const char* name;
  const char* zone;
  SysSeconds local_midnight;  // 00:00 local, as UTC
  SysSeconds local_four;      // 04:00 local, as UTC
  int real_minutes;           // length of local 00:00-04:00 that night
};

class CronRealTimeDstTest : public ::testing::TestWithParam<RealTimeNight> {};

TEST_P(CronRealTimeDstTest, EveryFifteenMinutesFiresFourTimesPerRealHour) {
  const RealTimeNight& c = GetParam();
  const auto fired = Firings(Cron("*/15 * * * *"), Zone(c.zone), c.local_midnight - seconds{1},
                             c.local_four - seconds{1});
  ASSERT_EQ(c.local_four - c.local_midnight, minutes{c.real_minutes});
  EXPECT_EQ(fired.size(), static_cast<size_t>(c.real_minutes / 15));
  for (size_t i = 1; i < fired.size(); ++i) {
    EXPECT_EQ(fired[i] - fired[i - 1], minutes{15}) << Iso(fired[i]);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cron, CronRealTimeDstTest,
    ::testing::Values(RealTimeNight{"BerlinSpring", "Europe/Berlin", Utc(2026, 3, 28, 23),
                                    Utc(2026, 3, 29, 2), 180},
                      RealTimeNight{"BerlinFall", "Europe/Berlin", Utc(2026, 10, 24, 22),
                                    Utc(2026, 10, 25, 3), 300},
                      RealTimeNight{"NewYorkSpring", "America/New_York", Utc(2026, 3, 8, 5),
                                    Utc(2026, 3, 8, 8), 180},
                      RealTimeNight{"NewYorkFall", "America/New_York", Utc(2026, 11, 1, 4),
                                    Utc(2026, 11, 1, 9), 300},
                      RealTimeNight{"LordHoweSpring", "Australia/Lord_Howe",
                                    Utc(2026, 10, 3, 13, 30), Utc(2026, 10, 3, 17), 210},
                      RealTimeNight{"LordHoweFall", "Australia/Lord_Howe", Utc(2026, 4, 4, 13),
                                    Utc(2026, 4, 4, 17, 30), 270}),
    [](const ::testing::TestParamInfo<RealTimeNight>& param_info) {
      return std::string(param_info.param.name);
    });

TEST(CronDstNightTest, HourlyJobFiresInBothPassesOfTheRepeatedHourAndSkipsTheMissingOne) {
  const auto berlin = Zone("Europe/Berlin");
  EXPECT_EQ(IsoAll(Firings(Cron("0 * * * *"), berlin, Utc(2026, 10, 24, 23), Utc(2026, 10, 25, 2))),
            (std::vector<std::string>{"2026-10-25 00:00:00Z",     // 02:00 CEST
                                      "2026-10-25 01:00:00Z",     // 02:00 CET
                                      "2026-10-25 02:00:00Z"}));  // 03:00 CET
  EXPECT_EQ(
      IsoAll(Firings(Cron("0 * * * *"), berlin, Utc(2026, 3, 28, 23, 30), Utc(2026, 3, 29, 2))),
      (std::vector<std::string>{"2026-03-29 00:00:00Z",     // 01:00 CET
                                "2026-03-29 01:00:00Z",     // 03:00 CEST
                                "2026-03-29 02:00:00Z"}));  // 04:00 CEST
}

// ---------------------------------------------------------------------------------------------
// Day rules, leap days, impossible expressions.

TEST(CronNextFiringTest, DomAndDowBothRestrictedMatchEither) {
  // 2026-01-01 is a Thursday; Mondays are the 5th, 12th, ...; Feb 1 is a Sunday.
  EXPECT_EQ(IsoAll(Firings(Cron("0 0 1 * MON"), Zone("UTC"), Utc(2026, 1, 1), Utc(2026, 2, 3))),
            (std::vector<std::string>{"2026-01-05 00:00:00Z", "2026-01-12 00:00:00Z",
                                      "2026-01-19 00:00:00Z", "2026-01-26 00:00:00Z",
                                      "2026-02-01 00:00:00Z", "2026-02-02 00:00:00Z"}));
}

TEST(CronNextFiringTest, StarredDomWithDowMatchesBoth) {
  // Vixie: `*/2` counts as unrestricted, so odd days that are Mondays.
  EXPECT_EQ(IsoAll(Firings(Cron("0 0 */2 * MON"), Zone("UTC"), Utc(2026, 1, 1), Utc(2026, 2, 3))),
            (std::vector<std::string>{"2026-01-05 00:00:00Z", "2026-01-19 00:00:00Z"}));
}

TEST(CronNextFiringTest, Feb29IsFoundInTheNextLeapYear) {
  const auto utc = Zone("UTC");
  const auto e = Cron("0 0 29 2 *");
  EXPECT_EQ(Iso(NextFiring(e, utc, Utc(2026, 1, 1))), "2028-02-29 00:00:00Z");
  EXPECT_EQ(Iso(NextFiring(e, utc, Utc(2028, 2, 29))), "2032-02-29 00:00:00Z");
  // 2100 is not a leap year: eight years apart.
  EXPECT_EQ(Iso(NextFiring(e, utc, Utc(2097, 1, 1))), "2104-02-29 00:00:00Z");
  EXPECT_EQ(Iso(PreviousFiring(e, utc, Utc(2104, 1, 1))), "2096-02-29 00:00:00Z");
  // Feb 29 that is a Sunday (both must match, `*/7` = Sunday): 2032.
  EXPECT_EQ(Iso(NextFiring(Cron("0 0 29 2 */7"), utc, Utc(2026, 1, 1))), "2032-02-29 00:00:00Z");
}

TEST(CronNextFiringTest, ImpossibleExpressionsHaveNoFiring) {
  const auto utc = Zone("UTC");
  for (const char* text : {"0 0 31 2 *", "0 0 30 2 *", "0 0 31 4,6,9,11 *", "0 0 30,31 2 */2"}) {
    const auto e = Cron(text);
    EXPECT_FALSE(e.CanEverMatch()) << text;
    EXPECT_EQ(NextFiring(e, utc, Utc(2026, 1, 1)), std::nullopt) << text;
    EXPECT_EQ(PreviousFiring(e, utc, Utc(2026, 1, 1)), std::nullopt) << text;
  }
  // With a restricted day-of-week the either-rule makes it possible: Mondays in February.
  EXPECT_EQ(Iso(NextFiring(Cron("0 0 31 2 MON"), utc, Utc(2026, 1, 1))), "2026-02-02 00:00:00Z");
}

// ---------------------------------------------------------------------------------------------
// NextFiring and PreviousFiring agree with a brute-force model of the documented rule,
// minute by minute around each 2026 transition.

// Independent of the library's search: walks every UTC minute and reads the wall clock.
std::vector<SysSeconds> BruteForce(const CronExpression& e, const TimeZone& z, SysSeconds from,
                                   SysSeconds to) {
  auto matches = [&](std::int64_t wall_minute) {
    const std::int64_t day = (wall_minute >= 0 ? wall_minute : wall_minute - 1439) / 1440;
    const std::chrono::year_month_day ymd{sys_days{days{day}}};
    const int mod = static_cast<int>(wall_minute - day * 1440);
    return e.Matches(mod % 60, mod / 60, static_cast<int>(static_cast<unsigned>(ymd.day())),
                     static_cast<int>(static_cast<unsigned>(ymd.month())),
                     static_cast<int>(std::chrono::weekday{sys_days{days{day}}}.c_encoding()));
  };
  std::set<std::int64_t> out;
  const std::int64_t a = from.time_since_epoch().count() / 60 - 2 * 1440;
  const std::int64_t b = to.time_since_epoch().count() / 60 + 2 * 1440;
  if (!e.fixed_time()) {
    for (std::int64_t t = a; t <= b; ++t) {
      if (matches(z.LocalAt(SysSeconds{minutes{t}}).count() / 60)) out.insert(t * 60);
    }
  } else {
    std::map<std::int64_t, std::int64_t> first_instant;  // wall minute -> first UTC minute
    for (std::int64_t t = a; t <= b; ++t) {
      first_instant.emplace(z.LocalAt(SysSeconds{minutes{t}}).count() / 60, t);
    }
    const std::int64_t lo = first_instant.begin()->first;
    const std::int64_t hi = first_instant.rbegin()->first;
    for (std::int64_t wall = lo; wall <= hi; ++wall) {
      if (!matches(wall)) continue;
      // Exists: its first occurrence. Skipped: the first instant whose wall clock is later.
      out.insert(first_instant.lower_bound(wall)->second * 60);
    }
  }
  std::vector<SysSeconds> result;
  for (std::int64_t s : out) {
    const SysSeconds t{seconds{s}};
    if (t > from && t <= to) result.push_back(t);
  }
  return result;
}

TEST(CronModelTest, NextAndPreviousMatchBruteForceAroundEveryTransition) {
  const std::vector<std::pair<const char*, SysSeconds>> transitions = {
      {"Europe/Berlin", Utc(2026, 3, 29, 1)},
      {"Europe/Berlin", Utc(2026, 10, 25, 1)},
      {"America/New_York", Utc(2026, 3, 8, 7)},
      {"America/New_York", Utc(2026, 11, 1, 6)},
      {"Australia/Lord_Howe", Utc(2026, 4, 4, 15)},
      {"Australia/Lord_Howe", Utc(2026, 10, 3, 15, 30)},
      {"Asia/Kolkata", Utc(2026, 3, 29, 1)},
      {"UTC", Utc(2026, 3, 29, 1)},
  };
  const std::vector<const char*> crons = {
      "30 2 * * *",     "0 2 * * *",    "*/15 * * * *", "0 * * * *",   "*/20 2 * * *",
      "0,30 2,3 * * *", "45 1 * * *",   "5 */2 * * *",  "* 2 * * *",   "15 2 * * SUN",
      "0 0 1 * MON",    "10 1-3 * * *", "*/7 * * * *",  "59 23 * * *",
  };
  for (const auto& [zone_name, at] : transitions) {
    const auto zone = Zone(zone_name);
    const SysSeconds from = at - hours{30};
    const SysSeconds to = at + hours{30};
    for (const char* text : crons) {
      SCOPED_TRACE(std::string(zone_name) + " " + text);
      const auto e = Cron(text);
      const auto expected = BruteForce(e, zone, from, to);
      EXPECT_EQ(IsoAll(Firings(e, zone, from, to)), IsoAll(expected));
      // PreviousFiring is the mirror image: at every instant, prev <= t < next, and they are
      // neighbours.
      for (SysSeconds t = from + hours{1}; t < to - hours{1}; t += seconds{7 * 60 + 13}) {
        const auto next = NextFiring(e, zone, t);
        const auto prev = PreviousFiring(e, zone, t);
        ASSERT_TRUE(next && prev) << Iso(t);
        ASSERT_LE(*prev, t);
        ASSERT_GT(*next, t);
        ASSERT_EQ(Iso(NextFiring(e, zone, *prev)), Iso(next)) << Iso(t);
        ASSERT_EQ(Iso(PreviousFiring(e, zone, *next)), Iso(next)) << Iso(t);
        ASSERT_EQ(Iso(PreviousFiring(e, zone, *next - seconds{1})), Iso(prev)) << Iso(t);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Missed firings after downtime.

TEST(ScheduleMissedTest, NothingDueWaitsForTheNextFiring) {
  const auto d = DecideMissed(Cron("0 2 * * *"), Zone("UTC"), Utc(2026, 1, 10, 2),
                              Utc(2026, 1, 10, 12), hours{1});
  EXPECT_EQ(d.action, Action::kNothingDue);
  EXPECT_EQ(d.scheduled_for, std::nullopt);
  EXPECT_EQ(Iso(d.next), "2026-01-11 02:00:00Z");
}

TEST(ScheduleMissedTest, OneMissedInsideGraceRunsOnceForIt) {
  const auto d = DecideMissed(Cron("0 2 * * *"), Zone("UTC"), Utc(2026, 1, 10, 2),
                              Utc(2026, 1, 11, 2, 20), hours{1});
  EXPECT_EQ(d.action, Action::kRunNow);
  EXPECT_EQ(Iso(d.scheduled_for), "2026-01-11 02:00:00Z");
  EXPECT_EQ(Iso(d.earliest_due), "2026-01-11 02:00:00Z");
  EXPECT_EQ(Iso(d.next), "2026-01-12 02:00:00Z");
}

TEST(ScheduleMissedTest, OneMissedOutsideGraceIsSkipped) {
  const auto d = DecideMissed(Cron("0 2 * * *"), Zone("UTC"), Utc(2026, 1, 10, 2),
                              Utc(2026, 1, 11, 5), hours{1});
  EXPECT_EQ(d.action, Action::kSkip);
  EXPECT_EQ(Iso(d.scheduled_for), "2026-01-11 02:00:00Z");
  EXPECT_EQ(Iso(d.next), "2026-01-12 02:00:00Z");
}

TEST(ScheduleMissedTest, SeveralMissedRunOnceStandingForTheLatest) {
  const auto d = DecideMissed(Cron("0 2 * * *"), Zone("UTC"), Utc(2026, 1, 10, 2),
                              Utc(2026, 1, 14, 2, 30), hours{1});
  EXPECT_EQ(d.action, Action::kRunNow);
  EXPECT_EQ(Iso(d.scheduled_for), "2026-01-14 02:00:00Z");
  EXPECT_EQ(Iso(d.earliest_due), "2026-01-11 02:00:00Z");
  EXPECT_EQ(Iso(d.next), "2026-01-15 02:00:00Z");
}

TEST(ScheduleMissedTest, SeveralMissedWithTheLatestOutsideGraceSkipAll) {
  const auto d = DecideMissed(Cron("0 2 * * *"), Zone("UTC"), Utc(2026, 1, 10, 2),
                              Utc(2026, 1, 14, 10), hours{1});
  EXPECT_EQ(d.action, Action::kSkip);
  EXPECT_EQ(Iso(d.scheduled_for), "2026-01-14 02:00:00Z");
}

TEST(ScheduleMissedTest, RecordedFiringIsNeverRunTwiceAfterRestart) {
  const auto e = Cron("0 2 * * *");
  const auto utc = Zone("UTC");
  const auto first = DecideMissed(e, utc, Utc(2026, 1, 10, 2), Utc(2026, 1, 14, 2, 30), hours{1});
  ASSERT_EQ(first.action, Action::kRunNow);
  // The store recorded scheduled_for; the daemon restarts five minutes later.
  const auto again = DecideMissed(e, utc, *first.scheduled_for, Utc(2026, 1, 14, 2, 35), hours{1});
  EXPECT_EQ(again.action, Action::kNothingDue);
  EXPECT_EQ(Iso(again.next), "2026-01-15 02:00:00Z");
}

TEST(ScheduleMissedTest, GraceBoundaryIsInclusive) {
  const auto e = Cron("0 2 * * *");
  const auto utc = Zone("UTC");
  EXPECT_EQ(DecideMissed(e, utc, Utc(2026, 1, 10, 2), Utc(2026, 1, 11, 3), hours{1}).action,
            Action::kRunNow);
  EXPECT_EQ(DecideMissed(e, utc, Utc(2026, 1, 10, 2), Utc(2026, 1, 11, 3, 0, 1), hours{1}).action,
            Action::kSkip);
}

TEST(ScheduleMissedTest, OnTimeWakeUpRunsEvenWithZeroGrace) {
  const auto e = Cron("0 2 * * *");
  const auto utc = Zone("UTC");
  const auto d = DecideMissed(e, utc, Utc(2026, 1, 10, 2), Utc(2026, 1, 11, 2), seconds{0});
  EXPECT_EQ(d.action, Action::kRunNow);
  EXPECT_EQ(Iso(d.scheduled_for), "2026-01-11 02:00:00Z");
  EXPECT_EQ(DecideMissed(e, utc, Utc(2026, 1, 10, 2), Utc(2026, 1, 11, 2), seconds{-5}).action,
            Action::kRunNow);
}

TEST(ScheduleMissedTest, ClockSteppedBackIsNothingDue) {
  const auto d = DecideMissed(Cron("0 2 * * *"), Zone("UTC"), Utc(2026, 1, 11, 2),
                              Utc(2026, 1, 10, 12), hours{1});
  EXPECT_EQ(d.action, Action::kNothingDue);
  EXPECT_EQ(Iso(d.next), "2026-01-12 02:00:00Z");
}

TEST(ScheduleMissedTest, MonthOfMinuteFiringsMissedRunsOnceForTheLast) {
  // A month of downtime for an every-minute job: one decision, no per-firing walk.
  const auto d = DecideMissed(Cron("* * * * *"), Zone("UTC"), Utc(2026, 1, 1),
                              Utc(2026, 2, 1, 0, 0, 30), minutes{5});
  EXPECT_EQ(d.action, Action::kRunNow);
  EXPECT_EQ(Iso(d.scheduled_for), "2026-02-01 00:00:00Z");
  EXPECT_EQ(Iso(d.earliest_due), "2026-01-01 00:01:00Z");
  EXPECT_EQ(Iso(d.next), "2026-02-01 00:01:00Z");
}

TEST(ScheduleMissedTest, DowntimeOverSpringForwardRunsTheGapFiringOnce) {
  // Down from Saturday evening to 03:10 CEST Sunday: the 02:30 job's only firing that night was
  // at 03:00 CEST (01:00Z), ten minutes ago.
  const auto e = Cron("30 2 * * *");
  const auto berlin = Zone("Europe/Berlin");
  const auto d =
      DecideMissed(e, berlin, Utc(2026, 3, 28, 1, 30), Utc(2026, 3, 29, 1, 10), minutes{30});
  EXPECT_EQ(d.action, Action::kRunNow);
  EXPECT_EQ(Iso(d.scheduled_for), "2026-03-29 01:00:00Z");
  EXPECT_EQ(Iso(d.next), "2026-03-30 00:30:00Z");
}

TEST(ScheduleMissedTest, DowntimeOverFallBackDoesNotRerunTheRepeatedTime) {
  // Ran at 02:30 CEST (00:30Z); restarted at 02:40 CET (01:40Z), the second 02:30 is behind.
  const auto d = DecideMissed(Cron("30 2 * * *"), Zone("Europe/Berlin"), Utc(2026, 10, 25, 0, 30),
                              Utc(2026, 10, 25, 1, 40), hours{1});
  EXPECT_EQ(d.action, Action::kNothingDue);
  EXPECT_EQ(Iso(d.next), "2026-10-26 01:30:00Z");
}

}  // namespace
}  // namespace droidlab::orchestrator
