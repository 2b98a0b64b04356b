// libFuzzer target for ParseProcPidStat and ParseProcUptime. Invariants checked on success:
// comm lies inside the input, at least 24 fields were seen, optional fields are present exactly
// up to field_count, and the pid is not negative.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "parsers/proc_stat.h"

using droidlab::parsers::ParseProcPidStat;
using droidlab::parsers::ParseProcUptime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto st = ParseProcPidStat(input);
  if (st.ok()) {
    const char* begin = input.data();
    const char* end = begin + input.size();
    if (st->comm.data() < begin || st->comm.data() + st->comm.size() > end) std::abort();
    if (st->field_count < 24 || st->pid < 0) std::abort();
    if (st->rsslim.has_value() != (st->field_count >= 25)) std::abort();
    if (st->cguest_time.has_value() != (st->field_count >= 44)) std::abort();
    if (st->exit_code.has_value() != (st->field_count >= 52)) std::abort();
    // comm is closed by the last ')' of the input.
    const std::string_view after = input.substr(
        static_cast<size_t>(st->comm.data() + st->comm.size() - begin));
    if (after.empty() || after[0] != ')' || after.find(')', 1) != std::string_view::npos) {
      std::abort();
    }
  } else if (st.error().message.empty()) {
    std::abort();
  }
  auto up = ParseProcUptime(input);
  if (up.ok() && (up->uptime_cs < 0 || up->idle_cs < 0)) std::abort();
  return 0;
}
