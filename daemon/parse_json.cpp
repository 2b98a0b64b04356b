#include "daemon/parse_json.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <string_view>
#include <nlohmann/json.hpp>

namespace droidlab::daemon {
namespace {

using Json = nlohmann::ordered_json;

template <class T>
Json OrNull(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

void Dump(const Json& j, std::string& out) {
  out += j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Puts key only when the record has a value for it ("where the line has them", API.md).
template <class T>
void PutIf(Json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}
void PutIf(Json& j, const char* key, const std::optional<std::string_view>& v) {
  if (v) j[key] = std::string(*v);
}

// True when `text` holds a byte JSON escapes ('"', '\\', below 0x20) or one >= 0x80 (UTF-8 to
// check). Eight bytes at a time: each test below leaves a byte's high bit set exactly where it
// holds (the classic "has zero byte" / "has byte less than" bit tricks), so their OR is exact for
// "any byte of the word".
bool NeedsEscape(std::string_view text) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  const auto word_needs = [](const char* at) {
    uint64_t w = 0;
    std::memcpy(&w, at, 8);
    const uint64_t quote = w ^ (kOnes * '"');
    const uint64_t backslash = w ^ (kOnes * '\\');
    const uint64_t hits = ((w - kOnes * 0x20) & ~w) | ((quote - kOnes) & ~quote) |
                          ((backslash - kOnes) & ~backslash) | w;
    return (hits & kHigh) != 0;
  };
  const char* p = text.data();
  const size_t n = text.size();
  if (n < 8) {
    for (size_t i = 0; i < n; ++i) {
      const auto b = static_cast<unsigned char>(p[i]);
      if (b < 0x20 || b == '"' || b == '\\' || b >= 0x80) return true;
    }
    return false;
  }
  for (size_t i = 0; i + 8 <= n; i += 8) {
    if (word_needs(p + i)) return true;
  }
  return n % 8 != 0 && word_needs(p + n - 8);  // the last bytes, in one word again
}

// A member's key as written, `"key":`, in a fixed-size array: copied with one fixed-size move,
// where a key written in three pieces (three libc memcpy calls) cost as much as the escape check
// (perf, 180,000 launch lines).
struct KeyText {
  char text[16] = {};
  size_t size = 0;
};
consteval KeyText K(std::string_view key) {
  if (key.size() + 3 > sizeof(KeyText::text)) throw "key too long for KeyText";
  KeyText k;
  k.text[0] = '"';
  for (size_t i = 0; i < key.size(); ++i) k.text[1 + i] = key[i];
  k.text[1 + key.size()] = '"';
  k.text[2 + key.size()] = ':';
  k.size = key.size() + 3;
  return k;
}

// An object written straight into `out`, member by member, for records that come by the
// hundred thousand (`parse logcat` on a log dense with launches): no json value per record, and
// the members put together in a buffer on the stack, appended to `out` once per record. Its
// bytes are those nlohmann's dump gives the same members (tests/daemon/
// parse_faults_meminfo_test.cpp; the old and new binaries compared on every logcat sample).
class ObjectWriter {
 public:
  explicit ObjectWriter(std::string& out) : out_(out) { Raw("{", 1); }
  ~ObjectWriter() {
    Raw("}", 1);
    Flush();
  }
  ObjectWriter(const ObjectWriter&) = delete;
  ObjectWriter& operator=(const ObjectWriter&) = delete;

  // `key` comes from K("name") on a literal of this file: plain ASCII, nothing to escape.
  void Key(const KeyText& key) {
    Room(1 + sizeof key.text);
    buf_[used_] = ',';
    used_ += first_ ? 0 : 1;
    first_ = false;
    std::memcpy(buf_ + used_, key.text, sizeof key.text);
    used_ += key.size;
  }
  void Put(const KeyText& key, std::string_view value) {
    Key(key);
    String(value);
  }
  void Put(const KeyText& key, int64_t value) {
    Key(key);
    Room(24);
    used_ = static_cast<size_t>(std::to_chars(buf_ + used_, buf_ + sizeof buf_, value).ptr - buf_);
  }
  void PutOrNull(const KeyText& key, const std::optional<int64_t>& value) {
    if (value) {
      Put(key, *value);
    } else {
      Key(key);
      Raw("null", 4);
    }
  }
  // Only when the record has a value ("where the line has them", API.md).
  void PutIf(const KeyText& key, const std::optional<int64_t>& value) {
    if (value) Put(key, *value);
  }
  void PutIf(const KeyText& key, const std::string& value) {
    if (!value.empty()) Put(key, value);
  }
  // A JSON string literal; one that needs escapes, or is long, goes through AppendJsonString.
  void String(std::string_view text) {
    if (text.size() + 2 <= sizeof buf_ - used_ && !NeedsEscape(text)) {
      buf_[used_++] = '"';
      std::memcpy(buf_ + used_, text.data(), text.size());
      used_ += text.size();
      buf_[used_++] = '"';
      return;
    }
    Flush();
    AppendJsonString(text, out_);
  }
  // Bytes as they are (JSON punctuation, digits, keys).
  void Raw(const char* bytes, size_t n) {
    if (n > sizeof buf_ - used_) {
      Flush();
      if (n > sizeof buf_) {
        out_.append(bytes, n);
        return;
      }
    }
    std::memcpy(buf_ + used_, bytes, n);
    used_ += n;
  }

 private:
  // At least `n` bytes free in buf_.
  void Room(size_t n) {
    if (sizeof buf_ - used_ < n) Flush();
  }
  void Flush() {
    out_.append(buf_, used_);
    used_ = 0;
  }

  std::string& out_;
  bool first_ = true;
  size_t used_ = 0;
  char buf_[1024];
};

}  // namespace

void AppendJsonString(std::string_view text, std::string& out) {
  // Launch and fault text is printable ASCII nearly always: copied as is. A byte >= 0x80 goes
  // through nlohmann's dump, whose U+FFFD repair of invalid UTF-8 this must not differ from.
  if (!NeedsEscape(text)) {
    out.append("\"", 1);
    out.append(text);
    out.append("\"", 1);
    return;
  }
  for (const char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) {
      Dump(Json(std::string(text)), out);
      return;
    }
  }
  // nlohmann's escapes (ensure_ascii off): the short forms, \u00XX in lower-case hex for the
  // other control characters; DEL and '/' as they are.
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    switch (b) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (b < 0x20) {
          out += "\\u00";
          out += kHex[b >> 4];
          out += kHex[b & 0xF];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void AppendJson(const parsers::LaunchEvent& e, std::string& out) {
  ObjectWriter j(out);
  j.Put(K("kind"), parsers::LaunchEventKindName(e.kind));
  j.PutIf(K("time"), e.time);
  j.PutIf(K("pid"), e.pid);
  j.PutIf(K("tid"), e.tid);
  j.PutIf(K("tag"), e.tag);
  j.PutIf(K("component"), e.component);
  j.PutIf(K("package"), e.package);
  j.PutIf(K("activity"), e.activity);
  const bool timed = e.kind == parsers::LaunchEventKind::kDisplayed ||
                     e.kind == parsers::LaunchEventKind::kFullyDrawn;
  if (timed) {
    j.PutOrNull(K("duration_ms"), e.duration_ms);
    j.PutOrNull(K("total_ms"), e.total_ms);
  }
  j.PutIf(K("process_pid"), e.process_pid);
  j.PutIf(K("process_name"), e.process_name);
  j.PutIf(K("caller_pid"), e.caller_pid);
  j.PutIf(K("uid"), e.uid);
  j.PutIf(K("user_id"), e.user_id);
  j.PutIf(K("reason"), e.reason);
}

void AppendJson(const parsers::FaultEvent& e, std::string& out) {
  ObjectWriter j(out);
  j.Put(K("kind"), parsers::FaultKindName(e.kind));
  j.PutIf(K("time"), e.time);
  j.PutIf(K("tag"), e.tag);
  j.PutIf(K("package"), e.package);
  j.PutIf(K("process_name"), e.process_name);
  j.PutIf(K("pid"), e.pid);
  j.PutIf(K("tid"), e.tid);
  j.PutIf(K("logger_pid"), e.logger_pid);
  j.PutIf(K("user_id"), e.user_id);
  j.PutIf(K("component"), e.component);
  j.PutIf(K("thread"), e.thread);
  j.PutIf(K("reason"), e.reason);
  if (e.kind == parsers::FaultKind::kSlowDispatch || e.kind == parsers::FaultKind::kSlowDelivery) {
    j.PutOrNull(K("duration_ms"), e.duration_ms);
  }
  if (!e.stack.empty()) {
    j.Key(K("stack"));
    j.Raw("[", 1);
    for (size_t i = 0; i < e.stack.size(); ++i) {
      if (i > 0) j.Raw(",", 1);
      j.String(e.stack[i]);
    }
    j.Raw("]", 1);
  }
}

void AppendJson(const parsers::Meminfo& m, std::string& out) {
  Json j;
  j["pid"] = m.pid;
  j["package"] = m.package;
  j["total_pss_kb"] = OrNull(m.total_pss_kb);
  j["total_rss_kb"] = OrNull(m.total_rss_kb);
  j["total_swap_pss_kb"] = OrNull(m.total_swap_pss_kb);
  const parsers::MeminfoSummary& s = m.summary;
  Json summary;
  summary["java_heap_kb"] = OrNull(s.java_heap_kb);
  summary["native_heap_kb"] = OrNull(s.native_heap_kb);
  summary["code_kb"] = OrNull(s.code_kb);
  summary["stack_kb"] = OrNull(s.stack_kb);
  summary["graphics_kb"] = OrNull(s.graphics_kb);
  summary["private_other_kb"] = OrNull(s.private_other_kb);
  summary["system_kb"] = OrNull(s.system_kb);
  j["summary"] = std::move(summary);
  const parsers::MeminfoObjects& o = m.objects;
  Json objects;
  objects["views"] = OrNull(o.views);
  objects["view_root_impl"] = OrNull(o.view_root_impl);
  objects["app_contexts"] = OrNull(o.app_contexts);
  objects["activities"] = OrNull(o.activities);
  objects["assets"] = OrNull(o.assets);
  objects["asset_managers"] = OrNull(o.asset_managers);
  objects["local_binders"] = OrNull(o.local_binders);
  objects["proxy_binders"] = OrNull(o.proxy_binders);
  objects["death_recipients"] = OrNull(o.death_recipients);
  objects["webviews"] = OrNull(o.webviews);
  j["objects"] = std::move(objects);
  j["skipped_lines"] = m.skipped_lines;
  Dump(j, out);
}

void AppendJson(const parsers::LooperStatsEntry& e, const parsers::LooperStatsDump& dump,
                std::string& out) {
  Json j;
  // Keys follow the dump's own column order, so the JSON reads like the dump.
  size_t extra_seen = 0;
  for (size_t i = 0; i < dump.columns.size(); ++i) {
    const std::string& name = dump.columns[i];
    switch (parsers::LooperStatsColumnFromName(name)) {
      using C = parsers::LooperStatsColumn;
      case C::kWorkSourceUid:
        j[name] = std::string(e.work_source_uid);
        PutIf(j, "package", e.package);
        PutIf(j, "uid", e.uid);
        break;
      case C::kThreadName: PutIf(j, name.c_str(), e.thread_name); break;
      case C::kHandlerClass: PutIf(j, name.c_str(), e.handler_class); break;
      case C::kMessageName: PutIf(j, name.c_str(), e.message_name); break;
      case C::kIsInteractive: PutIf(j, name.c_str(), e.is_interactive); break;
      case C::kMessageCount: PutIf(j, name.c_str(), e.message_count); break;
      case C::kRecordedMessageCount: PutIf(j, name.c_str(), e.recorded_message_count); break;
      case C::kTotalLatencyMicros: PutIf(j, name.c_str(), e.total_latency_micros); break;
      case C::kMaxLatencyMicros: PutIf(j, name.c_str(), e.max_latency_micros); break;
      case C::kTotalCpuMicros: PutIf(j, name.c_str(), e.total_cpu_micros); break;
      case C::kMaxCpuMicros: PutIf(j, name.c_str(), e.max_cpu_micros); break;
      case C::kRecordedDelayMessageCount:
        PutIf(j, name.c_str(), e.recorded_delay_message_count);
        break;
      case C::kTotalDelayMillis: PutIf(j, name.c_str(), e.total_delay_millis); break;
      case C::kMaxDelayMillis: PutIf(j, name.c_str(), e.max_delay_millis); break;
      case C::kExceptionCount: PutIf(j, name.c_str(), e.exception_count); break;
      case C::kUnknown:
        if (extra_seen < e.extra.size()) j[name] = std::string(e.extra[extra_seen]);
        ++extra_seen;
        break;
    }
  }
  Dump(j, out);
}

void AppendJson(const parsers::ProcPidStat& s, std::string& out) {
  Json j;
  j["pid"] = s.pid;
  j["comm"] = std::string(s.comm);
  j["state"] = std::string(1, s.state);
  j["ppid"] = s.ppid;
  j["pgrp"] = s.pgrp;
  j["session"] = s.session;
  j["tty_nr"] = s.tty_nr;
  j["tpgid"] = s.tpgid;
  j["flags"] = s.flags;
  j["minflt"] = s.minflt;
  j["cminflt"] = s.cminflt;
  j["majflt"] = s.majflt;
  j["cmajflt"] = s.cmajflt;
  j["utime"] = s.utime;
  j["stime"] = s.stime;
  j["cutime"] = s.cutime;
  j["cstime"] = s.cstime;
  j["priority"] = s.priority;
  j["nice"] = s.nice;
  j["num_threads"] = s.num_threads;
  j["itrealvalue"] = s.itrealvalue;
  j["starttime"] = s.starttime;
  j["vsize"] = s.vsize;
  j["rss"] = s.rss;
  PutIf(j, "rsslim", s.rsslim);
  PutIf(j, "processor", s.processor);
  PutIf(j, "rt_priority", s.rt_priority);
  PutIf(j, "policy", s.policy);
  PutIf(j, "delayacct_blkio_ticks", s.delayacct_blkio_ticks);
  PutIf(j, "guest_time", s.guest_time);
  PutIf(j, "cguest_time", s.cguest_time);
  j["field_count"] = s.field_count;
  Dump(j, out);
}

void AppendJson(const parsers::AmStartResult& r, std::string& out) {
  Json j;
  j["status"] = OrNull(r.status);
  j["launch_state"] = OrNull(r.launch_state);
  j["activity"] = OrNull(r.activity);
  j["this_time_ms"] = OrNull(r.this_time_ms);
  j["total_time_ms"] = OrNull(r.total_time_ms);
  j["wait_time_ms"] = OrNull(r.wait_time_ms);
  j["complete"] = r.complete;
  j["warning"] = OrNull(r.warning);
  j["error"] = OrNull(r.error);
  j["skipped_lines"] = r.skipped_lines;
  Dump(j, out);
}

void AppendJson(const parsers::GetpropOutput& p, std::string& out) {
  Json props = Json::object();
  for (const auto& [key, value] : p.properties) props[key] = value;
  Json j;
  j["properties"] = std::move(props);
  j["skipped_lines"] = p.skipped_lines;
  Dump(j, out);
}

namespace {

// The decimal digits of v < 10^8, eight of them with leading zeros, as the bytes of a
// little-endian word (the first digit lowest) with no '0' added: split 4 + 4, then 2 + 2, then
// 1 + 1 digits in parallel lanes, each division a multiply and a shift exact in its range.
inline uint64_t EightDigitValues(uint64_t v) {
  const uint64_t x = v / 10000 | (v % 10000) << 32;                // 4-digit lanes
  const uint64_t hundreds = ((x * 10486) >> 20) & 0x0000007F0000007FULL;  // n / 100, n < 43,699
  const uint64_t pairs = hundreds | (x - hundreds * 100) << 16;     // 2-digit lanes
  const uint64_t tens = ((pairs * 103) >> 10) & 0x000F000F000F000FULL;  // n / 10, n < 179
  return tens | (pairs - tens * 10) << 8;
}

// std::to_chars(at, …, value) for a framestats value, ~14 digits, without its digit-count loop
// and per-pair stores (a third of `parse gfxinfo`'s time: perf). Writes up to 21 bytes from `at`
// (its digits plus scratch the next writes overwrite); returns the end of the digits.
inline char* WriteInt64(char* at, int64_t value) {
  uint64_t v = static_cast<uint64_t>(value);
  if (value < 0) {
    *at++ = '-';
    v = 0 - v;
  }
  constexpr uint64_t kAscii = 0x3030303030303030ULL;
  if (v >= 10'000'000'000'000'000ULL) {  // 17 digits or more: rare; the last 16 in two words
    at = std::to_chars(at, at + 4, v / 10'000'000'000'000'000ULL).ptr;
    v %= 10'000'000'000'000'000ULL;
    const uint64_t high = EightDigitValues(v / 100'000'000) + kAscii;
    const uint64_t low = EightDigitValues(v % 100'000'000) + kAscii;
    std::memcpy(at, &high, 8);
    std::memcpy(at + 8, &low, 8);
    return at + 16;
  }
  if (v == 0) {
    *at = '0';
    return at + 1;
  }
  const uint64_t head = v >= 100'000'000 ? v / 100'000'000 : v;  // the digits before 8 fixed
  const uint64_t digits = EightDigitValues(head);
  const unsigned zeros = static_cast<unsigned>(std::countr_zero(digits)) / 8;  // head != 0
  const uint64_t head_text = (digits + kAscii) >> (8 * zeros);
  std::memcpy(at, &head_text, 8);
  at += 8 - zeros;
  if (v >= 100'000'000) {
    const uint64_t tail = EightDigitValues(v % 100'000'000) + kAscii;
    std::memcpy(at, &tail, 8);
    at += 8;
  }
  return at;
}

// `dumpsys gfxinfo` as JSON, written straight: a framestats row is ~700 bytes of JSON and a dump
// may hold thousands, each twice (the top-level "frames" and its profile's). Through nlohmann
// (an object per row, a value per cell) 50,000 rows took 1.2 s of CPU and 428 MB; the bytes are
// the same as its dump of the same keys (tests/daemon/parse_command_test.cpp compares them).
class GfxinfoWriter {
 public:
  GfxinfoWriter(std::string& out, const std::function<void(std::string&)>& flush)
      : out_(out), flush_(flush) {}

  void Profile(const parsers::GfxinfoProfile& p, const std::vector<const parsers::GfxinfoProfile*>&
                                                     frames_of) {
    out_ += "{\"package\":";
    if (p.package) {
      AppendJsonString(*p.package, out_);
    } else {
      out_ += "null";
    }
    Member(",\"pid\":", p.pid);
    Member(",\"stats_since_ns\":", p.stats_since_ns);
    Member(",\"total_frames\":", std::optional<uint64_t>(p.total_frames));
    Member(",\"janky_frames\":", p.janky_frames);
    out_ += ",\"percentiles_ms\":";
    Percentiles(p.percentiles_ms);
    out_ += ",\"gpu_percentiles_ms\":";
    const bool gpu = std::any_of(p.gpu_percentiles_ms.begin(), p.gpu_percentiles_ms.end(),
                                 [](const auto& v) { return v.has_value(); });
    if (gpu) {
      Percentiles(p.gpu_percentiles_ms);
    } else {
      out_ += "null";
    }
    Member(",\"missed_vsync\":", p.missed_vsync);
    Member(",\"high_input_latency\":", p.high_input_latency);
    Member(",\"slow_ui_thread\":", p.slow_ui_thread);
    Member(",\"slow_bitmap_uploads\":", p.slow_bitmap_uploads);
    Member(",\"slow_draw_commands\":", p.slow_draw_commands);
    Member(",\"frame_deadline_missed\":", p.frame_deadline_missed);
    out_ += ",\"histogram\":[";
    for (size_t i = 0; i < p.histogram.size(); ++i) {
      if (i > 0) out_ += ',';
      out_ += '[';
      Number(p.histogram[i].ms);
      out_ += ',';
      Number(p.histogram[i].count);
      out_ += ']';
    }
    out_ += "],\"frames\":[";
    bool first = true;
    for (const auto* q : frames_of) Frames(*q, first);
    out_ += ']';
  }

  void Frames(const parsers::GfxinfoProfile& p, bool& first) {
    for (const auto& block : p.framestats) {
      // Each row an object keyed by its block's column names, as nlohmann's ordered_json makes
      // it: a name printed twice keeps its first place and its last value.
      std::vector<std::pair<std::string, size_t>> keys;  // `"name":` and the column it reads
      for (size_t c = 0; c < block.columns.size(); ++c) {
        std::string key;
        AppendJsonString(block.columns[c], key);
        key += ':';
        auto same = std::find_if(keys.begin(), keys.end(),
                                 [&](const auto& k) { return k.first == key; });
        if (same != keys.end()) {
          same->second = c;
        } else {
          keys.emplace_back(std::move(key), c);
        }
      }
      // A row is put together in `row_text` (room for every key and the longest numbers) and
      // appended once: appending each key and number to `out_` was a third of the command's
      // time (perf, 58,000 rows).
      size_t room = 2;
      for (const auto& k : keys) room += 1 + k.first.size() + 21;  // ",", key, WriteInt64
      row_text_.resize(room + 1);
      for (const auto row : block.rows) {
        char* const begin = row_text_.data();
        char* at = begin;
        if (!first) *at++ = ',';
        first = false;
        *at++ = '{';
        for (size_t k = 0; k < keys.size(); ++k) {
          if (k > 0) *at++ = ',';
          std::memcpy(at, keys[k].first.data(), keys[k].first.size());
          at += keys[k].first.size();
          at = WriteInt64(at, row[keys[k].second]);
        }
        *at++ = '}';
        out_.append(begin, static_cast<size_t>(at - begin));
        if (flush_ && out_.size() >= kFlushBytes) flush_(out_);
      }
    }
  }

 private:
  static constexpr size_t kFlushBytes = 1 << 20;

  template <class T>
  void Number(T value) {
    char digits[24];
    out_.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
  }
  template <class T>
  void Member(const char* key, const std::optional<T>& value) {
    out_ += key;
    if (value) {
      Number(*value);
    } else {
      out_ += "null";
    }
  }
  void Percentiles(const std::array<std::optional<int64_t>, 4>& values) {
    out_ += '{';
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out_ += ',';
      out_ += '"';
      Number(parsers::kGfxinfoPercentiles[i]);
      out_ += "\":";
      if (values[i]) {
        Number(*values[i]);
      } else {
        out_ += "null";
      }
    }
    out_ += '}';
  }

  std::string& out_;
  const std::function<void(std::string&)>& flush_;
  std::vector<char> row_text_;
};

}  // namespace

void AppendJson(const parsers::Gfxinfo& g, std::string& out,
                const std::function<void(std::string&)>& flush) {
  const parsers::GfxinfoProfile& app = g.profiles.front();
  GfxinfoWriter w(out, flush);
  // With framestats, Android 10+ prints each window's own block (CanvasContext::dumpFrames:
  // "Window: NAME", its stats, then its rows), so the process block has no rows of its own. The
  // top-level "frames" are the app process's rows, all its windows', as on 6–9 where they follow
  // the process block; each profile in "profiles" keeps its own.
  std::vector<const parsers::GfxinfoProfile*> app_rows;
  for (const auto& p : g.profiles) {
    if (p.pid == app.pid && p.package == app.package) app_rows.push_back(&p);
  }
  w.Profile(app, app_rows);
  out += ",\"profiles\":[";
  for (size_t i = 0; i < g.profiles.size(); ++i) {
    if (i > 0) out += ',';
    w.Profile(g.profiles[i], {&g.profiles[i]});
    out += '}';
  }
  out += "],\"skipped_lines\":";
  char digits[24];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, g.skipped_lines).ptr);
  out += '}';
}

void AppendJson(const parsers::Gfxinfo& g, std::string& out) { AppendJson(g, out, {}); }

}  // namespace droidlab::daemon
