// The rows a run keeps of `dumpsys looper_stats`: every entry of the dump, owned, and the
// judgement of which of them are the app's. Pure: no I/O.
//
// is_app: the row's work was caused by the package under test, i.e. the package split out of
// work_source_uid ("com.pkg/u0a164" -> "com.pkg") is exactly the run's package. A shared uid
// ("shared:android.uid.system/1000") or a bare uid is never the app's: LooperStats could not
// name one package for it. This is the orchestrator's call, not the store's: the store keeps
// what it is given.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "parsers/looper_stats.h"
#include "store/records.h"

namespace droidlab::orchestrator {

// Owned copies of the text of each entry, the package and uid as the parser split them, is_app
// as above, unknown columns as a JSON object in extra_json (the dump's column names as keys).
std::vector<store::LooperStatsRow> LooperStatsRowsFromDump(int64_t run_id,
                                                           std::string_view app_package,
                                                           const parsers::LooperStatsDump& dump);

}  // namespace droidlab::orchestrator
