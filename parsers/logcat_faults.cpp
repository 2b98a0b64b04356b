#include "parsers/logcat_faults.h"

#include <utility>

#include "parsers/logcat_tags.h"
#include "parsers/text.h"

namespace droidlab::parsers {
namespace {

constexpr std::string_view kAndroidRuntime = "AndroidRuntime";
constexpr std::string_view kDebug = "DEBUG";
constexpr std::string_view kLooper = "Looper";
constexpr std::string_view kAmAnr = "am_anr";
constexpr std::string_view kAmCrash = "am_crash";

// A process name's package: "com.pkg:remote" -> "com.pkg"; a native binary's path has none, nor
// has the "<unknown>" a 12+ tombstone prints for a process without a command line.
std::string PackageOf(std::string_view process) {
  if (process.empty() || process[0] == '/' || process[0] == '<') return {};
  return std::string(process.substr(0, process.find(':')));
}

void SetProcess(FaultEvent& ev, std::string_view process) {
  ev.process_name.assign(process);
  ev.package = PackageOf(process);
}

// "ANR in P" or "ANR in P (C)" (C the short component).
bool ReadAnrHead(std::string_view rest, FaultEvent& ev) {
  rest = Trim(rest);
  size_t open = rest.find(" (");
  std::string_view process = rest.substr(0, open);
  if (process.empty() || process.find(' ') != std::string_view::npos) return false;
  SetProcess(ev, process);
  if (open != std::string_view::npos && rest.back() == ')') {
    ev.component.assign(rest.substr(open + 2, rest.size() - open - 3));
  }
  return true;
}

// "Process: P, PID: N" (RuntimeInit, Android 4.4+).
bool ReadCrashProcess(std::string_view rest, FaultEvent& ev) {
  size_t comma = rest.rfind(", PID: ");
  if (comma == std::string_view::npos) return false;
  auto pid = ParseInt64(Trim(rest.substr(comma + 7)));
  if (!pid) return false;
  SetProcess(ev, Trim(rest.substr(0, comma)));
  ev.pid = pid;
  return true;
}

// An OEM line between "Process:" and the exception ("Theme: themes:{…}" on CyanogenMod 13): a
// one-word label with no '.', where an exception line starts with a class name.
bool IsOemExtra(std::string_view msg) {
  size_t colon = msg.find(": ");
  if (colon == std::string_view::npos || colon == 0) return false;
  std::string_view label = msg.substr(0, colon);
  return label.find_first_of(". \t$") == std::string_view::npos;
}

// "pid: N, tid: N, name: X  >>> P <<<" (tombstone's thread header).
bool ReadNativeHead(std::string_view msg, FaultEvent& ev) {
  std::string_view rest = msg;
  if (!ConsumePrefix(rest, "pid: ")) return false;
  auto pid_text = SplitFirst(rest, ',');
  if (!pid_text || !ConsumePrefix(rest, " tid: ")) return false;
  auto tid_text = SplitFirst(rest, ',');
  if (!tid_text || !ConsumePrefix(rest, " name: ")) return false;
  auto pid = ParseInt64(*pid_text);
  auto tid = ParseInt64(*tid_text);
  if (!pid || !tid) return false;
  size_t open = rest.find("  >>> ");
  if (open == std::string_view::npos || !rest.ends_with(" <<<")) return false;
  ev.pid = pid;
  ev.tid = tid;
  ev.thread.assign(rest.substr(0, open));
  std::string_view process = rest.substr(open + 6, rest.size() - open - 6 - 4);
  if (process.empty()) return false;
  SetProcess(ev, process);
  return true;
}

// "Slow dispatch took Nms THREAD h=CLASS c=CALLBACK m=WHAT" (Looper.showSlowLog).
bool ReadSlow(std::string_view msg, FaultEvent& ev) {
  std::string_view rest = msg;
  if (ConsumePrefix(rest, "Slow dispatch took ")) {
    ev.kind = FaultKind::kSlowDispatch;
  } else if (ConsumePrefix(rest, "Slow delivery took ")) {
    ev.kind = FaultKind::kSlowDelivery;
  } else {
    return false;
  }
  size_t ms = rest.find("ms ");
  if (ms == std::string_view::npos) return false;
  auto duration = ParseInt64(rest.substr(0, ms));
  if (!duration || *duration < 0) return false;
  rest.remove_prefix(ms + 3);
  size_t h = rest.find(" h=");
  if (h == std::string_view::npos || h == 0) return false;
  ev.duration_ms = duration;
  ev.thread.assign(rest.substr(0, h));
  ev.reason.assign(rest);
  return true;
}

// Splits "[a,b,c]" into its fields; the last ones may hold commas, so callers re-join them.
bool SplitEventList(std::string_view msg, std::vector<std::string_view>& fields) {
  msg = TrimRight(msg);
  if (msg.size() < 2 || msg.front() != '[' || msg.back() != ']') return false;
  std::string_view body = msg.substr(1, msg.size() - 2);
  fields.clear();
  for (;;) {
    size_t comma = body.find(',');
    fields.push_back(body.substr(0, comma));
    if (comma == std::string_view::npos) break;
    body.remove_prefix(comma + 1);
  }
  return true;
}

// The fields from `from` to `to` (exclusive) as the text they were, commas and all.
std::string_view Rejoin(const std::vector<std::string_view>& f, size_t from, size_t to) {
  const char* begin = f[from].data();
  const char* end = f[to - 1].data() + f[to - 1].size();
  return std::string_view(begin, static_cast<size_t>(end - begin));
}

// am_anr: [User,pid,Package Name,Flags,reason] (reason may hold commas).
bool ReadAmAnr(std::string_view msg, FaultEvent& ev) {
  std::vector<std::string_view> f;
  if (!SplitEventList(msg, f) || f.size() < 5) return false;
  auto user = ParseInt64(f[0]);
  auto pid = ParseInt64(f[1]);
  if (!user || !pid || !ParseInt64(f[3]) || f[2].empty()) return false;
  ev.kind = FaultKind::kAnr;
  ev.user_id = user;
  ev.pid = pid;
  SetProcess(ev, f[2]);
  ev.reason.assign(Rejoin(f, 4, f.size()));
  return true;
}

// am_crash: [User,PID,Process Name,Flags,Exception,Message,File,Line] and, later, a Recoverable
// field. The Message may hold commas: the fields are read from both ends.
bool ReadAmCrash(std::string_view msg, FaultEvent& ev) {
  std::vector<std::string_view> f;
  if (!SplitEventList(msg, f) || f.size() < 8) return false;
  auto user = ParseInt64(f[0]);
  auto pid = ParseInt64(f[1]);
  if (!user || !pid || !ParseInt64(f[3]) || f[2].empty()) return false;
  size_t end = f.size();
  // Line and Recoverable are both numbers; a File never is.
  if (end >= 9 && ParseInt64(f[end - 1]) && ParseInt64(f[end - 2])) --end;
  if (!ParseInt64(f[end - 1])) return false;
  ev.kind = FaultKind::kCrash;
  ev.user_id = user;
  ev.pid = pid;
  SetProcess(ev, f[2]);
  ev.reason.assign(f[4]);
  std::string_view message = end - 2 > 5 ? Rejoin(f, 5, end - 2) : std::string_view();
  if (!message.empty()) {
    ev.reason.append(": ");
    ev.reason.append(message);
  }
  return true;
}

void FillHeader(const FaultLine& line, FaultEvent& ev) {
  ev.time.assign(line.time);
  ev.log_time = ParseLogTime(line.time);
  ev.tag.assign(line.tag);
  ev.logger_pid = line.pid;
}

}  // namespace

std::string_view FaultKindName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kAnr:
      return "anr";
    case FaultKind::kCrash:
      return "crash";
    case FaultKind::kNativeCrash:
      return "native_crash";
    case FaultKind::kSlowDispatch:
      return "slow_dispatch";
    case FaultKind::kSlowDelivery:
      return "slow_delivery";
  }
  return "unknown";
}

bool FaultAssembler::IsFaultTag(std::string_view tag) {
  return tag == kActivityManager || tag == kAndroidRuntime || tag == kDebug || tag == kLooper ||
         tag == kAmAnr || tag == kAmCrash;
}

FaultAssembler::Pending* FaultAssembler::Find(const FaultLine& line) {
  for (auto& p : pending_) {
    if (p.logger_pid == line.pid && p.logger_tid == line.tid && p.logger_tag == line.tag) {
      return &p;
    }
  }
  return nullptr;
}

void FaultAssembler::Emit(size_t index, std::vector<FaultEvent>& out) {
  out.push_back(std::move(pending_[index].event));
  pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(index));
}

FaultAssembler::Pending& FaultAssembler::Open(const FaultLine& line, Phase phase, FaultKind kind,
                                              std::vector<FaultEvent>& out) {
  if (pending_.size() >= kMaxPending) Emit(0, out);
  Pending p;
  p.phase = phase;
  p.logger_pid = line.pid;
  p.logger_tid = line.tid;
  p.logger_tag.assign(line.tag);
  p.event.kind = kind;
  FillHeader(line, p.event);
  pending_.push_back(std::move(p));
  return pending_.back();
}

void FaultAssembler::Add(const FaultLine& line, std::vector<FaultEvent>& out) {
  const std::string_view msg = line.message;
  if (line.tag == kLooper || line.tag == kAmAnr || line.tag == kAmCrash) {
    FaultEvent ev;
    bool ok = line.tag == kLooper  ? ReadSlow(msg, ev)
              : line.tag == kAmAnr ? ReadAmAnr(msg, ev)
                                   : ReadAmCrash(msg, ev);
    if (!ok) return;
    FillHeader(line, ev);
    if (line.tag == kLooper) ev.pid = line.pid;  // the app logs its own slow messages
    out.push_back(std::move(ev));
    return;
  }
  Pending* open = Find(line);
  const size_t index = open != nullptr ? static_cast<size_t>(open - pending_.data()) : 0;

  if (line.tag == kActivityManager) {
    std::string_view rest = msg;
    if (ConsumePrefix(rest, "ANR in ")) {
      if (open != nullptr) Emit(index, out);
      FaultEvent head;
      if (!ReadAnrHead(rest, head)) return;
      Pending& p = Open(line, Phase::kAnrHead, FaultKind::kAnr, out);
      p.event.process_name = std::move(head.process_name);
      p.event.package = std::move(head.package);
      p.event.component = std::move(head.component);
      return;
    }
    if (open == nullptr) return;
    if (ConsumePrefix(rest, "PID: ")) {
      open->event.pid = ParseInt64(Trim(rest));
      return;
    }
    if (ConsumePrefix(rest, "Reason: ")) open->event.reason.assign(rest);
    Emit(index, out);  // the reason, or the first line past the ANR's head
    return;
  }

  if (line.tag == kAndroidRuntime) {
    std::string_view rest = msg;
    if (ConsumePrefix(rest, "FATAL EXCEPTION: ")) {
      if (open != nullptr) Emit(index, out);
      Pending& p = Open(line, Phase::kCrashHead, FaultKind::kCrash, out);
      p.event.thread.assign(rest);
      p.event.pid = line.pid;  // the app logs its own crash; "Process:" confirms it
      return;
    }
    if (open == nullptr) return;
    if (open->phase == Phase::kCrashHead) {
      if (ConsumePrefix(rest, "Process: ")) {
        ReadCrashProcess(rest, open->event);
        return;
      }
      if (ConsumePrefix(rest, "PID: ")) {  // RuntimeInit.logUncaught with no process name
        if (auto pid = ParseInt64(Trim(rest))) open->event.pid = pid;
        return;
      }
      if (IsOemExtra(msg)) return;
      open->event.reason.assign(msg);
      open->phase = Phase::kCrashStack;
      return;
    }
    open->event.stack.emplace_back(msg);
    if (open->event.stack.size() >= kMaxStackLines) Emit(index, out);
    return;
  }

  if (line.tag == kDebug) {
    if (msg.starts_with("pid: ")) {
      FaultEvent head;
      if (!ReadNativeHead(msg, head)) return;
      if (open != nullptr) Emit(index, out);
      Pending& p = Open(line, Phase::kNativeHead, FaultKind::kNativeCrash, out);
      p.event.pid = head.pid;
      p.event.tid = head.tid;
      p.event.thread = std::move(head.thread);
      p.event.process_name = std::move(head.process_name);
      p.event.package = std::move(head.package);
      return;
    }
    if (open == nullptr) return;
    if (msg.starts_with("signal ")) {
      open->event.reason.assign(msg);
      Emit(index, out);
    } else if (msg.starts_with("*** *** ***")) {
      Emit(index, out);  // the next tombstone began before this one named its signal
    }
  }
}

void FaultAssembler::Finish(std::vector<FaultEvent>& out) {
  for (auto& p : pending_) out.push_back(std::move(p.event));
  pending_.clear();
}

}  // namespace droidlab::parsers
