#include "daemon/db_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "store/pg/connection.h"
#include "store/pg/serving_lock.h"

namespace droidlab::daemon {

namespace {

// The pid the holder wrote, as text ("" when unreadable or empty).
std::string HolderPid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
  if (n <= 0) return "";
  std::string pid(buf, static_cast<size_t>(n));
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid;
}

}  // namespace

BasicResult<DatabaseLock, std::string> DatabaseLock::Acquire(const std::string& db_path,
                                                             const std::string& host_name) {
  if (store::pg::IsPostgresUrl(db_path)) {
    auto taken = store::pg::ServingLock::Take(db_path, host_name);
    if (!taken) return taken.error().message;
    return DatabaseLock(std::make_unique<store::pg::ServingLock>(std::move(taken).value()));
  }
  std::string path = db_path + ".lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return "cannot open the lock file " + path + ": " + std::strerror(errno);
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    std::string message;
    if (error == EWOULDBLOCK) {
      const std::string pid = HolderPid(fd);
      message = "another droidlab daemon is serving " + db_path + " (" +
                (pid.empty() ? std::string("it holds ") : "pid " + pid + " holds ") + path +
                "); one daemon per database: stop it first, or give this one another --db";
    } else {
      message = "cannot lock " + path + ": " + std::strerror(error);
    }
    ::close(fd);
    return message;
  }
  // Ours now: the pid, for the next daemon's message (a failure here costs only that).
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) {
    (void)!::pwrite(fd, pid.data(), pid.size(), 0);
  }
  return DatabaseLock(fd, std::move(path));
}

DatabaseLock::DatabaseLock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}

DatabaseLock::DatabaseLock(std::unique_ptr<store::pg::ServingLock> server_lock)
    : server_lock_(std::move(server_lock)) {}

DatabaseLock::DatabaseLock(DatabaseLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      server_lock_(std::move(other.server_lock_)) {}

DatabaseLock& DatabaseLock::operator=(DatabaseLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    server_lock_ = std::move(other.server_lock_);
  }
  return *this;
}

bool DatabaseLock::TryLead(std::string* why_not) {
  if (!server_lock_) return true;
  auto leading = server_lock_->TryLead();
  if (!leading) {
    if (why_not) *why_not = leading.error().message;
    return false;
  }
  return *leading;
}

DatabaseLock::~DatabaseLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace droidlab::daemon
