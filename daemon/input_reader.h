// Reads a file or standard input in fixed-size chunks, so `droidlab parse` streams inputs of
// any size in bounded memory.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace droidlab::daemon {

struct ReadOutcome {
  bool ok = true;
  std::string error;  // "FILE: No such file or directory"
};

// Calls on_chunk for each chunk read from `path` ("-" = standard input) until end of file.
// on_chunk returns false to stop early. Retries on EINTR.
ReadOutcome ReadInChunks(const std::string& path, size_t chunk_size,
                         const std::function<bool(std::string_view)>& on_chunk);

}  // namespace droidlab::daemon
