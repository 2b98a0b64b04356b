#include "orchestrator/run/memory_collector.h"

#include <string>

namespace droidlab::orchestrator {

namespace {

using Memory = BasicResult<store::IterationMemory, std::string>;

}  // namespace

Memory IterationMemoryOf(const parsers::Meminfo& dump, std::string_view package, int64_t run_id,
                         int64_t iteration) {
  if (dump.package != package) {
    return "dumpsys meminfo printed process " + dump.package + ", not " + std::string(package);
  }
  store::IterationMemory m;
  m.run_id = run_id;
  m.iteration = iteration;
  m.pid = dump.pid;
  m.total_pss_kb = dump.total_pss_kb;
  m.total_rss_kb = dump.total_rss_kb;
  m.total_swap_pss_kb = dump.total_swap_pss_kb;
  m.java_heap_kb = dump.summary.java_heap_kb;
  m.native_heap_kb = dump.summary.native_heap_kb;
  m.code_kb = dump.summary.code_kb;
  m.stack_kb = dump.summary.stack_kb;
  m.graphics_kb = dump.summary.graphics_kb;
  m.private_other_kb = dump.summary.private_other_kb;
  m.system_kb = dump.summary.system_kb;
  m.views = dump.objects.views;
  m.view_root_impl = dump.objects.view_root_impl;
  m.app_contexts = dump.objects.app_contexts;
  m.activities = dump.objects.activities;
  m.assets = dump.objects.assets;
  m.asset_managers = dump.objects.asset_managers;
  m.local_binders = dump.objects.local_binders;
  m.proxy_binders = dump.objects.proxy_binders;
  m.death_recipients = dump.objects.death_recipients;
  m.webviews = dump.objects.webviews;
  return m;
}

CommandResult<Memory> MemoryOfDump(const CommandResult<adb::ShellResult>& read,
                                   std::string_view package, int64_t run_id, int64_t iteration) {
  if (!read) {
    if (read.error().device_lost() || read.error().cancelled()) return read.error();
    return Memory(std::string("dumpsys meminfo: ") + read.error().message);
  }
  auto dump = parsers::ParseMeminfo(read->out);
  if (!dump) {
    if (dump.error().code == parsers::ParseErrorCode::kEmpty) {
      return Memory(std::string("dumpsys meminfo: no process of ") + std::string(package) +
                    " (the app is not running: crashed or killed?)");
    }
    return Memory(std::string("dumpsys meminfo: ") + dump.error().message);
  }
  return IterationMemoryOf(*dump, package, run_id, iteration);
}

}  // namespace droidlab::orchestrator
