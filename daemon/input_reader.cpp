#include "daemon/input_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace droidlab::daemon {

ReadOutcome ReadInChunks(const std::string& path, size_t chunk_size,
                         const std::function<bool(std::string_view)>& on_chunk) {
  const bool is_stdin = path == "-";
  const int fd = is_stdin ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  const std::string name = is_stdin ? "standard input" : path;
  if (fd < 0) return {false, name + ": " + std::strerror(errno)};

  std::unique_ptr<char[]> buffer(new char[chunk_size]);
  ReadOutcome outcome;
  for (;;) {
    ssize_t n = ::read(fd, buffer.get(), chunk_size);
    if (n < 0) {
      if (errno == EINTR) continue;
      outcome = {false, name + ": " + std::strerror(errno)};
      break;
    }
    if (n == 0) break;
    if (!on_chunk(std::string_view(buffer.get(), static_cast<size_t>(n)))) break;
  }
  if (!is_stdin) ::close(fd);
  return outcome;
}

}  // namespace droidlab::daemon
