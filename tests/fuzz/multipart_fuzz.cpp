// libFuzzer target for the multipart/form-data reader of a build upload
// (orchestrator/builds/multipart.h). The input is split at a point it chooses and fed in two
// pieces, then again one byte at a time: both must give the same parts, the same bytes and the
// same verdict. Invariants: a part's bytes come only between its begin and end; an error has a
// message; the Content-Type parser never accepts a boundary over 70 characters.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "orchestrator/builds/multipart.h"

namespace {

struct Seen {
  std::vector<std::string> parts;  // name/filename, then the bytes
  bool open = false;
  std::string verdict;
};

Seen Read(std::string_view body, size_t cut, bool bytewise) {
  using droidlab::orchestrator::MultipartLimits;
  using droidlab::orchestrator::MultipartPart;
  using droidlab::orchestrator::MultipartReader;
  Seen seen;
  MultipartReader::Sink sink;
  sink.begin = [&](const MultipartPart& p) {
    if (seen.open) std::abort();
    seen.open = true;
    seen.parts.push_back(p.name + "/" + p.filename.value_or("-") + "/" + p.content_type + ":");
  };
  sink.data = [&](std::string_view bytes) {
    if (!seen.open) std::abort();
    seen.parts.back().append(bytes);
  };
  sink.end = [&] {
    if (!seen.open) std::abort();
    seen.open = false;
  };
  MultipartLimits limits;
  limits.max_parts = 4;
  limits.max_header_bytes = 256;
  MultipartReader reader("fz", limits, sink);
  std::optional<std::string> error;
  if (bytewise) {
    for (size_t i = 0; i < body.size() && !error; ++i) error = reader.Feed(body.substr(i, 1));
  } else {
    error = reader.Feed(body.substr(0, cut));
    if (!error) error = reader.Feed(body.substr(cut));
  }
  if (!error) error = reader.Finish();
  if (error && error->empty()) std::abort();
  seen.verdict = error ? "refused" : "ok";
  return seen;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  auto boundary = droidlab::orchestrator::MultipartBoundary(input.substr(0, 120));
  if (boundary && (boundary->empty() || boundary->size() > 70)) std::abort();
  const size_t cut = size == 0 ? 0 : data[0] % (size + 1);
  const Seen split = Read(input, cut, false);
  const Seen bytewise = Read(input, 0, true);
  if (split.verdict != bytewise.verdict) std::abort();
  // Parts already handed on before a refusal may differ in how far they got; accepted bodies not.
  if (split.verdict == "ok" && split.parts != bytewise.parts) std::abort();
  return 0;
}
