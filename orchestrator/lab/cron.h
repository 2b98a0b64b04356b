// Cron schedules with IANA time zones: parsing, the next (and previous) firing in a zone's wall
// time with DST handled the way crontab users expect, and the missed-firing rule after downtime.
//
// Pure logic: no clock reads, no timers, no storage. The scheduler asks NextFiring() when to wake,
// and on every wake-up (on time or after downtime) asks DecideMissed() whether to start a run and
// which scheduled time that run stands for; the store records that time so a restart cannot fire
// it again.
//
// Input format (the "cron" of POST /api/v1/schedules, API.md):
//   {"cron":"30 2 * * MON-FRI","timezone":"Europe/Berlin","run":{...}}
// Five fields: minute (0-59) hour (0-23) day-of-month (1-31) month (1-12 or JAN-DEC)
// day-of-week (0-7 or SUN-SAT, 0 and 7 are Sunday). Each field is a comma list of `*`, `N`,
// `N-M`, `*/S` or `N-M/S`; names are case-insensitive and may be range ends (MON-FRI); ranges do
// not wrap (FRI-MON is an error). Macros: @yearly @annually @monthly @weekly @daily @midnight
// @hourly. Not supported, each with its own error: a sixth (seconds or year) field, @reboot,
// Quartz/Jenkins extensions (`?`, `L`, `W`, `#`, `H`) and `N/S` without a range.
//
// Day matching follows Vixie cron (cron/entry.c, DOM_STAR/DOW_STAR): a field written starting
// with `*` (also `*/2`) counts as unrestricted. When both day-of-month and day-of-week are
// restricted, a day matches if EITHER matches (`0 0 1 * MON`: the 1st and every Monday);
// otherwise both must match (`0 0 */2 * MON`: odd days that are Mondays, as in Vixie cron).
//
// DST (see NextFiring for the full rule): a job whose hour field is restricted ("fixed-time",
// e.g. `30 2 * * *`) is anchored to the wall clock: a wall time skipped by spring-forward fires
// once at the end of the gap (03:00 on a 02:00->03:00 night), a wall time repeated by fall-back
// fires once, at its first occurrence. A job whose hour field starts with `*` (`*/15 * * * *`,
// `0 * * * *`, `0 */2 * * *`) follows real time: it fires at every instant whose wall-clock
// reading matches, so the skipped hour has no firings and the repeated hour has them twice,
// once per real hour, never two firings at the same instant.
//
// Thread-safety: CronExpression and TimeZone are immutable values, safe to share. The functions
// are reentrant. The first TimeZone::Find() in a process reads the list of zones from
// /usr/share/zoneinfo and each zone's first use reads its file (Howard Hinnant's date library,
// built with USE_OS_TZDB); call Find() when a schedule is created or loaded, not on a hot path.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace date {
class time_zone;  // <date/tz.h> stays out of this header; only cron.cpp includes it.
}

#include "base/result.h"

namespace droidlab::orchestrator {

using SysSeconds = std::chrono::sys_seconds;

// Errors a caller can act on: every one is the user's input, shown back as a 400 with `message`.
// Not parsers::Result: its codes describe device output (kServiceMissing, kPermissionDenied),
// not user input, and it has no place for an unknown time zone.
enum class CronErrorCode {
  kEmpty,            // blank expression or zone name
  kFieldCount,       // not 5 fields (6 = a seconds or year field, said so in the message)
  kSyntax,           // a token that is not a number, name, range or step
  kOutOfRange,       // a number or name outside its field's range, a reversed range, step 0
  kUnsupported,      // known cron extensions droidlab does not implement (@reboot, L, W, #, ?)
  kUnknownTimeZone,  // not an IANA zone name in /usr/share/zoneinfo
};

struct CronError {
  CronErrorCode code;
  std::string
      message;  // one line naming the field and the token: "minute: 61 is out of range 0-59"
};

template <class T>
using CronResult = BasicResult<T, CronError>;

// A parsed expression: one bit per allowed value of each field.
class CronExpression {
 public:
  // Bit n set = value n allowed. Day-of-week 7 is folded into 0 (Sunday).
  std::uint64_t minutes() const { return minutes_; }       // bits 0-59
  std::uint32_t hours() const { return hours_; }           // bits 0-23
  std::uint32_t days_of_month() const { return dom_; }     // bits 1-31
  std::uint16_t months() const { return months_; }         // bits 1-12
  std::uint8_t days_of_week() const { return dow_; }       // bits 0-6, 0 = Sunday
  bool dom_restricted() const { return dom_restricted_; }  // field did not start with `*`
  bool dow_restricted() const { return dow_restricted_; }
  // True when the hour field is restricted: the job is anchored to the wall clock across DST
  // changes (see NextFiring). False for `*`, `*/N` hours: the job follows real time.
  bool fixed_time() const { return fixed_time_; }
  // The expression as given (macros kept as written), for storing and echoing back.
  const std::string& text() const { return text_; }

  // Whether a wall-clock reading matches; dow 0-6 with 0 = Sunday, month 1-12.
  bool Matches(int minute, int hour, int day_of_month, int month, int day_of_week) const;
  bool DayMatches(int day_of_month, int month, int day_of_week) const;
  // False when no date can ever match (`0 0 31 2 *`, `0 0 30 2 *`): NextFiring is nullopt.
  bool CanEverMatch() const;

  friend bool operator==(const CronExpression&, const CronExpression&) = default;

 private:
  friend CronResult<CronExpression> ParseCron(std::string_view text);
  std::uint64_t minutes_ = 0;
  std::uint32_t hours_ = 0;
  std::uint32_t dom_ = 0;
  std::uint16_t months_ = 0;
  std::uint8_t dow_ = 0;
  bool dom_restricted_ = false;
  bool dow_restricted_ = false;
  bool fixed_time_ = false;
  std::string text_;
};

// Parses a 5-field expression or a macro. Leading/trailing blanks and runs of spaces or tabs
// between fields are accepted. Errors: kEmpty, kFieldCount, kSyntax, kOutOfRange, kUnsupported;
// the message names the field and the token, e.g. "minute: 61 is out of range 0-59",
// "day-of-week: 'FUN' is not a number or a day name (SUN-SAT)".
CronResult<CronExpression> ParseCron(std::string_view text);

// An IANA time zone ("Europe/Berlin", "UTC", "America/New_York"; links such as "US/Eastern" are
// accepted and keep the name given). Names are case-sensitive, as in the tz database.
class TimeZone {
 public:
  // Errors: kEmpty; kUnknownTimeZone with the message
  // `timezone: unknown IANA time zone "Mars/Olympus"`.
  static CronResult<TimeZone> Find(std::string_view name);

  const std::string& name() const { return name_; }
  // UTC offset in effect at `t` (+02:00 in Berlin in summer = 7200 s).
  std::chrono::seconds OffsetAt(SysSeconds t) const;
  // Wall-clock reading at `t`, as seconds since 1970-01-01 00:00 of the wall clock.
  std::chrono::seconds LocalAt(SysSeconds t) const { return t.time_since_epoch() + OffsetAt(t); }

  friend bool operator==(const TimeZone& a, const TimeZone& b) { return a.zone_ == b.zone_; }

 private:
  TimeZone(std::string name, const date::time_zone* zone) : name_(std::move(name)), zone_(zone) {}
  friend class ZoneAccess;
  std::string name_;
  const date::time_zone* zone_;  // owned by the date library's tz database, lives forever
};

// How far NextFiring/PreviousFiring look. Impossible expressions (`0 0 31 2 *`) are recognised
// without searching (CronExpression::CanEverMatch); the horizon only bounds the work for legal
// but rare ones: Feb 29 needs 8 years across 2100, and the both-must-match rule can ask for a
// date on one weekday (`0 0 29 2 */2`, Feb 29 on Sun/Tue/Thu/Sat), which recurs within 28 years
// plus the century skip. The search steps over non-matching months at once, so 50 years cost a
// few thousand cheap steps in the worst case and a handful in the usual one.
inline constexpr std::chrono::days kCronSearchHorizon{50 * 366};

// The first firing strictly after `after`, or nullopt when the expression can never fire.
// Computed in the zone's wall time, field by field (month, day, hour, minute: a few dozen steps,
// never minute by minute). DST rule: Vixie cron's as Debian's cron documents it (man 8 cron,
// NOTES: skipped jobs "will be run soon after the change", repeated ones "will not be re-run"),
// which crontab users know, with one deliberate change: Debian counts a job as "wildcard" when
// its minute OR its hour field has a `*`; we look at the hour only (FreeBSD's cron draws a
// similar line: only "jobs that run more frequently [than hourly] are scheduled normally").
// Under Debian's test `*/15 2 * * *` fires zero times on spring-forward night and eight times
// on fall-back night; here it is fixed-time: one firing in the gap, and the four of the first
// pass of the repeated hour, so no night of a fixed-hour job is empty or doubled.
//  * fixed-time jobs (hour field restricted): every matching wall time maps to one instant.
//    A wall time that exists once fires then. A wall time skipped by spring-forward fires at
//    the first instant after the gap (the transition itself: 03:00 CEST for `30 2 * * *` in
//    Berlin on 2026-03-29, 02:30 +11 for `15 2 * * *` on Lord Howe); several skipped wall times
//    (`0,30 2 * * *`) collapse into that one firing, and a job that also matches 03:00 fires
//    once there. A wall time repeated by fall-back fires only at its first occurrence. So a
//    daily job fires exactly once each night, never zero times, never twice.
//  * real-time jobs (hour field starting with `*`): fire at each instant whose wall-clock
//    reading matches. `*/15 * * * *` fires every 15 real minutes straight through both nights
//    (4 per real hour: 12 firings over the 3 real hours of local 00:00-04:00 on spring-forward
//    night, 20 over its 5 real hours on fall-back night). A job meant to run every N minutes or
//    hours keeps its real interval; moving firings out of the gap would bunch them up.
std::optional<SysSeconds> NextFiring(const CronExpression& expr, const TimeZone& zone,
                                     SysSeconds after);

// The last firing at or before `at` (same rule as NextFiring), or nullopt when none within the
// horizon. NextFiring(PreviousFiring(t)) == NextFiring(t).
std::optional<SysSeconds> PreviousFiring(const CronExpression& expr, const TimeZone& zone,
                                         SysSeconds at);

// What to do with the firings due in (last_fired_or_created, now].
struct MissedFiringDecision {
  enum class Action {
    kNothingDue,  // no firing in (last, now]; wait until `next`
    kRunNow,      // start one run now; it stands for `scheduled_for`
    kSkip,        // the latest due firing is older than the grace: record it, do not run
  };
  Action action = Action::kNothingDue;
  // kRunNow / kSkip: the latest firing in (last, now]. Record it as the schedule's last fired
  // (or skipped) time before starting the run, so a restart asks again with it and finds
  // nothing due.
  std::optional<SysSeconds> scheduled_for;
  // kRunNow / kSkip: the earliest firing in (last, now]; equal to scheduled_for when only one
  // was due. For logs ("missed firings from 02:00 to 05:00, running the 05:00 one").
  std::optional<SysSeconds> earliest_due;
  // The first firing strictly after `now` (nullopt if none): when to wake next.
  std::optional<SysSeconds> next;
};

// The rule after downtime (and on every regular wake-up, where it simply says kRunNow): if one
// or more firings were due in (last_fired_or_created, now], run ONCE if the latest of them is
// within `grace` of now (now - latest <= grace), standing for that latest firing; otherwise skip
// them all. Never one run per missed firing, never the same firing twice. A negative grace is
// taken as zero (only an on-time wake-up runs). A `now` at or before `last_fired_or_created`
// (clock stepped back) is kNothingDue.
MissedFiringDecision DecideMissed(const CronExpression& expr, const TimeZone& zone,
                                  SysSeconds last_fired_or_created, SysSeconds now,
                                  std::chrono::seconds grace);

}  // namespace droidlab::orchestrator
