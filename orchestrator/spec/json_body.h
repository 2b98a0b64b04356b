// A request body → one parsed JSON value, parsed once and within limits, before any field is
// read: nested no deeper than kMaxBodyDepth (nlohmann's DOM, its dump() and its comparisons
// recurse, so a 400 KB body of '[' would overflow the io thread's stack), and no key given twice
// in an object (nlohmann would keep the last one silently; a shell-reaching field such as a run's
// "package" must not be ambiguous). Numbers beyond a double (1e400) are refused as nlohmann
// refuses them, with its words.
//
// Built on nlohmann's SAX parser, which does not recurse: the depth is counted as containers
// open, so a too-deep body is refused at its 65th '[' without reading further.
//
// Errors are FieldErrors: `field` is the JSON path of the offending key ("run.package") or ""
// for the body as a whole; the caller names the whole ("body", "run").
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "base/result.h"
#include "orchestrator/spec/run_spec.h"

namespace droidlab::orchestrator {

inline constexpr int kMaxBodyDepth = 64;

BasicResult<nlohmann::json, FieldError> ParseJsonBody(std::string_view text,
                                                      int max_depth = kMaxBodyDepth);

}  // namespace droidlab::orchestrator
