// The memory of an iteration (issue 16 §5): `dumpsys meminfo PKG` at its end — after the launch,
// the run's scenario and the frames' read — parsed by parsers/meminfo.h into a
// store::IterationMemory: total PSS, RSS and swap PSS, the App Summary and the Objects counts
// (analysis/leak.h looks for a leak in them across iterations).
//
// A read that fails — no process (the app crashed or was killed: "No process found for"), a
// timeout, an answer that is not meminfo — leaves the iteration without memory: the launch is
// still measured and the reason is logged once a run. A device gone or a cancelled run is the
// run's end, as for every command.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "orchestrator/run/device_shell.h"
#include "parsers/meminfo.h"
#include "store/records.h"

namespace droidlab::orchestrator {

// Pure: the iteration's memory from a parsed dump of `package`; an error when the dump is of
// another process (the parser reads the first block; `dumpsys meminfo PKG` names the process).
BasicResult<store::IterationMemory, std::string> IterationMemoryOf(const parsers::Meminfo& dump,
                                                                   std::string_view package,
                                                                   int64_t run_id,
                                                                   int64_t iteration);

// The memory from the result of `dumpsys meminfo PKG` (DumpsysMeminfo, one part of the
// iteration's last command: launch_iteration.cpp), parsed. The inner error says why there is no
// memory (for the log); the outer one is the command's when the device is gone or the run
// cancelled.
CommandResult<BasicResult<store::IterationMemory, std::string>> MemoryOfDump(
    const CommandResult<adb::ShellResult>& read, std::string_view package, int64_t run_id,
    int64_t iteration);

}  // namespace droidlab::orchestrator
