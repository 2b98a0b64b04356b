// A real PostgreSQL server for tests, from Debian's `postgresql` package (deploy/install-deps.sh
// --test): initdb into a temporary folder, the postmaster on a free private port on 127.0.0.1
// with its Unix socket in that folder, password authentication (scram-sha-256) for the one
// superuser. Started in about a second; stopped (SIGINT: what `pg_ctl stop -m fast` sends) and
// its folder removed by the destructor, so a failed assertion still cleans up.
//
// As root (CI), initdb and postgres run as `nobody` (PostgreSQL refuses root): the child drops
// to that user itself, then asks the kernel to send it SIGQUIT when the test's thread dies
// (PR_SET_PDEATHSIG survives the exec; setpriv or runuser would clear it by changing the
// credentials after it is set), so even a test binary killed by a sanitizer leaves no server
// running.
//
// SharedPgServer() is one server per test binary, started on first use and stopped when the
// binary exits; each test takes its own database with CreateDatabase().
#pragma once

#include <sys/types.h>

#include <string>

namespace droidlab::testutil {

class PgServer {
 public:
  static constexpr const char* kUser = "droidlab";
  static constexpr const char* kPassword = "pg-test-secret";

  // Throws std::runtime_error (with the server's log) when the server cannot be started.
  PgServer();
  ~PgServer();
  PgServer(const PgServer&) = delete;
  PgServer& operator=(const PgServer&) = delete;

  // A new, empty database "<prefix>_<n>" and its URL (over the Unix socket).
  std::string CreateDatabase(const std::string& prefix = "test");
  // postgresql://droidlab:PASSWORD@/DB?host=SOCKET_DIR&port=PORT
  std::string SocketUrl(const std::string& database) const;
  // postgresql://droidlab:PASSWORD@127.0.0.1:PORT/DB
  std::string TcpUrl(const std::string& database) const;
  // Runs SQL as the superuser on `database`; throws with the server's message on failure.
  void Execute(const std::string& database, const std::string& sql) const;

  int port() const { return port_; }
  const std::string& dir() const { return dir_; }
  pid_t pid() const { return pid_; }

 private:
  bool StartOnce(uid_t uid, gid_t gid);
  void Stop();

  std::string dir_;
  std::string bin_;
  int port_ = -1;
  pid_t pid_ = -1;
  int next_database_ = 0;
};

// The test binary's one server (started on first call).
PgServer& SharedPgServer();

// The folder of Debian's PostgreSQL programs, the newest /usr/lib/postgresql/N/bin with initdb
// and postgres; "" when the postgresql package is not installed.
std::string PostgresBinDir();

}  // namespace droidlab::testutil
