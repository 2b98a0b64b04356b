#include "orchestrator/run/iteration_faults.h"

namespace droidlab::orchestrator {
namespace {

using parsers::FaultEvent;
using parsers::FaultKind;

// am_anr / am_crash: one events-buffer line that repeats a fault of the text buffers.
bool IsEventLine(const FaultEvent& f) { return f.tag == "am_anr" || f.tag == "am_crash"; }

bool SameFault(const FaultEvent& event_line, const FaultEvent& text) {
  return !IsEventLine(text) && text.kind == event_line.kind && text.pid &&
         text.pid == event_line.pid;
}

std::string ReasonOrProcess(const FaultEvent& fault) {
  if (!fault.reason.empty()) return ": " + fault.reason;
  return " in " + fault.process_name;
}

}  // namespace

bool IsPackageFault(const FaultEvent& fault, std::string_view package) {
  if (fault.kind != FaultKind::kAnr && fault.kind != FaultKind::kCrash &&
      fault.kind != FaultKind::kNativeCrash) {
    return false;
  }
  const std::string_view process = fault.process_name;
  if (package.empty() || !process.starts_with(package)) return false;
  return process.size() == package.size() || process[package.size()] == ':';
}

bool IsAppSlowMessage(const FaultEvent& fault, std::optional<int64_t> app_pid) {
  if (fault.kind != FaultKind::kSlowDispatch && fault.kind != FaultKind::kSlowDelivery) {
    return false;
  }
  return app_pid && fault.pid == app_pid;
}

bool MakesIterationInvalid(const store::IterationFault& fault) {
  return fault.kind == "anr" || fault.kind == "crash" || fault.kind == "native_crash";
}

std::vector<FaultEvent> PackageFaults(std::span<const FaultEvent> faults,
                                      std::string_view package) {
  std::vector<FaultEvent> mine;
  for (const FaultEvent& f : faults) {
    if (IsPackageFault(f, package)) mine.push_back(f);
  }
  std::vector<FaultEvent> once;
  for (const FaultEvent& f : mine) {
    bool repeated = false;
    if (IsEventLine(f)) {
      for (const FaultEvent& other : mine) repeated = repeated || SameFault(f, other);
    }
    if (!repeated) once.push_back(f);
  }
  return once;
}

std::string FaultInvalidReason(const FaultEvent& fault) {
  return std::string(parsers::FaultKindName(fault.kind)) + ReasonOrProcess(fault);
}

std::string EveryIterationFaultedReason(const store::IterationFault& first, bool one_kind) {
  const std::string reason =
      first.reason.empty() ? " in " + first.process_name : ": " + first.reason;
  if (!one_kind) {
    return "every iteration crashed or had an ANR (the first: " + first.kind + reason + ")";
  }
  std::string what = "crashed";
  if (first.kind == "anr") what = "had an ANR";
  if (first.kind == "native_crash") what = "crashed in native code";
  return "every iteration " + what + reason;
}

store::IterationFault StoredFault(const FaultEvent& fault, int64_t run_id, int64_t iteration,
                                  int64_t seq, std::optional<int64_t> at_ms) {
  store::IterationFault f;
  f.run_id = run_id;
  f.iteration = iteration;
  f.seq = seq;
  f.kind = std::string(parsers::FaultKindName(fault.kind));
  f.time = fault.time;
  f.at_ms = at_ms;
  f.pid = fault.pid;
  f.process_name = fault.process_name;
  f.reason = fault.reason;
  f.stack = fault.stack;
  f.duration_ms = fault.duration_ms;
  return f;
}

}  // namespace droidlab::orchestrator
