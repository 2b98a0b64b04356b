#include "parsers/logcat.h"

#include <bit>
#include <chrono>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "parsers/android_uid.h"
#include "parsers/logcat_tags.h"
#include "parsers/text.h"

namespace droidlab::parsers {
namespace {

constexpr std::string_view kActivityTaskManager = "ActivityTaskManager";

// The tag check is the hot path's only look at content: a length test first, then one memcmp.
bool IsLaunchTag(std::string_view tag) {
  if (tag.size() == kActivityTaskManager.size()) {
    return std::memcmp(tag.data(), kActivityTaskManager.data(), tag.size()) == 0;
  }
  if (tag.size() == kActivityManager.size()) {
    return std::memcmp(tag.data(), kActivityManager.data(), tag.size()) == 0;
  }
  return false;
}

// False exactly when ParseLaunchMessage would answer kNotLaunch.
bool MayBeLaunchMessage(std::string_view msg) {
  if (msg.empty()) return false;
  switch (msg[0]) {
    case 'D':
      return msg.starts_with("Displayed ");
    case 'F':
      return msg.starts_with("Fully drawn ");
    case 'S':
      return msg.starts_with("START u") || msg.starts_with("Start proc ");
    default:
      return false;
  }
}

// android_LogPriority letters as filterPriToChar prints them.
// One bit test: bit (c - 'A') of a mask of the eight letters.
inline bool IsPriority(char c) {
  constexpr uint32_t kLetters = 1u << ('V' - 'A') | 1u << ('D' - 'A') | 1u << ('I' - 'A') |
                                1u << ('W' - 'A') | 1u << ('E' - 'A') | 1u << ('F' - 'A') |
                                1u << ('A' - 'A') | 1u << ('S' - 'A');
  const auto k = static_cast<unsigned>(static_cast<unsigned char>(c)) - 'A';
  return k < 32 && ((kLetters >> k) & 1) != 0;
}

size_t CountDigits(std::string_view s, size_t pos) {
  size_t n = 0;
  while (pos + n < s.size() && IsAsciiDigit(s[pos + n])) ++n;
  return n;
}

// `pattern`: 'd' is a digit, any other char must match itself.
bool MatchPattern(std::string_view s, size_t pos, std::string_view pattern) {
  if (s.size() < pos + pattern.size()) return false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = s[pos + i];
    if (pattern[i] == 'd' ? !IsAsciiDigit(c) : c != pattern[i]) return false;
  }
  return true;
}

// Matches a logprint timestamp at the start of `s`: "MM-DD HH:MM:SS.fff", with "YYYY-" (year),
// 6 or 9 fraction digits (usec, nsec), " +hhmm" (zone), or "  1700000000.123" (epoch, monotonic;
// right-aligned). Returns the end offset (0 if none) and the first non-blank in `start`.
size_t MatchTime(std::string_view s, size_t& start) {
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  start = i;
  size_t d = CountDigits(s, i);
  if (d == 0) return 0;
  size_t p = i + d;
  if (p < s.size() && s[p] == '.') {  // epoch / monotonic seconds
    if (d > 19) return 0;
  } else {
    if (d == 4) {
      if (p >= s.size() || s[p] != '-') return 0;
      p = i + 5;
    } else if (d == 2) {
      p = i;
    } else {
      return 0;
    }
    if (!MatchPattern(s, p, "dd-dd dd:dd:dd.")) return 0;
    p += 14;
  }
  size_t f = CountDigits(s, p + 1);
  if (f != 3 && f != 6 && f != 9) return 0;
  p += 1 + f;
  if (p + 6 <= s.size() && s[p] == ' ' && (s[p + 1] == '+' || s[p + 1] == '-') &&
      MatchPattern(s, p + 2, "dddd")) {
    p += 6;
  }
  return p;
}

// Header fields of one line, as views into it.
struct Header {
  std::string_view time;
  std::optional<int64_t> pid;
  std::optional<int64_t> tid;
  std::string_view tag;
  bool has_tag = false;
  std::string_view message;
};

enum class LineKind { kEntry, kLongHeader, kSeparator, kBlank, kNotLogcat };

// A uid field: a name of at most 5 chars (getpwuid) or a number.
bool IsUidToken(std::string_view t) {
  if (t.empty() || t.size() > 11) return false;
  for (char c : t) {
    if (!(IsAsciiDigit(c) || (c >= 'a' && c <= 'z') || c == '_')) return false;
  }
  return true;
}

// Finds the ": " (or a final ':') that ends a tag at or after `from`; npos if none. Sixteen
// positions at a time where the compiler has SSE2 (a ':' whose next byte is ' '), the last
// bytes one by one; never reads past `s`.
[[gnu::always_inline]] inline size_t FindTagEnd(std::string_view s, size_t from) {
  const char* p = s.data();
  const size_t n = s.size();
#if defined(__SSE2__)
  const __m128i colon = _mm_set1_epi8(':');
  const __m128i blank = _mm_set1_epi8(' ');
  while (from + 17 <= n) {
    const __m128i here = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + from));
    const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + from + 1));
    const unsigned hits = static_cast<unsigned>(_mm_movemask_epi8(
        _mm_and_si128(_mm_cmpeq_epi8(here, colon), _mm_cmpeq_epi8(next, blank))));
    if (hits != 0) return from + static_cast<size_t>(__builtin_ctz(hits));
    from += 16;
  }
#endif
  for (; from < n; ++from) {
    if (p[from] == ':' && (from + 1 == n || p[from + 1] == ' ')) return from;
  }
  return std::string_view::npos;
}

std::string_view MessageAfter(std::string_view s, size_t colon) {
  return colon + 2 <= s.size() ? s.substr(colon + 2) : std::string_view();
}

// "[uid] pid tid P tag: message" after a threadtime timestamp (s[p] is the first blank).
bool ParseThreadtimeRest(std::string_view s, size_t p, Header& h) {
  std::string_view ids[3];
  int n = 0;
  for (;;) {
    if (p >= s.size() || s[p] != ' ') return false;
    while (p < s.size() && s[p] == ' ') ++p;
    if (p >= s.size()) return false;
    size_t e = p;
    while (e < s.size() && s[e] != ' ') ++e;
    std::string_view tok = s.substr(p, e - p);
    if (n >= 2 && tok.size() == 1 && IsPriority(tok[0])) {
      p = e;
      break;
    }
    if (n == 3) return false;
    ids[n++] = tok;
    p = e;
  }
  int first = n - 2;  // ids[0] is the uid when there are three
  if (first == 1 && !IsUidToken(ids[0])) return false;
  h.pid = ParseInt64(ids[first]);
  h.tid = ParseInt64(ids[first + 1]);
  if (!h.pid || !h.tid) return false;
  if (p >= s.size() || s[p] != ' ') return false;
  size_t tag_start = p + 1;
  size_t colon = FindTagEnd(s, tag_start);
  if (colon == std::string_view::npos) return false;
  h.tag = TrimRight(s.substr(tag_start, colon - tag_start));
  h.has_tag = true;
  h.message = MessageAfter(s, colon);
  return true;
}

// "( 1000: 1234)" / "(  977)" content: an optional "uid:" then the pid.
std::optional<int64_t> ParsePidField(std::string_view content) {
  std::string_view pid_text = content;
  size_t colon = content.find(':');
  if (colon != std::string_view::npos) {
    if (!IsUidToken(Trim(content.substr(0, colon)))) return std::nullopt;
    pid_text = content.substr(colon + 1);
  }
  return ParseInt64(Trim(pid_text));
}

// brief "P/tag([uid:]pid): msg" (and time's tail) or tag "P/tag: msg"; `s` starts at the
// priority. The "(pid)" must come before the first ": " — the uid form has a ": " inside it.
bool ParseSlashFormat(std::string_view s, Header& h) {
  size_t colon = FindTagEnd(s, 2);
  size_t open = s.find('(', 2);
  if (open != std::string_view::npos && open < colon) {
    size_t close = s.find(')', open);
    if (close != std::string_view::npos && close + 1 < s.size() && s[close + 1] == ':' &&
        (close + 2 == s.size() || s[close + 2] == ' ')) {
      auto pid = ParsePidField(s.substr(open + 1, close - open - 1));
      if (pid) {
        h.pid = pid;
        h.tag = TrimRight(s.substr(2, open - 2));
        h.has_tag = true;
        h.message = MessageAfter(s, close + 1);
        return true;
      }
    }
  }
  if (colon == std::string_view::npos) return false;
  h.tag = TrimRight(s.substr(2, colon - 2));
  h.has_tag = true;
  h.message = MessageAfter(s, colon);
  return true;
}

// process "P(pid) msg  (tag)" or thread "P(pid:tid) msg"; `s` starts at the priority.
bool ParseParenFormat(std::string_view s, Header& h) {
  size_t close = s.find(')', 2);
  if (close == std::string_view::npos) return false;
  std::string_view content = s.substr(2, close - 2);
  std::string_view rest = s.substr(close + 1);
  if (!rest.empty() && rest[0] != ' ') return false;
  rest = rest.empty() ? rest : rest.substr(1);
  size_t tag_open = rest.rfind("  (");
  if (!rest.empty() && rest.back() == ')' && tag_open != std::string_view::npos) {
    auto pid = ParsePidField(content);
    if (!pid) return false;
    h.pid = pid;
    h.tag = rest.substr(tag_open + 3, rest.size() - tag_open - 4);
    h.has_tag = true;
    h.message = rest.substr(0, tag_open);
    return true;
  }
  // thread: "[uid:] pid:tid"
  size_t last = content.rfind(':');
  if (last == std::string_view::npos) return false;
  std::string_view head = content.substr(0, last);
  size_t uid_colon = head.find(':');
  if (uid_colon != std::string_view::npos) {
    if (!IsUidToken(Trim(head.substr(0, uid_colon)))) return false;
    head = head.substr(uid_colon + 1);
  }
  h.pid = ParseInt64(Trim(head));
  h.tid = ParseInt64(Trim(content.substr(last + 1)));
  if (!h.pid || !h.tid) return false;
  h.has_tag = false;
  h.message = rest;
  return true;
}

// "[ time [uid:] pid:tid P/tag ]"
bool ParseLongHeader(std::string_view s, Header& h) {
  if (s.size() < 4 || s[0] != '[' || s.back() != ']') return false;
  std::string_view body = s.substr(1, s.size() - 2);
  size_t start = 0;
  size_t end = MatchTime(body, start);
  if (end == 0) return false;
  h.time = body.substr(start, end - start);
  // The priority token "P/" ends the id region.
  size_t p = end;
  size_t prio = std::string_view::npos;
  for (size_t i = p; i + 1 < body.size(); ++i) {
    if (body[i] == '/' && i > 0 && IsPriority(body[i - 1]) && i >= 2 && body[i - 2] == ' ') {
      prio = i - 1;
      break;
    }
  }
  if (prio == std::string_view::npos) return false;
  std::string_view ids = body.substr(p, prio - p);
  size_t last = ids.rfind(':');
  if (last == std::string_view::npos) return false;
  std::string_view head = ids.substr(0, last);
  size_t uid_colon = head.find(':');
  if (uid_colon != std::string_view::npos) {
    if (!IsUidToken(Trim(head.substr(0, uid_colon)))) return false;
    head = head.substr(uid_colon + 1);
  }
  h.pid = ParseInt64(Trim(head));
  h.tid = ParseInt64(Trim(ids.substr(last + 1)));
  if (!h.pid || !h.tid) return false;
  h.tag = Trim(body.substr(prio + 2));
  h.has_tag = true;
  return true;
}

// `logcat -v color`: "\x1B[33m" … "\x1B[0m".
std::string_view StripColor(std::string_view s) {
  if (s.size() >= 4 && s[0] == '\x1B' && s[1] == '[') {
    size_t i = 2;
    while (i < s.size() && (IsAsciiDigit(s[i]) || s[i] == ';')) ++i;
    if (i < s.size() && s[i] == 'm') s.remove_prefix(i + 1);
  }
  constexpr std::string_view kReset = "\x1B[0m";
  if (s.size() >= kReset.size() && s.substr(s.size() - kReset.size()) == kReset) {
    s.remove_suffix(kReset.size());
  }
  return s;
}

bool IsDigitAt(const char* p, size_t i) { return static_cast<unsigned char>(p[i] - '0') < 10; }

// Digits at s[i..], at most 10 (pid_max is 4194304); returns the index after them, or `i` when
// there are none or too many.
size_t TakeId(std::string_view s, size_t i, int64_t& value) {
  size_t start = i;
  int64_t v = 0;
  while (i < s.size() && IsDigitAt(s.data(), i)) {
    v = v * 10 + (s[i] - '0');
    if (++i - start > 10) return start;
  }
  value = v;
  return i;
}

// The common case, `-v threadtime` with no modifier: "MM-DD HH:MM:SS.mmm  pid  tid P tag: msg".
// Checks the fixed layout with plain compares and reads the ids inline; anything else (uid
// column, usec, zone, …) returns false and takes the general path.
bool FastThreadtime(std::string_view s, Header& h) {
  const char* p = s.data();
  if (s.size() < 26 || p[2] != '-' || p[5] != ' ' || p[8] != ':' || p[11] != ':' || p[14] != '.' ||
      p[18] != ' ') {
    return false;
  }
  if (!(IsDigitAt(p, 0) && IsDigitAt(p, 1) && IsDigitAt(p, 3) && IsDigitAt(p, 4) &&
        IsDigitAt(p, 6) && IsDigitAt(p, 7) && IsDigitAt(p, 9) && IsDigitAt(p, 10) &&
        IsDigitAt(p, 12) && IsDigitAt(p, 13) && IsDigitAt(p, 15) && IsDigitAt(p, 16) &&
        IsDigitAt(p, 17))) {
    return false;
  }
  size_t i = 19;
  while (i < s.size() && p[i] == ' ') ++i;
  int64_t pid = 0;
  size_t e = TakeId(s, i, pid);
  if (e == i || e >= s.size() || p[e] != ' ') return false;
  i = e;
  while (i < s.size() && p[i] == ' ') ++i;
  int64_t tid = 0;
  e = TakeId(s, i, tid);
  if (e == i || e + 3 > s.size() || p[e] != ' ' || !IsPriority(p[e + 1]) || p[e + 2] != ' ') {
    return false;
  }
  size_t tag_start = e + 3;
  size_t colon = FindTagEnd(s, tag_start);
  if (colon == std::string_view::npos) return false;
  h.time = s.substr(0, 18);
  h.pid = pid;
  h.tid = tid;
  h.tag = TrimRight(s.substr(tag_start, colon - tag_start));
  h.has_tag = true;
  h.message = MessageAfter(s, colon);
  return true;
}

LineKind ClassifyLine(std::string_view s, Header& h) {
  if (FastThreadtime(s, h)) return LineKind::kEntry;
  // Other timestamped layouts starting with "MM-DD ".
  if (s.size() >= 19 && s[2] == '-' && s[5] == ' ' && s[8] == ':' && s[11] == ':' && s[14] == '.') {
    size_t start = 0;
    size_t end = MatchTime(s, start);
    if (end == 0) return LineKind::kNotLogcat;
    h.time = s.substr(0, end);
    if (end + 2 < s.size() && IsPriority(s[end + 1]) && s[end + 2] == '/') {  // time
      return ParseSlashFormat(s.substr(end + 1), h) ? LineKind::kEntry : LineKind::kNotLogcat;
    }
    return ParseThreadtimeRest(s, end, h) ? LineKind::kEntry : LineKind::kNotLogcat;
  }
  if (s.empty()) return LineKind::kBlank;
  if (s[0] == '\x1B') {
    std::string_view plain = StripColor(s);
    if (plain.size() != s.size()) return ClassifyLine(plain, h);
  }
  char c = s[0];
  if (s.size() >= 2 && IsPriority(c)) {
    if (s[1] == '/') {
      return ParseSlashFormat(s, h) ? LineKind::kEntry : LineKind::kNotLogcat;
    }
    if (s[1] == '(') {
      return ParseParenFormat(s, h) ? LineKind::kEntry : LineKind::kNotLogcat;
    }
  }
  if (c == '[') return ParseLongHeader(s, h) ? LineKind::kLongHeader : LineKind::kNotLogcat;
  if (c == '-') {
    constexpr std::string_view kSeparator = "--------- ";
    std::string_view rest = s;
    if (ConsumePrefix(rest, kSeparator) &&
        (rest.starts_with("beginning of ") || rest.starts_with("switch to ") ||
         rest.starts_with("tail end of "))) {
      return LineKind::kSeparator;
    }
    return LineKind::kNotLogcat;
  }
  if (c == ' ' || IsAsciiDigit(c)) {
    size_t start = 0;
    size_t end = MatchTime(s, start);
    if (end == 0) {
      return Trim(s).empty() ? LineKind::kBlank : LineKind::kNotLogcat;
    }
    h.time = s.substr(start, end - start);
    if (end + 2 < s.size() && IsPriority(s[end + 1]) && s[end + 2] == '/') {
      return ParseSlashFormat(s.substr(end + 1), h) ? LineKind::kEntry : LineKind::kNotLogcat;
    }
    return ParseThreadtimeRest(s, end, h) ? LineKind::kEntry : LineKind::kNotLogcat;
  }
  if (c == '\t' && Trim(s).empty()) return LineKind::kBlank;
  return LineKind::kNotLogcat;
}

// --- launch messages ---------------------------------------------------------------------------

enum class MessageKind { kNotLaunch, kLaunch, kMalformed };

// "com.pkg/.Main" -> package "com.pkg", activity "com.pkg.Main"
// (ComponentName.unflattenFromString).
bool SplitComponent(std::string_view component, LaunchEvent& ev, bool fill_activity) {
  size_t slash = component.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == component.size()) {
    return false;
  }
  std::string_view pkg = component.substr(0, slash);
  std::string_view cls = component.substr(slash + 1);
  ev.component.assign(component);
  ev.package.assign(pkg);
  if (fill_activity) {
    if (cls[0] == '.') {
      ev.activity.reserve(pkg.size() + cls.size());
      ev.activity.assign(pkg);
      ev.activity.append(cls);
    } else {
      ev.activity.assign(cls);
    }
  }
  return true;
}

std::string_view TakeUntilBlank(std::string_view& s) {
  size_t e = s.find(' ');
  std::string_view tok = s.substr(0, e);
  s.remove_prefix(e == std::string_view::npos ? s.size() : e);
  return tok;
}

// "Displayed C[ for user N]: D[ (total D)]" and "Fully drawn C: D[ (total D)]".
MessageKind ParseDrawnMessage(std::string_view rest, LaunchEvent& ev) {
  size_t e = rest.find_first_of(" :");
  if (e == std::string_view::npos) return MessageKind::kMalformed;
  std::string_view component = rest.substr(0, e);
  if (component.find_first_of("{}()") != std::string_view::npos) return MessageKind::kMalformed;
  if (!SplitComponent(component, ev, true)) return MessageKind::kMalformed;
  rest.remove_prefix(e);
  if (ConsumePrefix(rest, " for user ")) {
    auto head = SplitFirst(rest, ':');
    if (!head) return MessageKind::kMalformed;
    ev.user_id = ParseInt64(*head);
    if (!ev.user_id) return MessageKind::kMalformed;
    if (!ConsumePrefix(rest, " ")) return MessageKind::kMalformed;
  } else if (!ConsumePrefix(rest, ": ")) {
    return MessageKind::kMalformed;
  }
  ev.duration_ms = ParseFormattedDuration(TakeUntilBlank(rest));
  if (!ev.duration_ms) return MessageKind::kMalformed;
  if (rest.empty()) return MessageKind::kLaunch;
  if (!ConsumePrefix(rest, " (total ") || rest.empty() || rest.back() != ')') {
    return MessageKind::kMalformed;
  }
  ev.total_ms = ParseFormattedDuration(rest.substr(0, rest.size() - 1));
  return ev.total_ms ? MessageKind::kLaunch : MessageKind::kMalformed;
}

// Digits at the front of `s` (consumed); nullopt if none.
std::optional<int64_t> TakeNumber(std::string_view& s) {
  size_t n = CountDigits(s, 0);
  auto v = ParseInt64(s.substr(0, n));
  if (v) s.remove_prefix(n);
  return v;
}

// "START u0 {act=… cmp=pkg/.Act …} [with MODE] from uid N [on display N] [result code=N]"
MessageKind ParseStartMessage(std::string_view rest, LaunchEvent& ev) {
  ev.kind = LaunchEventKind::kActivityStart;
  ev.user_id = TakeNumber(rest);
  if (!ev.user_id || !ConsumePrefix(rest, " {")) return MessageKind::kMalformed;
  int depth = 1;
  size_t close = 0;
  for (; close < rest.size(); ++close) {
    if (rest[close] == '{') ++depth;
    if (rest[close] == '}' && --depth == 0) break;
  }
  if (close == rest.size()) return MessageKind::kMalformed;
  std::string_view intent = rest.substr(0, close);
  std::string_view after = rest.substr(close + 1);
  for (size_t at = intent.find("cmp="); at != std::string_view::npos;
       at = intent.find("cmp=", at + 1)) {
    if (at != 0 && intent[at - 1] != ' ') continue;
    std::string_view value = intent.substr(at + 4);
    value = value.substr(0, value.find(' '));
    if (!SplitComponent(value, ev, true)) return MessageKind::kMalformed;
    break;
  }
  size_t from = after.find(" from uid ");
  if (from != std::string_view::npos) {
    std::string_view num = after.substr(from + 10);
    ev.uid = TakeNumber(num);
    if (!ev.uid) return MessageKind::kMalformed;
    if (ConsumePrefix(num, " pid ") || ConsumePrefix(num, " and from pid ")) {
      ev.caller_pid = TakeNumber(num);
    }
  } else if ((from = after.find(" from pid ")) != std::string_view::npos) {
    std::string_view num = after.substr(from + 10);
    ev.caller_pid = TakeNumber(num);
    if (!ev.caller_pid) return MessageKind::kMalformed;
  }
  return MessageKind::kLaunch;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// "TYPE[ NAME]" after " for ": NAME is the last token when it is a component ("{pkg/Cls}" or
// "pkg/.Cls"); TYPE may hold a blank ("content provider").
MessageKind ParseHosting(std::string_view hosting, LaunchEvent& ev) {
  std::string_view type = hosting;
  std::string_view name;
  size_t brace = hosting.find(" {");
  if (brace != std::string_view::npos) {
    size_t close = hosting.find('}', brace);
    if (close == std::string_view::npos) return MessageKind::kMalformed;
    type = hosting.substr(0, brace);
    name = hosting.substr(brace + 2, close - brace - 2);
  } else {
    size_t blank = hosting.rfind(' ');
    if (blank != std::string_view::npos &&
        hosting.substr(blank + 1).find('/') != std::string_view::npos) {
      type = hosting.substr(0, blank);
      name = hosting.substr(blank + 1);
    }
  }
  if (type.empty()) return MessageKind::kMalformed;
  ev.reason.assign(type);
  if (!name.empty()) {
    if (!SplitComponent(name, ev, EndsWith(type, "activity"))) return MessageKind::kMalformed;
  }
  return MessageKind::kLaunch;
}

// Android 7+: "PID:PROC/UID[ [entry]] for TYPE[ NAME][ caller=…]"
// Android 4-6: "PROC for TYPE[ NAME]: pid=N uid=N gids={…}[ abi=…]"
MessageKind ParseStartProcMessage(std::string_view rest, LaunchEvent& ev) {
  ev.kind = LaunchEventKind::kProcessStart;
  size_t for_at = rest.find(" for ");
  if (for_at == std::string_view::npos || for_at == 0) return MessageKind::kMalformed;
  std::string_view subject = rest.substr(0, for_at);
  std::string_view hosting = rest.substr(for_at + 5);
  size_t digits = CountDigits(subject, 0);
  if (digits > 0 && digits < subject.size() && subject[digits] == ':') {
    ev.process_pid = ParseInt64(subject.substr(0, digits));
    std::string_view proc_uid = subject.substr(digits + 1);
    size_t entry = proc_uid.find(" [");  // isolated entry point
    if (entry != std::string_view::npos) proc_uid = proc_uid.substr(0, entry);
    size_t slash = proc_uid.rfind('/');
    if (!ev.process_pid || slash == std::string_view::npos || slash == 0) {
      return MessageKind::kMalformed;
    }
    ev.process_name.assign(proc_uid.substr(0, slash));
    ev.uid = ParseFormattedUid(proc_uid.substr(slash + 1));
    if (!ev.uid) return MessageKind::kMalformed;
    size_t caller = hosting.find(" caller=");  // OEM suffix (seen on Android 14 builds)
    if (caller != std::string_view::npos) hosting = hosting.substr(0, caller);
  } else {
    if (subject.find(' ') != std::string_view::npos) return MessageKind::kMalformed;
    ev.process_name.assign(subject);
    size_t pid_at = hosting.find(": pid=");
    if (pid_at == std::string_view::npos) return MessageKind::kMalformed;
    std::string_view tail = hosting.substr(pid_at + 6);
    hosting = hosting.substr(0, pid_at);
    ev.process_pid = TakeNumber(tail);
    if (!ev.process_pid || !ConsumePrefix(tail, " uid=")) return MessageKind::kMalformed;
    ev.uid = TakeNumber(tail);
    if (!ev.uid) return MessageKind::kMalformed;
  }
  MessageKind k = ParseHosting(hosting, ev);
  if (k == MessageKind::kLaunch && ev.package.empty()) {
    std::string_view proc = ev.process_name;
    ev.package.assign(proc.substr(0, proc.find(':')));
  }
  return k;
}

MessageKind ParseLaunchMessage(std::string_view msg, LaunchEvent& ev) {
  if (msg.empty()) return MessageKind::kNotLaunch;
  std::string_view rest = msg;
  switch (msg[0]) {
    case 'D':
      if (!ConsumePrefix(rest, "Displayed ")) return MessageKind::kNotLaunch;
      ev.kind = LaunchEventKind::kDisplayed;
      return ParseDrawnMessage(rest, ev);
    case 'F':
      if (!ConsumePrefix(rest, "Fully drawn ")) return MessageKind::kNotLaunch;
      ev.kind = LaunchEventKind::kFullyDrawn;
      return ParseDrawnMessage(rest, ev);
    case 'S':
      if (ConsumePrefix(rest, "START u")) return ParseStartMessage(rest, ev);
      if (ConsumePrefix(rest, "Start proc ")) return ParseStartProcMessage(rest, ev);
      return MessageKind::kNotLaunch;
    default:
      return MessageKind::kNotLaunch;
  }
}

void FillHeader(const Header& h, LaunchEvent& ev) {
  ev.time.assign(h.time);
  ev.log_time = ParseLogTime(h.time);
  ev.pid = h.pid;
  ev.tid = h.tid;
  if (h.has_tag) ev.tag.assign(h.tag);
}

ParseError MalformedLaunch(std::string_view msg) {
  constexpr size_t kQuote = 80;
  std::string text = "unreadable launch line: \"";
  text.append(msg.substr(0, kQuote));
  if (msg.size() > kQuote) text.append("…");
  text.append("\"");
  return MakeError(ParseErrorCode::kMalformed, std::move(text));
}

// The message of a line whose tag is a launch tag (or that has no tag).
Result<std::optional<LaunchEvent>> MessageToEvent(const Header& h) {
  LaunchEvent ev;
  switch (ParseLaunchMessage(h.message, ev)) {
    case MessageKind::kNotLaunch:
      return std::optional<LaunchEvent>();
    case MessageKind::kMalformed:
      return MalformedLaunch(h.message);
    case MessageKind::kLaunch:
      break;
  }
  FillHeader(h, ev);
  return std::optional<LaunchEvent>(std::move(ev));
}

// MessageToEvent for the reader: the event built in place at the end of `out`, not moved from
// the stack through the Result into the vector (those moves of its seven strings were 10 % of
// `parse logcat`'s instructions on launch lines: callgrind). False for an unreadable launch
// message (skipped).
bool AppendMessageEvent(const Header& h, std::vector<LaunchEvent>& out) {
  // Most lines under the launch tags are not launches: those are told by their first bytes
  // (what ParseLaunchMessage answers kNotLaunch for) before an event is made and dropped.
  if (!MayBeLaunchMessage(h.message)) return true;
  LaunchEvent& ev = out.emplace_back();
  switch (ParseLaunchMessage(h.message, ev)) {
    case MessageKind::kNotLaunch:
      out.pop_back();
      return true;
    case MessageKind::kMalformed:
      out.pop_back();
      return false;
    case MessageKind::kLaunch:
      break;
  }
  FillHeader(h, ev);
  return true;
}

// The fault tags other than ActivityManager (which starts with "Activity" and takes the full
// path anyway), by prefix: a switch on the first byte keeps the noise path at one compare for
// most tags. A prefix match that is not the whole tag only costs the full path.
inline bool MayBeFaultTag(const char* t, size_t n) {
  // Constant-length compares: the compiler turns each into a load or two, not a libc call.
  switch (t[0]) {
    case 'A':
      return n >= 14 && std::memcmp(t, "AndroidRuntime", 14) == 0;
    case 'D':
      return n >= 5 && std::memcmp(t, "DEBUG", 5) == 0;
    case 'L':
      return n >= 6 && std::memcmp(t, "Looper", 6) == 0;
    case 'a':
      return n >= 6 && std::memcmp(t, "am_", 3) == 0 &&
             (std::memcmp(t + 3, "anr", 3) == 0 || (n >= 8 && std::memcmp(t + 3, "crash", 5) == 0));
    default:
      return false;
  }
}

// "  pid  tid" from p[18] (a blank): false unless blanks, 1–10 digits, blanks, 1–10 digits follow;
// else `end` is the index after the tid.
inline bool ThreadtimeIdsEnd(const char* p, size_t n, size_t& end) {
  size_t i = 19;
  while (i < n && p[i] == ' ') ++i;
  size_t start = i;
  while (i < n && IsDigitAt(p, i)) ++i;
  if (i == start || i - start > 10 || i >= n || p[i] != ' ') return false;
  while (i < n && p[i] == ' ') ++i;
  start = i;
  while (i < n && IsDigitAt(p, i)) ++i;
  if (i == start || i - start > 10) return false;
  end = i;
  return true;
}

// "MM-DD HH:MM:SS.mmm  pid  tid" at the start of a line of at least 26 bytes, a byte or a word
// at a time: the timestamp's fixed positions eight bytes at a time, then the ids; `end` is the
// index after the tid.
inline bool ThreadtimeHeaderEndBytes(const char* p, size_t n, size_t& end) {
  static_assert(std::endian::native == std::endian::little, "byte masks below are little-endian");
  uint64_t w0, w1;
  std::memcpy(&w0, p, 8);      // "MM-DD HH"
  std::memcpy(&w1, p + 8, 8);  // ":MM:SS.m"
  // Bytes that must be digits (0x30-0x39) and bytes that must match exactly (little-endian).
  constexpr uint64_t kDigits0 = 0xFFFF00FFFF00FFFFull;  // positions 0,1,3,4,6,7
  constexpr uint64_t kFixed0 = ~kDigits0;               // '-' at 2, ' ' at 5
  constexpr uint64_t kWant0 = 0x00002000002D0000ull;
  constexpr uint64_t kDigits1 = 0xFF00FFFF00FFFF00ull;  // positions 9,10,12,13,15
  constexpr uint64_t kFixed1 = ~kDigits1;               // ':' at 8, ':' at 11, '.' at 14
  constexpr uint64_t kWant1 = 0x002E00003A00003Aull;
  constexpr uint64_t kHigh = 0xF0F0F0F0F0F0F0F0ull;
  constexpr uint64_t kZeros = 0x3030303030303030ull;
  constexpr uint64_t kSix = 0x0606060606060606ull;
  if ((w0 & kFixed0) != kWant0 || (w1 & kFixed1) != kWant1) return false;
  // Fixed bytes are small, so adding 6 carries out of no byte: a digit byte stays 0x3X.
  if ((w0 & kDigits0 & kHigh) != (kZeros & kDigits0) ||
      ((w0 + kSix) & kDigits0 & kHigh) != (kZeros & kDigits0) ||
      (w1 & kDigits1 & kHigh) != (kZeros & kDigits1) ||
      ((w1 + kSix) & kDigits1 & kHigh) != (kZeros & kDigits1)) {
    return false;
  }
  if (!IsDigitAt(p, 16) || !IsDigitAt(p, 17) || p[18] != ' ') return false;
  return ThreadtimeIdsEnd(p, n, end);
}

#if defined(__SSE2__)
// The same answer for a line of at least 48 bytes, from three 16-byte loads: one compare with a
// template for the timestamp's punctuation, and masks of the digits and the blanks of the first
// 48 bytes, whose runs (blanks, pid, blanks, tid) are found by counting trailing bits — where
// byte loops of varying length mispredicted and the timestamp's words took ~45 instructions
// (callgrind). 1 with `end` set, 0 for not such a line, -1 when a run reaches past the 48 bytes
// (then ThreadtimeHeaderEndBytes decides).
[[gnu::always_inline]] inline int ThreadtimeHeaderEnd48(const char* p, size_t& end) {
  const __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i v1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
  const __m128i v2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 32));
  const __m128i below0 = _mm_set1_epi8('0' - 1);
  const __m128i above9 = _mm_set1_epi8('9' + 1);
  const __m128i blank = _mm_set1_epi8(' ');
  const auto bits = [](__m128i m) {
    return static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(m)));
  };
  const auto digits = [&](__m128i v) {
    return bits(_mm_and_si128(_mm_cmpgt_epi8(v, below0), _mm_cmplt_epi8(v, above9)));
  };
  // "MM-DD HH:MM:SS.mmm ": punctuation at 2, 5, 8, 11, 14 (and the blank at 18), digits else.
  const __m128i punctuation =
      _mm_setr_epi8(0, 0, '-', 0, 0, ' ', 0, 0, ':', 0, 0, ':', 0, 0, '.', 0);
  constexpr uint64_t kPunctuation = 1u << 2 | 1u << 5 | 1u << 8 | 1u << 11 | 1u << 14;
  constexpr uint64_t kTimeDigits = 0x3FFFFu & ~kPunctuation;  // 0–17 but the punctuation
  const uint64_t d = digits(v0) | digits(v1) << 16 | digits(v2) << 32;
  const uint64_t b = bits(_mm_cmpeq_epi8(v0, blank)) | bits(_mm_cmpeq_epi8(v1, blank)) << 16 |
                     bits(_mm_cmpeq_epi8(v2, blank)) << 32;
  if ((bits(_mm_cmpeq_epi8(v0, punctuation)) & kPunctuation) != kPunctuation ||
      (d & kTimeDigits) != kTimeDigits || (b & (1u << 18)) == 0) {
    return 0;
  }
  // Bit k is p[k]; bits 48–63 are neither blank nor digit, so each run ends by bit 48.
  const auto run_end = [](uint64_t mask, unsigned from) {
    return from + static_cast<unsigned>(__builtin_ctzll(~(mask >> from)));
  };
  const unsigned pid_start = run_end(b, 18);
  const unsigned pid_end = run_end(d, pid_start);
  const unsigned tid_start = run_end(b, pid_end);
  const unsigned tid_end = run_end(d, tid_start);
  if (tid_end >= 48) return -1;
  if (pid_end == pid_start || pid_end - pid_start > 10 || tid_start == pid_end ||
      tid_end == tid_start || tid_end - tid_start > 10) {
    return 0;
  }
  end = tid_end;
  return 1;
}
#endif

// The reader's hot path. True when `s` is a well-formed default-threadtime line
// ("MM-DD HH:MM:SS.mmm  pid  tid P tag: msg") whose tag cannot be a launch tag: such a line needs
// nothing more. Anything else (a launch tag, another layout, a broken line) returns false and
// goes through ClassifyLine. Fixed-position bytes are checked eight at a time; nothing is
// written, so a noise line costs a few compares and one short memchr.
// A well-formed line whose tag (at `tag_start`) starts with "Activity" and that the full path
// would read to no effect: another tag than the two launch tags (no fault tag starts so but
// ActivityManager), or a launch tag's message that is no launch (MayBeLaunchMessage) and, with
// faults, no ANR's head while no fault is open (FaultAssembler::Add then does nothing). About
// one noise line in fourteen on a busy device is ActivityManager's or ActivityTaskManager's;
// the full path (ClassifyLine and the rest) cost them ~540 instructions each (callgrind).
template <bool kFaults>
bool IsQuietActivityLine(std::string_view s, size_t tag_start, bool faults_open) {
  const size_t colon = FindTagEnd(s, tag_start);
  if (colon == std::string_view::npos) return false;
  const std::string_view tag = TrimRight(s.substr(tag_start, colon - tag_start));
  if (!IsLaunchTag(tag)) return true;
  const std::string_view message = MessageAfter(s, colon);
  if (MayBeLaunchMessage(message)) return false;
  if (kFaults && tag == kActivityManager && (faults_open || message.starts_with("ANR in "))) {
    return false;
  }
  return true;
}

template <bool kFaults>
inline bool IsThreadtimeNoise(std::string_view s, bool faults_open) {
  const char* p = s.data();
  const size_t n = s.size();
  if (n < 26) return false;
  size_t i = 0;
#if defined(__SSE2__)
  const int fast = n >= 48 ? ThreadtimeHeaderEnd48(p, i) : -1;
  if (fast == 0 || (fast < 0 && !ThreadtimeHeaderEndBytes(p, n, i))) return false;
#else
  if (!ThreadtimeHeaderEndBytes(p, n, i)) return false;
#endif
  if (i + 3 > n || p[i] != ' ' || !IsPriority(p[i + 1]) || p[i + 2] != ' ') return false;
  const size_t tag_start = i + 3;
  // Both launch tags start with "Activity": read the tag and the message's first bytes.
  if (n - tag_start >= 8 && std::memcmp(p + tag_start, "Activity", 8) == 0) {
    return IsQuietActivityLine<kFaults>(s, tag_start, faults_open);
  }
  if (kFaults && MayBeFaultTag(p + tag_start, n - tag_start)) return false;
  return FindTagEnd(s, tag_start) != std::string_view::npos;
}

}  // namespace

std::string_view LaunchEventKindName(LaunchEventKind kind) {
  switch (kind) {
    case LaunchEventKind::kDisplayed:
      return "displayed";
    case LaunchEventKind::kFullyDrawn:
      return "fully_drawn";
    case LaunchEventKind::kActivityStart:
      return "activity_start";
    case LaunchEventKind::kProcessStart:
      return "process_start";
  }
  return "unknown";
}

std::optional<int64_t> ParseFormattedDuration(std::string_view text) {
  if (text == "0") return 0;
  ConsumePrefix(text, "+");
  if (text.empty()) return std::nullopt;
  // Units in the order formatDurationLocked prints them, with their size in ms.
  struct Unit {
    std::string_view suffix;
    int64_t ms;
  };
  static constexpr Unit kUnits[] = {
      {"d", 86'400'000}, {"h", 3'600'000}, {"m", 60'000}, {"s", 1'000}, {"ms", 1}};
  int64_t total = 0;
  size_t next_unit = 0;
  bool saw_ms = false;
  while (!text.empty()) {
    size_t n = CountDigits(text, 0);
    if (n == 0 || n > 12) return std::nullopt;
    auto value = ParseInt64(text.substr(0, n));
    text.remove_prefix(n);
    size_t found = 0;
    if (text.starts_with("ms")) {  // before "m"
      found = 4;
    } else if (!text.empty() && text[0] == 'd') {
      found = 0;
    } else if (!text.empty() && text[0] == 'h') {
      found = 1;
    } else if (!text.empty() && text[0] == 'm') {
      found = 2;
    } else if (!text.empty() && text[0] == 's') {
      found = 3;
    } else {
      return std::nullopt;
    }
    if (found < next_unit || !value) return std::nullopt;
    text.remove_prefix(kUnits[found].suffix.size());
    int64_t part = 0;
    if (__builtin_mul_overflow(*value, kUnits[found].ms, &part) ||
        __builtin_add_overflow(total, part, &total)) {
      return std::nullopt;
    }
    next_unit = found + 1;
    saw_ms = found + 1 == std::size(kUnits);
  }
  if (!saw_ms) return std::nullopt;
  return total;
}

namespace {

// `digits` digits at s[pos], read whole; nullopt unless all are digits.
std::optional<int> FixedNumber(std::string_view s, size_t pos, size_t digits) {
  if (pos + digits > s.size()) return std::nullopt;
  // text.h's scan stops at the first non-digit: it reaches p + digits only when all are digits.
  // Not ParseInt (out-of-line from_chars): six of these per launch event were 7 % of `parse
  // logcat`'s instructions on launch lines (callgrind).
  const char* p = s.data() + pos;
  int64_t value = 0;
  if (ScanNonNegativeInt64(p, p + digits, value) != p + digits) return std::nullopt;
  return static_cast<int>(value);
}

// ".fff", ".ffffff" or ".fffffffff" at s[pos] -> whole ms; advances pos past it.
std::optional<int64_t> FractionMs(std::string_view s, size_t& pos) {
  if (pos >= s.size() || s[pos] != '.') return std::nullopt;
  const size_t n = CountDigits(s, pos + 1);
  if (n != 3 && n != 6 && n != 9) return std::nullopt;
  auto ms = FixedNumber(s, pos + 1, 3);
  pos += 1 + n;
  return ms;
}

// " +hhmm" / " -hhmm" (strftime %z) at s[pos] -> minutes east of UTC; advances pos past it.
std::optional<int> ZoneMinutes(std::string_view s, size_t& pos) {
  if (pos + 6 > s.size() || s[pos] != ' ' || (s[pos + 1] != '+' && s[pos + 1] != '-')) {
    return std::nullopt;
  }
  auto hh = FixedNumber(s, pos + 2, 2);
  auto mm = FixedNumber(s, pos + 4, 2);
  if (!hh || !mm || *mm > 59) return std::nullopt;
  const int minutes = *hh * 60 + *mm;
  pos += 6;
  return s[pos - 5] == '-' ? -minutes : minutes;
}

}  // namespace

LogTime ParseLogTime(std::string_view text) {
  const std::string_view t = Trim(text);
  LogTime out;
  const size_t lead = CountDigits(t, 0);
  if (lead == 0) return out;
  size_t pos = lead;
  if (pos < t.size() && t[pos] == '.') {  // epoch / monotonic seconds
    auto seconds = ParseInt<int64_t>(t.substr(0, lead));
    auto ms = FractionMs(t, pos);
    if (!seconds || !ms || *seconds > INT64_MAX / 1000 - 1) return out;
    if (pos < t.size()) {
      auto zone = ZoneMinutes(t, pos);
      if (!zone || pos != t.size()) return out;
      out.utc_offset_minutes = zone;
    }
    out.kind = LogTime::Kind::kSeconds;
    out.ms = *seconds * 1000 + *ms;
    return out;
  }
  size_t at = 0;
  std::optional<int> year;
  if (lead == 4) {
    year = FixedNumber(t, 0, 4);
    if (t.size() < 5 || t[4] != '-') return out;
    at = 5;
  } else if (lead != 2) {
    return out;
  }
  // "MM-DD HH:MM:SS" at `at`.
  if (t.size() < at + 14 || t[at + 2] != '-' || t[at + 5] != ' ' || t[at + 8] != ':' ||
      t[at + 11] != ':') {
    return out;
  }
  auto month = FixedNumber(t, at, 2);
  auto day = FixedNumber(t, at + 3, 2);
  auto hour = FixedNumber(t, at + 6, 2);
  auto minute = FixedNumber(t, at + 9, 2);
  auto second = FixedNumber(t, at + 12, 2);
  pos = at + 14;
  auto ms = FractionMs(t, pos);
  if (!month || !day || !hour || !minute || !second || !ms || *month < 1 || *month > 12 ||
      *day < 1 || *day > 31 || *hour > 23 || *minute > 59 || *second > 60) {
    return out;
  }
  if (pos < t.size()) {
    auto zone = ZoneMinutes(t, pos);
    if (!zone || pos != t.size()) return out;
    out.utc_offset_minutes = zone;
  }
  out.kind = LogTime::Kind::kCalendar;
  out.year = year.value_or(0);
  out.month = *month;
  out.day = *day;
  out.ms = ((int64_t{*hour} * 60 + *minute) * 60 + *second) * 1000 + *ms;
  return out;
}

std::optional<int64_t> LogTimeToEpochMs(const LogTime& time, int year) {
  switch (time.kind) {
    case LogTime::Kind::kNone:
      return std::nullopt;
    case LogTime::Kind::kSeconds:
      return time.ms;
    case LogTime::Kind::kCalendar:
      break;
  }
  const std::chrono::year_month_day date{std::chrono::year{time.year != 0 ? time.year : year},
                                         std::chrono::month{static_cast<unsigned>(time.month)},
                                         std::chrono::day{static_cast<unsigned>(time.day)}};
  if (!date.ok()) return std::nullopt;
  const auto days = std::chrono::sys_days{date}.time_since_epoch();
  return std::chrono::duration_cast<std::chrono::milliseconds>(days).count() + time.ms -
         int64_t{time.utc_offset_minutes.value_or(0)} * 60'000;
}

Result<std::optional<LaunchEvent>> ParseLogcatLine(std::string_view line) {
  Header h;
  switch (ClassifyLine(line, h)) {
    case LineKind::kEntry:
      if (h.has_tag && !IsLaunchTag(h.tag)) return std::optional<LaunchEvent>();
      return MessageToEvent(h);
    case LineKind::kLongHeader:
    case LineKind::kSeparator:
    case LineKind::kBlank:
      return std::optional<LaunchEvent>();
    case LineKind::kNotLogcat:
      break;
  }
  // `raw`: a bare launch message is accepted; anything else is not logcat.
  LaunchEvent ev;
  if (ParseLaunchMessage(line, ev) == MessageKind::kLaunch) {
    return std::optional<LaunchEvent>(std::move(ev));
  }
  constexpr size_t kQuote = 60;
  std::string text = "not a logcat line: \"";
  text.append(line.substr(0, kQuote));
  if (line.size() > kQuote) text.append("…");
  text.append("\"");
  return MakeError(ParseErrorCode::kNotThisFormat, std::move(text));
}

// The noise check alone, so that a noise line costs no more than it: the rest (Header, events,
// the `long` state) is in AddOtherLine, whose ~550-byte stack frame and saved registers were set
// up for every line when they were one function.
template <bool kFaults>
void LogcatReader::AddLineTo(std::string_view line, std::vector<LaunchEvent>& out,
                             std::vector<FaultEvent>* faults) {
  ++lines_;
  const bool plain = format_ == LogcatStreamFormat::kAuto && !in_long_entry_;
  if (plain && IsThreadtimeNoise<kFaults>(line, kFaults && faults_.HasOpen())) return;
  AddOtherLine<kFaults>(line, out, faults);
}

template <bool kFaults>
void LogcatReader::AddOtherLine(std::string_view line, std::vector<LaunchEvent>& out,
                                std::vector<FaultEvent>* faults) {
  if (format_ == LogcatStreamFormat::kRaw) {
    LaunchEvent ev;
    MessageKind k = ParseLaunchMessage(line, ev);
    if (k == MessageKind::kLaunch) out.push_back(std::move(ev));
    if (k == MessageKind::kMalformed) ++skipped_lines_;
    return;
  }
  Header h;
  if (in_long_entry_) {
    if (Trim(line).empty()) {
      CompleteLongEntry(out);
      return;
    }
    // Later message lines belong to the entry, unless a new header starts (no blank between).
    if (!long_have_message_ || line[0] != '[' || !ParseLongHeader(line, h)) {
      if (!long_have_message_) {
        long_have_message_ = true;
        if (long_launch_tag_) long_message_.assign(line);
      }
      if (kFaults && long_fault_tag_) {
        // Every message line of a fault entry counts: an ANR or a crash is one entry of many
        // lines in `long`, where the other formats repeat the header on each.
        faults_.Add(FaultLine{long_time_, long_pid_, long_tid_, long_tag_, line}, *faults);
      }
      return;
    }
    CompleteLongEntry(out);
  }
  switch (ClassifyLine(line, h)) {
    case LineKind::kEntry:
      if ((!h.has_tag || IsLaunchTag(h.tag)) && !AppendMessageEvent(h, out)) ++skipped_lines_;
      if (kFaults && h.has_tag && FaultAssembler::IsFaultTag(h.tag)) {
        faults_.Add(FaultLine{h.time, h.pid, h.tid, h.tag, h.message}, *faults);
      }
      return;
    case LineKind::kLongHeader:
      in_long_entry_ = true;
      long_have_message_ = false;
      long_launch_tag_ = IsLaunchTag(h.tag);
      long_fault_tag_ = kFaults && FaultAssembler::IsFaultTag(h.tag);
      long_message_.clear();
      if (long_launch_tag_ || long_fault_tag_) {
        long_time_.assign(h.time);
        long_pid_ = h.pid;
        long_tid_ = h.tid;
        long_tag_.assign(h.tag);
      }
      return;
    case LineKind::kSeparator:
    case LineKind::kBlank:
      return;
    case LineKind::kNotLogcat: {
      LaunchEvent ev;
      if (ParseLaunchMessage(line, ev) == MessageKind::kLaunch) {
        out.push_back(std::move(ev));
      } else {
        ++skipped_lines_;
      }
      return;
    }
  }
}

template void LogcatReader::AddLineTo<false>(std::string_view, std::vector<LaunchEvent>&,
                                             std::vector<FaultEvent>*);
template void LogcatReader::AddLineTo<true>(std::string_view, std::vector<LaunchEvent>&,
                                            std::vector<FaultEvent>*);

void LogcatReader::AddChunkTo(LineSplitter& splitter, std::string_view chunk, bool finish,
                              std::vector<LaunchEvent>& out, std::vector<FaultEvent>& faults,
                              EventsCallback on_events) {
  uint64_t overlong_seen = splitter.overlong_lines();
  auto line_sink = [&](std::string_view line) {
    // The splitter counts a line as overlong just before handing it over.
    if (splitter.overlong_lines() != overlong_seen) {
      overlong_seen = splitter.overlong_lines();
      ++skipped_lines_;
      return;
    }
    ++lines_;
    const bool plain = format_ == LogcatStreamFormat::kAuto && !in_long_entry_;
    if (plain && IsThreadtimeNoise<true>(line, faults_.HasOpen())) return;
    AddOtherLine<true>(line, out, &faults);
    if (!out.empty() || !faults.empty()) on_events.call(on_events.callable);
  };
  if (finish) {
    splitter.Finish(line_sink);
  } else {
    splitter.Feed(chunk, line_sink);
  }
}

void LogcatReader::CompleteLongEntry(std::vector<LaunchEvent>& out) {
  if (long_launch_tag_ && long_have_message_) {
    Header h;
    h.time = long_time_;
    h.pid = long_pid_;
    h.tid = long_tid_;
    h.tag = long_tag_;
    h.has_tag = true;
    h.message = long_message_;
    if (!AppendMessageEvent(h, out)) ++skipped_lines_;
  }
  in_long_entry_ = false;
  long_have_message_ = false;
  long_launch_tag_ = false;
  long_fault_tag_ = false;
  long_message_.clear();
}

void LogcatReader::FinishTo(std::vector<LaunchEvent>& out, std::vector<FaultEvent>* faults) {
  if (in_long_entry_) CompleteLongEntry(out);
  if (faults != nullptr) faults_.Finish(*faults);
}

}  // namespace droidlab::parsers
