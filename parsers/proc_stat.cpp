#include "parsers/proc_stat.h"

#include <array>
#include <cstring>
#include <string>

#include "parsers/text.h"

namespace droidlab::parsers {
namespace {

// Field names as proc(5) spells them, indexed by field number (1-based; [0] unused).
constexpr std::array<std::string_view, 53> kFieldNames = {
    "",           "pid",         "comm",       "state",       "ppid",      "pgrp",
    "session",    "tty_nr",      "tpgid",      "flags",       "minflt",    "cminflt",
    "majflt",     "cmajflt",     "utime",      "stime",       "cutime",    "cstime",
    "priority",   "nice",        "num_threads", "itrealvalue", "starttime", "vsize",
    "rss",        "rsslim",      "startcode",  "endcode",     "startstack", "kstkesp",
    "kstkeip",    "signal",      "blocked",    "sigignore",   "sigcatch",  "wchan",
    "nswap",      "cnswap",      "exit_signal", "processor",  "rt_priority", "policy",
    "delayacct_blkio_ticks", "guest_time", "cguest_time", "start_data", "end_data",
    "start_brk",  "arg_start",   "arg_end",    "env_start",   "env_end",   "exit_code",
};

constexpr int kLastKnownField = 52;
constexpr int kRequiredFields = 24;

// Fields do_task_stat prints with a signed conversion (%d, %ld); all others are unsigned.
// A "-1" is only valid in these.
constexpr std::array<bool, 53> MakeSignedTable() {
  std::array<bool, 53> t{};
  for (int f : {1, 5, 6, 7, 8, 16, 17, 18, 19, 20, 21, 24, 38, 39, 44, 52}) t[f] = true;
  return t;
}
constexpr std::array<bool, 53> kSigned = MakeSignedTable();

ParseError Malformed(int field, std::string_view why) {
  std::string msg = "/proc/<pid>/stat: field ";
  msg += std::to_string(field);
  msg += " (";
  msg += kFieldNames[static_cast<size_t>(field)];
  msg += ") ";
  msg += why;
  return MakeError(ParseErrorCode::kMalformed, std::move(msg));
}

// Decimal digits at p, stopping at the first non-digit: the single-pass counterpart of
// ParseInt for a line that is walked once rather than cut into tokens. Hand-written rather
// than std::from_chars because libstdc++ 12 keeps from_chars out of line with an overflow check
// per digit; that alone held ParseProcPidStat to half the bench's goal. Up to 19 digits cannot
// overflow a uint64_t, so only a 20th digit is checked. Returns nullptr on no digits or overflow.
inline const char* ConsumeUint64(const char* p, const char* end, uint64_t& out) {
  const char* start = p;
  uint64_t v = 0;
  const char* fast_end = end - start > 19 ? start + 19 : end;
  while (p != fast_end) {
    const unsigned d = static_cast<unsigned>(static_cast<unsigned char>(*p)) - '0';
    if (d > 9) break;
    v = v * 10 + d;
    ++p;
  }
  if (p == start) return nullptr;
  if (p == fast_end && p != end) {
    const unsigned d = static_cast<unsigned>(static_cast<unsigned char>(*p)) - '0';
    if (d <= 9) {
      if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, d, &v)) return nullptr;
      ++p;
      if (p != end && static_cast<unsigned>(static_cast<unsigned char>(*p)) - '0' <= 9) {
        return nullptr;  // 21 digits
      }
    }
  }
  out = v;
  return p;
}

// An optional '-' then digits, within int64_t. Stored as its two's-complement bits.
inline const char* ConsumeInt64(const char* p, const char* end, uint64_t& out) {
  const bool negative = p != end && *p == '-';
  uint64_t magnitude = 0;
  const char* q = ConsumeUint64(p + (negative ? 1 : 0), end, magnitude);
  if (q == nullptr) return nullptr;
  constexpr uint64_t kMax = static_cast<uint64_t>(INT64_MAX);
  if (magnitude > kMax + (negative ? 1 : 0)) return nullptr;
  out = negative ? ~magnitude + 1 : magnitude;
  return q;
}

template <class T>
void SetIfPresent(std::optional<T>& out, const std::array<uint64_t, 53>& raw, int field,
                  int field_count) {
  if (field <= field_count) out = static_cast<T>(raw[static_cast<size_t>(field)]);
}

}  // namespace

Result<ProcPidStat> ParseProcPidStat(std::string_view line) {
  while (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  line = TrimRight(line);
  if (line.empty()) return MakeError(ParseErrorCode::kEmpty, "/proc/<pid>/stat: empty line");

  // "PID (": the kernel prints "%d (%s) ", so the first '(' opens comm (a pid has none).
  const char* begin = line.data();
  const char* end = begin + line.size();
  const auto* open = static_cast<const char*>(std::memchr(begin, '(', line.size()));
  if (open == nullptr || open == begin || open[-1] != ' ') {
    return MakeError(ParseErrorCode::kNotThisFormat,
                     "/proc/<pid>/stat: expected \"PID (comm) ...\", found no \"PID (\"");
  }
  // comm may hold ')' and spaces: it ends at the LAST ')' of the line, since no later field
  // can contain one.
  const auto* close = static_cast<const char*>(
      memrchr(open + 1, ')', static_cast<size_t>(end - (open + 1))));
  if (close == nullptr) {
    return MakeError(ParseErrorCode::kNotThisFormat,
                     "/proc/<pid>/stat: comm has no closing ')'");
  }

  ProcPidStat st;
  auto pid = ParseInt64(std::string_view(begin, static_cast<size_t>(open - 1 - begin)));
  if (!pid || *pid < 0) return Malformed(1, "is not a process id");
  st.pid = *pid;
  st.comm = std::string_view(open + 1, static_cast<size_t>(close - (open + 1)));

  // ") S ": one space, a one-letter state, then the numeric fields.
  const char* p = close + 1;
  if (end - p < 2 || p[0] != ' ' || p[1] == ' ') return Malformed(3, "is missing");
  st.state = p[1];
  p += 2;

  // Single forward pass: digits read straight off the line, checking that each number ends
  // exactly at a separator, so no token is ever cut out or copied.
  // Left uninitialised on purpose: only fields 4..field_count are read, and each of those was
  // written by the loop below (zeroing 424 bytes per line was measurable in the bench).
  std::array<uint64_t, 53> raw;
  int field = 3;
  // Every token but the last is followed by a space, a non-digit: up to the last space, digit
  // loops need no end-of-input check, and numbers under 19 digits cannot overflow. (A SWAR
  // eight-byte conversion was tried and measured 15% slower here: most fields are 1–2 digits.)
  const auto* last_space =
      static_cast<const char*>(memrchr(p, ' ', static_cast<size_t>(end - p)));
  while (p != end) {
    if (*p != ' ') return Malformed(field, "is not followed by a single space");
    ++p;
    ++field;
    if (field > kLastKnownField) {
      // A newer kernel's extra field: count it, skip it.
      while (p != end && *p != ' ') ++p;
      continue;
    }
    uint64_t& slot = raw[static_cast<size_t>(field)];
    const bool is_signed = kSigned[static_cast<size_t>(field)];
    const char* next = nullptr;
    if (p < last_space && *p != '-') {
      const char* q = p;
      uint64_t v = 0;
      for (unsigned d; (d = static_cast<unsigned>(static_cast<unsigned char>(*q)) - '0') <= 9;
           ++q) {
        v = v * 10 + d;
      }
      const auto digits = q - p;
      if (digits > 0 && digits < 19) {
        slot = v;
        next = q;
      }
    }
    if (next == nullptr) {
      // Negative numbers, 19+ digits, the last field, and every error take the checked path.
      next = is_signed ? ConsumeInt64(p, end, slot) : ConsumeUint64(p, end, slot);
    }
    if (next == nullptr || (next != end && *next != ' ')) {
      return Malformed(field, is_signed ? "is not a signed 64-bit integer"
                                        : "is not an unsigned 64-bit integer");
    }
    p = next;
  }
  st.field_count = field;
  if (field < kRequiredFields) {
    std::string why = "is missing: the line has ";
    why += std::to_string(field);
    why += " fields, at least 24 are needed";
    return Malformed(field + 1, why);
  }

  auto s = [&](int f) { return static_cast<int64_t>(raw[static_cast<size_t>(f)]); };
  auto u = [&](int f) { return raw[static_cast<size_t>(f)]; };
  st.ppid = s(4);
  st.pgrp = s(5);
  st.session = s(6);
  st.tty_nr = s(7);
  st.tpgid = s(8);
  st.flags = u(9);
  st.minflt = u(10);
  st.cminflt = u(11);
  st.majflt = u(12);
  st.cmajflt = u(13);
  st.utime = u(14);
  st.stime = u(15);
  st.cutime = s(16);
  st.cstime = s(17);
  st.priority = s(18);
  st.nice = s(19);
  st.num_threads = s(20);
  st.itrealvalue = s(21);
  st.starttime = u(22);
  st.vsize = u(23);
  st.rss = s(24);

  const int n = field;
  SetIfPresent(st.rsslim, raw, 25, n);
  SetIfPresent(st.startcode, raw, 26, n);
  SetIfPresent(st.endcode, raw, 27, n);
  SetIfPresent(st.startstack, raw, 28, n);
  SetIfPresent(st.kstkesp, raw, 29, n);
  SetIfPresent(st.kstkeip, raw, 30, n);
  SetIfPresent(st.signal, raw, 31, n);
  SetIfPresent(st.blocked, raw, 32, n);
  SetIfPresent(st.sigignore, raw, 33, n);
  SetIfPresent(st.sigcatch, raw, 34, n);
  SetIfPresent(st.wchan, raw, 35, n);
  SetIfPresent(st.nswap, raw, 36, n);
  SetIfPresent(st.cnswap, raw, 37, n);
  SetIfPresent(st.exit_signal, raw, 38, n);
  SetIfPresent(st.processor, raw, 39, n);
  SetIfPresent(st.rt_priority, raw, 40, n);
  SetIfPresent(st.policy, raw, 41, n);
  SetIfPresent(st.delayacct_blkio_ticks, raw, 42, n);
  SetIfPresent(st.guest_time, raw, 43, n);
  SetIfPresent(st.cguest_time, raw, 44, n);
  SetIfPresent(st.start_data, raw, 45, n);
  SetIfPresent(st.end_data, raw, 46, n);
  SetIfPresent(st.start_brk, raw, 47, n);
  SetIfPresent(st.arg_start, raw, 48, n);
  SetIfPresent(st.arg_end, raw, 49, n);
  SetIfPresent(st.env_start, raw, 50, n);
  SetIfPresent(st.env_end, raw, 51, n);
  SetIfPresent(st.exit_code, raw, 52, n);
  return st;
}

namespace {

// "35747.56" -> 3574756. Exactly two decimals: fs/proc/uptime.c prints "%lu.%02lu".
std::optional<int64_t> ParseCentiseconds(std::string_view s) {
  auto whole = SplitFirst(s, '.');
  if (!whole || s.size() != 2 || !IsAsciiDigit(s[0]) || !IsAsciiDigit(s[1])) return std::nullopt;
  auto secs = ParseInt<uint64_t>(*whole);
  if (!secs || *secs > static_cast<uint64_t>(INT64_MAX / 100 - 1)) return std::nullopt;
  return static_cast<int64_t>(*secs) * 100 + (s[0] - '0') * 10 + (s[1] - '0');
}

}  // namespace

Result<ProcUptime> ParseProcUptime(std::string_view text) {
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  text = TrimRight(text);
  if (text.empty()) return MakeError(ParseErrorCode::kEmpty, "/proc/uptime: empty");
  std::string_view rest = text;
  auto first = SplitFirst(rest, ' ');
  std::optional<int64_t> up = first ? ParseCentiseconds(*first) : std::nullopt;
  std::optional<int64_t> idle = first ? ParseCentiseconds(rest) : std::nullopt;
  if (!up || !idle) {
    return MakeError(ParseErrorCode::kMalformed,
                     "/proc/uptime: expected \"UPTIME.CC IDLE.CC\", found \"" +
                         std::string(text.substr(0, 64)) + "\"");
  }
  return ProcUptime{*up, *idle};
}

}  // namespace droidlab::parsers
