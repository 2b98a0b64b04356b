#include "orchestrator/lab/cron.h"

#include <date/tz.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <exception>
#include <optional>
#include <vector>

#include "base/parse_int.h"

namespace droidlab::orchestrator {

// Reaches TimeZone's date::time_zone pointer; declared a friend in cron.h.
class ZoneAccess {
 public:
  static const date::time_zone* Get(const TimeZone& zone) { return zone.zone_; }
  static TimeZone Make(std::string name, const date::time_zone* zone) {
    return TimeZone(std::move(name), zone);
  }
};

namespace {

// ---------------------------------------------------------------------------------------------
// Parsing

struct FieldSpec {
  const char* name;
  int low;
  int high;
  const std::array<const char*, 12>* names;  // index i = value names_base + i
  int names_base;
  const char* names_hint;  // "a month name (JAN-DEC)"
};

constexpr std::array<const char*, 12> kMonthNames = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                                     "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr std::array<const char*, 12> kDayNames = {
    "SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT", nullptr, nullptr, nullptr, nullptr, nullptr};

constexpr std::array<FieldSpec, 5> kFields = {{
    {"minute", 0, 59, nullptr, 0, nullptr},
    {"hour", 0, 23, nullptr, 0, nullptr},
    {"day-of-month", 1, 31, nullptr, 0, nullptr},
    {"month", 1, 12, &kMonthNames, 1, "a month name (JAN-DEC)"},
    {"day-of-week", 0, 7, &kDayNames, 0, "a day name (SUN-SAT)"},
}};

CronError Error(CronErrorCode code, const FieldSpec& f, std::string what) {
  return CronError{code, std::string(f.name) + ": " + std::move(what)};
}

std::string Quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) !=
        std::toupper(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Recognises extensions of other cron dialects so the error says "not supported" instead of
// "not a number": `?` (Quartz), `L`/`W` (last day, weekday nearest), `#` (nth weekday), `H`
// (Jenkins hash).
std::optional<std::string> UnsupportedExtension(std::string_view token) {
  if (token == "?") return "'?' (Quartz) is not supported; use *";
  if (token.find('#') != std::string_view::npos) {
    return Quoted(token) + " (nth weekday of the month) is not supported";
  }
  if (token == "L" || token == "LW" ||
      (token.size() > 1 && (token.back() == 'L' || token.back() == 'l') &&
       AllDigits(token.substr(0, token.size() - 1)))) {
    return Quoted(token) + " ('L', last day) is not supported";
  }
  if (token.size() > 1 && (token.back() == 'W' || token.back() == 'w') &&
      AllDigits(token.substr(0, token.size() - 1))) {
    return Quoted(token) + " ('W', nearest weekday) is not supported";
  }
  if (token == "H" || token.rfind("H(", 0) == 0) {
    return Quoted(token) + " ('H', Jenkins hash) is not supported";
  }
  return std::nullopt;
}

CronResult<int> ParseValue(std::string_view token, const FieldSpec& f) {
  if (AllDigits(token)) {
    const std::optional<int> v = ParseInt<int>(token);
    if (!v || *v < f.low || *v > f.high) {
      return Error(CronErrorCode::kOutOfRange, f,
                   std::string(token) + " is out of range " + std::to_string(f.low) + "-" +
                       std::to_string(f.high));
    }
    return *v;
  }
  if (f.names != nullptr) {
    for (size_t i = 0; i < f.names->size(); ++i) {
      const char* name = (*f.names)[i];
      if (name != nullptr && EqualsIgnoreCase(token, name)) {
        return f.names_base + static_cast<int>(i);
      }
    }
  }
  if (auto unsupported = UnsupportedExtension(token)) {
    return Error(CronErrorCode::kUnsupported, f, *unsupported);
  }
  if (token.empty()) return Error(CronErrorCode::kSyntax, f, "a value is missing");
  return Error(CronErrorCode::kSyntax, f,
               Quoted(token) + " is not a number" +
                   (f.names_hint != nullptr ? std::string(" or ") + f.names_hint : ""));
}

// One comma-separated item: `*`, `N`, `N-M`, `*/S`, `N-M/S`. Sets bits in `bits`.
std::optional<CronError> ParseItem(std::string_view item, const FieldSpec& f, std::uint64_t& bits) {
  std::string_view base = item;
  int step = 1;
  if (size_t slash = item.find('/'); slash != std::string_view::npos) {
    base = item.substr(0, slash);
    std::string_view step_text = item.substr(slash + 1);
    if (!AllDigits(step_text)) {
      return Error(CronErrorCode::kSyntax, f,
                   "step " + Quoted(step_text) + " in " + Quoted(item) + " is not a number");
    }
    const std::optional<int> parsed_step = ParseInt<int>(step_text);
    if (!parsed_step || *parsed_step < 1 || *parsed_step > f.high) {
      return Error(CronErrorCode::kOutOfRange, f,
                   "step " + std::string(step_text) + " in " + Quoted(item) +
                       " is out of range 1-" + std::to_string(f.high));
    }
    step = *parsed_step;
  }
  int first = 0;
  int last = 0;
  if (base == "*") {
    first = f.low;
    last = f.high;
  } else if (size_t dash = base.find('-'); dash != std::string_view::npos) {
    std::string_view a = base.substr(0, dash);
    std::string_view b = base.substr(dash + 1);
    if (a.empty() || b.empty() || b.find('-') != std::string_view::npos) {
      return Error(CronErrorCode::kSyntax, f, Quoted(base) + " is not a range N-M");
    }
    auto lo = ParseValue(a, f);
    if (!lo) return lo.error();
    auto hi = ParseValue(b, f);
    if (!hi) return hi.error();
    first = *lo;
    last = *hi;
    if (first > last) {
      return Error(CronErrorCode::kOutOfRange, f,
                   "range " + std::string(base) + " is reversed (ranges do not wrap around)");
    }
  } else {
    auto v = ParseValue(base, f);
    if (!v) return v.error();
    if (base.size() != item.size()) {
      // Vixie cron rejects `5/15`; other crons read it as 5-59/15 or as 5 alone. Say what we
      // would need instead of guessing.
      return Error(CronErrorCode::kSyntax, f,
                   Quoted(item) + " has a step but no range; write " + std::string(base) + "-" +
                       std::to_string(f.high) + std::string(item.substr(base.size())));
    }
    first = last = *v;
  }
  for (int v = first; v <= last; v += step) bits |= std::uint64_t{1} << v;
  return std::nullopt;
}

CronResult<std::uint64_t> ParseField(std::string_view field, const FieldSpec& f) {
  std::uint64_t bits = 0;
  size_t pos = 0;
  while (true) {
    size_t comma = field.find(',', pos);
    std::string_view item =
        field.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    if (item.empty()) {
      return Error(CronErrorCode::kSyntax, f, "empty list item in " + Quoted(field));
    }
    if (auto error = ParseItem(item, f, bits)) return *error;
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return bits;
}

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && (IsBlank(s.back()) || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::optional<std::string_view> ExpandMacro(std::string_view lowered) {
  if (lowered == "@yearly" || lowered == "@annually") return "0 0 1 1 *";
  if (lowered == "@monthly") return "0 0 1 * *";
  if (lowered == "@weekly") return "0 0 * * 0";
  if (lowered == "@daily" || lowered == "@midnight") return "0 0 * * *";
  if (lowered == "@hourly") return "0 * * * *";
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Wall-clock calendar search. Times are minutes since 1970-01-01 00:00 of the wall clock.

constexpr std::int64_t kMinutesPerDay = 24 * 60;
constexpr std::int64_t kSecondsPerDay = 24 * 60 * 60;

std::int64_t FloorDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

std::int64_t CeilDiv(std::int64_t a, std::int64_t b) { return -FloorDiv(-a, b); }

struct Civil {
  unsigned day;
  unsigned month;
  unsigned weekday;             // 0 = Sunday
  std::int64_t first_of_month;  // day number of the 1st of this month
  std::int64_t first_of_next_month;
};

Civil CivilFromDays(std::int64_t day_number) {
  using namespace std::chrono;
  const sys_days d{days{day_number}};
  const year_month_day ymd{d};
  const year_month ym = ymd.year() / ymd.month();
  const year_month next = ym + months{1};
  return Civil{static_cast<unsigned>(ymd.day()), static_cast<unsigned>(ymd.month()),
               weekday{d}.c_encoding(), sys_days{ym / 1}.time_since_epoch().count(),
               sys_days{next / 1}.time_since_epoch().count()};
}

// The first minute of the day at or after `minute_of_day` whose hour and minute match.
std::optional<int> FirstTimeOfDay(const CronExpression& e, int minute_of_day) {
  int minute = minute_of_day % 60;
  for (int hour = minute_of_day / 60; hour < 24; ++hour, minute = 0) {
    if (((e.hours() >> hour) & 1U) == 0) continue;
    const std::uint64_t bits = e.minutes() & (~std::uint64_t{0} << minute);
    if (bits != 0) return hour * 60 + std::countr_zero(bits);
  }
  return std::nullopt;
}

// The last minute of the day at or before `minute_of_day` whose hour and minute match.
std::optional<int> LastTimeOfDay(const CronExpression& e, int minute_of_day) {
  int minute = minute_of_day % 60;
  for (int hour = minute_of_day / 60; hour >= 0; --hour, minute = 59) {
    if (((e.hours() >> hour) & 1U) == 0) continue;
    const std::uint64_t bits = e.minutes() & ((std::uint64_t{2} << minute) - 1);
    if (bits != 0) return hour * 60 + 63 - std::countl_zero(bits);
  }
  return std::nullopt;
}

// First matching wall-clock minute >= from, on a day <= last_day. Steps: a non-matching month
// in one step, a day at a time within a matching month, then hour and minute by bit masks.
std::optional<std::int64_t> NextWallMinute(const CronExpression& e, std::int64_t from,
                                           std::int64_t last_day) {
  std::int64_t day = FloorDiv(from, kMinutesPerDay);
  int minute_of_day = static_cast<int>(from - day * kMinutesPerDay);
  while (day <= last_day) {
    const Civil c = CivilFromDays(day);
    if (((e.months() >> c.month) & 1U) == 0) {
      day = c.first_of_next_month;
      minute_of_day = 0;
      continue;
    }
    if (e.DayMatches(static_cast<int>(c.day), static_cast<int>(c.month),
                     static_cast<int>(c.weekday))) {
      if (auto t = FirstTimeOfDay(e, minute_of_day)) return day * kMinutesPerDay + *t;
    }
    ++day;
    minute_of_day = 0;
  }
  return std::nullopt;
}

// Last matching wall-clock minute <= from, on a day >= first_day.
std::optional<std::int64_t> PrevWallMinute(const CronExpression& e, std::int64_t from,
                                           std::int64_t first_day) {
  std::int64_t day = FloorDiv(from, kMinutesPerDay);
  int minute_of_day = static_cast<int>(from - day * kMinutesPerDay);
  while (day >= first_day) {
    const Civil c = CivilFromDays(day);
    if (((e.months() >> c.month) & 1U) == 0) {
      day = c.first_of_month - 1;
      minute_of_day = kMinutesPerDay - 1;
      continue;
    }
    if (e.DayMatches(static_cast<int>(c.day), static_cast<int>(c.month),
                     static_cast<int>(c.weekday))) {
      if (auto t = LastTimeOfDay(e, minute_of_day)) return day * kMinutesPerDay + *t;
    }
    --day;
    minute_of_day = kMinutesPerDay - 1;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Zone helpers. All in seconds since the epoch (sys) or since the wall-clock epoch (local).

// A stretch of real time with one UTC offset: [begin, end).
struct Segment {
  std::int64_t begin;
  std::int64_t end;
  std::int64_t offset;
};

Segment SegmentAt(const date::time_zone* zone, std::int64_t t) {
  const date::sys_info info = zone->get_info(date::sys_seconds{std::chrono::seconds{t}});
  return Segment{info.begin.time_since_epoch().count(), info.end.time_since_epoch().count(),
                 info.offset.count()};
}

// The instant a fixed-time job scheduled at wall time `local` fires: the instant itself when the
// wall time exists once, its first occurrence when repeated, the end of the gap when skipped.
// Non-decreasing in `local`, which is what lets the fixed-time search walk wall time in order.
std::int64_t ResolveWallTime(const date::time_zone* zone, std::int64_t local) {
  const date::local_info info = zone->get_info(date::local_seconds{std::chrono::seconds{local}});
  if (info.result == date::local_info::nonexistent)
    return info.first.end.time_since_epoch().count();
  return local - info.first.offset.count();  // unique, or the earlier of two (ambiguous)
}

constexpr std::int64_t kHorizonSeconds =
    std::chrono::duration_cast<std::chrono::seconds>(kCronSearchHorizon).count();
constexpr std::int64_t kHorizonDays = kCronSearchHorizon.count();

SysSeconds ToSys(std::int64_t t) { return SysSeconds{std::chrono::seconds{t}}; }

std::optional<SysSeconds> NextFixedTime(const CronExpression& e, const date::time_zone* zone,
                                        std::int64_t after) {
  const std::int64_t wall_after = after + SegmentAt(zone, after).offset;
  // Every wall time <= wall_after resolves to an instant <= after (ResolveWallTime is
  // non-decreasing and maps wall_after to after or, in a repeated hour's second pass, earlier).
  std::int64_t from = FloorDiv(wall_after, 60) + 1;
  const std::int64_t last_day = FloorDiv(wall_after, kSecondsPerDay) + kHorizonDays;
  while (true) {
    const auto wall = NextWallMinute(e, from, last_day);
    if (!wall) return std::nullopt;
    const std::int64_t s = ResolveWallTime(zone, *wall * 60);
    // s <= after only for wall times of a repeated hour whose first pass is already over.
    if (s > after) return ToSys(s);
    from = *wall + 1;
  }
}

std::optional<SysSeconds> PrevFixedTime(const CronExpression& e, const date::time_zone* zone,
                                        std::int64_t at) {
  // Wall times above at + (largest offset around `at`) resolve to instants after `at`; start
  // there and walk back. Costs at most the length of a repeated hour in extra steps.
  const Segment seg = SegmentAt(zone, at);
  std::int64_t offset = seg.offset;
  if (seg.begin > at - kHorizonSeconds)
    offset = std::max(offset, SegmentAt(zone, seg.begin - 1).offset);
  if (seg.end < at + kHorizonSeconds) offset = std::max(offset, SegmentAt(zone, seg.end).offset);
  std::int64_t from = FloorDiv(at + offset, 60);
  const std::int64_t first_day = FloorDiv(at, kSecondsPerDay) - kHorizonDays;
  while (true) {
    const auto wall = PrevWallMinute(e, from, first_day);
    if (!wall) return std::nullopt;
    const std::int64_t s = ResolveWallTime(zone, *wall * 60);
    if (s <= at) return ToSys(s);
    from = *wall - 1;
  }
}

// Real-time jobs: walk the zone's segments of constant offset; inside one, wall time and real
// time run together, so the first matching wall minute inside the segment is the answer.
std::optional<SysSeconds> NextRealTime(const CronExpression& e, const date::time_zone* zone,
                                       std::int64_t after) {
  const std::int64_t limit = after + kHorizonSeconds;
  std::int64_t t = after + 1;
  while (t <= limit) {
    const Segment seg = SegmentAt(zone, t);
    const std::int64_t wall_end = seg.end + seg.offset;  // exclusive
    const std::int64_t last_day = std::min(FloorDiv(wall_end - 1, kSecondsPerDay),
                                           FloorDiv(limit + seg.offset, kSecondsPerDay));
    const auto wall = NextWallMinute(e, CeilDiv(t + seg.offset, 60), last_day);
    if (wall && *wall * 60 < wall_end) return ToSys(*wall * 60 - seg.offset);
    t = seg.end;
  }
  return std::nullopt;
}

std::optional<SysSeconds> PrevRealTime(const CronExpression& e, const date::time_zone* zone,
                                       std::int64_t at) {
  const std::int64_t limit = at - kHorizonSeconds;
  std::int64_t t = at;
  while (t >= limit) {
    const Segment seg = SegmentAt(zone, t);
    const std::int64_t wall_begin = seg.begin + seg.offset;
    const std::int64_t first_day = std::max(FloorDiv(wall_begin, kSecondsPerDay),
                                            FloorDiv(limit + seg.offset, kSecondsPerDay));
    const auto wall = PrevWallMinute(e, FloorDiv(t + seg.offset, 60), first_day);
    if (wall && *wall * 60 >= wall_begin) return ToSys(*wall * 60 - seg.offset);
    t = seg.begin - 1;
  }
  return std::nullopt;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

bool CronExpression::DayMatches(int day_of_month, int month, int day_of_week) const {
  if (((months_ >> month) & 1U) == 0) return false;
  const bool dom = ((dom_ >> day_of_month) & 1U) != 0;
  const bool dow = ((dow_ >> day_of_week) & 1U) != 0;
  // Vixie cron: both restricted -> either; otherwise both (an unrestricted one is all ones,
  // except `*/N`, which Vixie also counts as unrestricted).
  return (dom_restricted_ && dow_restricted_) ? (dom || dow) : (dom && dow);
}

bool CronExpression::Matches(int minute, int hour, int day_of_month, int month,
                             int day_of_week) const {
  return ((minutes_ >> minute) & 1U) != 0 && ((hours_ >> hour) & 1U) != 0 &&
         DayMatches(day_of_month, month, day_of_week);
}

bool CronExpression::CanEverMatch() const {
  // Either-rule: every month has every weekday. Both-rule: any valid (month, day) falls on every
  // weekday in some year, so only the month lengths can make it impossible.
  if (dom_restricted_ && dow_restricted_) return months_ != 0 && dow_ != 0;
  if (dow_ == 0) return false;
  constexpr std::array<int, 13> kMaxDays = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  for (int m = 1; m <= 12; ++m) {
    if (((months_ >> m) & 1U) == 0) continue;
    const std::uint32_t valid_days = (std::uint32_t{2} << kMaxDays[static_cast<size_t>(m)]) - 2;
    if ((dom_ & valid_days) != 0) return true;
  }
  return false;
}

CronResult<CronExpression> ParseCron(std::string_view text) {
  const std::string_view trimmed = Trim(text);
  if (trimmed.empty()) {
    return CronError{CronErrorCode::kEmpty,
                     "cron: empty expression; expected 5 fields: minute hour day-of-month month "
                     "day-of-week, e.g. \"0 2 * * *\""};
  }
  std::string_view body = trimmed;
  if (trimmed.front() == '@') {
    const std::string lowered = Lower(trimmed);
    if (lowered == "@reboot") {
      return CronError{CronErrorCode::kUnsupported,
                       "cron: @reboot is not supported: a schedule fires at times of day"};
    }
    const auto expanded = ExpandMacro(lowered);
    if (!expanded) {
      return CronError{CronErrorCode::kSyntax,
                       "cron: unknown macro " + Quoted(trimmed) +
                           " (known: @yearly @annually @monthly @weekly @daily @midnight @hourly)"};
    }
    body = *expanded;
  }

  std::vector<std::string_view> fields;
  for (size_t i = 0; i < body.size();) {
    if (IsBlank(body[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < body.size() && !IsBlank(body[j])) ++j;
    fields.push_back(body.substr(i, j - i));
    i = j;
  }
  if (fields.size() == 6) {
    return CronError{CronErrorCode::kFieldCount,
                     "cron: 6 fields, but a seconds (or year) field is not supported; use 5 "
                     "fields: minute hour day-of-month month day-of-week"};
  }
  if (fields.size() != 5) {
    return CronError{
        CronErrorCode::kFieldCount,
        "cron: expected 5 fields (minute hour day-of-month month day-of-week), found " +
            std::to_string(fields.size())};
  }

  std::array<std::uint64_t, 5> bits{};
  for (size_t i = 0; i < 5; ++i) {
    auto parsed = ParseField(fields[i], kFields[i]);
    if (!parsed) return parsed.error();
    bits[i] = *parsed;
  }
  CronExpression e;
  e.minutes_ = bits[0];
  e.hours_ = static_cast<std::uint32_t>(bits[1]);
  e.dom_ = static_cast<std::uint32_t>(bits[2]);
  e.months_ = static_cast<std::uint16_t>(bits[3]);
  std::uint64_t dow = bits[4];
  if ((dow >> 7) & 1U) dow = (dow | 1U) & ~(std::uint64_t{1} << 7);  // 7 is Sunday
  e.dow_ = static_cast<std::uint8_t>(dow);
  e.dom_restricted_ = fields[2].front() != '*';
  e.dow_restricted_ = fields[4].front() != '*';
  e.fixed_time_ = fields[1].front() != '*';
  e.text_ = std::string(trimmed);
  return e;
}

CronResult<TimeZone> TimeZone::Find(std::string_view name) {
  if (name.empty()) {
    return CronError{
        CronErrorCode::kEmpty,
        "timezone: empty; give an IANA time zone such as \"Europe/Berlin\" or \"UTC\""};
  }
  const date::time_zone* zone = nullptr;
  // /usr/share/zoneinfo/localtime is the host's own zone, not an IANA name: a schedule must not
  // change meaning with the machine it runs on.
  if (name == "localtime" || name == "posixrules") {
    return CronError{CronErrorCode::kUnknownTimeZone,
                     "timezone: unknown IANA time zone \"" + std::string(name) + "\""};
  }
  try {
    zone = date::locate_zone(name);
  } catch (const std::exception&) {
    zone = nullptr;
  }
  if (zone == nullptr) {
    return CronError{CronErrorCode::kUnknownTimeZone,
                     "timezone: unknown IANA time zone \"" + std::string(name) + "\""};
  }
  return ZoneAccess::Make(std::string(name), zone);
}

std::chrono::seconds TimeZone::OffsetAt(SysSeconds t) const { return zone_->get_info(t).offset; }

std::optional<SysSeconds> NextFiring(const CronExpression& expr, const TimeZone& zone,
                                     SysSeconds after) {
  if (!expr.CanEverMatch()) return std::nullopt;
  const date::time_zone* z = ZoneAccess::Get(zone);
  const std::int64_t a = after.time_since_epoch().count();
  return expr.fixed_time() ? NextFixedTime(expr, z, a) : NextRealTime(expr, z, a);
}

std::optional<SysSeconds> PreviousFiring(const CronExpression& expr, const TimeZone& zone,
                                         SysSeconds at) {
  if (!expr.CanEverMatch()) return std::nullopt;
  const date::time_zone* z = ZoneAccess::Get(zone);
  const std::int64_t a = at.time_since_epoch().count();
  return expr.fixed_time() ? PrevFixedTime(expr, z, a) : PrevRealTime(expr, z, a);
}

MissedFiringDecision DecideMissed(const CronExpression& expr, const TimeZone& zone,
                                  SysSeconds last_fired_or_created, SysSeconds now,
                                  std::chrono::seconds grace) {
  MissedFiringDecision d;
  d.next = NextFiring(expr, zone, std::max(now, last_fired_or_created));
  if (now <= last_fired_or_created) return d;
  const auto first_due = NextFiring(expr, zone, last_fired_or_created);
  if (!first_due || *first_due > now) return d;
  // first_due <= now, so a previous firing exists and lies in [first_due, now].
  const auto latest_due = PreviousFiring(expr, zone, now);
  d.earliest_due = first_due;
  d.scheduled_for = latest_due.value_or(*first_due);
  const std::chrono::seconds late = now - *d.scheduled_for;
  d.action = late <= std::max(grace, std::chrono::seconds{0})
                 ? MissedFiringDecision::Action::kRunNow
                 : MissedFiringDecision::Action::kSkip;
  return d;
}

}  // namespace droidlab::orchestrator
