#include "tests/common/pg_server.h"

#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tests/common/adb_lab.h"
#include "tests/common/temp_dir.h"

namespace droidlab::testutil {

namespace {

using Clock = std::chrono::steady_clock;

struct Credentials {
  bool drop = false;  // running as root: the children run as `nobody`
  uid_t uid = 0;
  gid_t gid = 0;
};

Credentials ChildCredentials() {
  Credentials credentials;
  if (geteuid() != 0) return credentials;
  const passwd* nobody = getpwnam("nobody");
  if (nobody == nullptr) throw std::runtime_error("PgServer: running as root and no user nobody");
  credentials.drop = true;
  credentials.uid = nobody->pw_uid;
  credentials.gid = nobody->pw_gid;
  return credentials;
}

// Starts `argv` with stdout and stderr appended to `log`, as `credentials` say, dying with the
// calling thread. Everything is prepared before fork(): the child only makes system calls.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& log,
            const Credentials& credentials) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("PgServer: fork failed");
  if (pid == 0) {
    const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    const int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (out < 0 || in < 0) _exit(126);
    dup2(in, 0);
    dup2(out, 1);
    dup2(out, 2);
    if (credentials.drop) {
      if (setgroups(0, nullptr) != 0 || setgid(credentials.gid) != 0 ||
          setuid(credentials.uid) != 0) {
        _exit(125);
      }
    }
    // After the credentials change, which would clear it.
    prctl(PR_SET_PDEATHSIG, SIGQUIT);
    if (getppid() != parent) _exit(124);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

// The child's wait status once it has exited, or -1 if it is still running after `limit`.
int WaitFor(pid_t pid, std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  for (;;) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0) return 0;  // not our child any more
    if (Clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::string Tail(const std::string& path) {
  std::string text = ReadFileBytes(path);
  if (text.size() > 4000) text = "..." + text.substr(text.size() - 4000);
  return text;
}

// A folder `nobody` can reach when we are root: every folder above it must be searchable by
// others, which $TMPDIR may not be; the socket's path must also stay under 107 bytes.
std::string MakeServerDir(const Credentials& credentials) {
  std::string base = "/tmp";
  const char* tmpdir = std::getenv("TMPDIR");
  if (!credentials.drop && tmpdir != nullptr && *tmpdir != '\0' &&
      std::string(tmpdir).size() < 60) {
    base = tmpdir;
  }
  std::string pattern = base + "/droidlab-pg.XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("PgServer: mkdtemp failed");
  if (credentials.drop && chown(pattern.c_str(), credentials.uid, credentials.gid) != 0) {
    std::filesystem::remove_all(pattern);
    throw std::runtime_error("PgServer: cannot give " + pattern + " to nobody");
  }
  return pattern;
}

std::string ConnInfo(const std::string& dir, int port, const std::string& database) {
  return "host=" + dir + " port=" + std::to_string(port) + " dbname=" + database +
         " user=" + PgServer::kUser + " password=" + PgServer::kPassword + " connect_timeout=5";
}

}  // namespace

std::string PostgresBinDir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  int best = -1;
  std::string found;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    const fs::path bin = entry.path() / "bin";
    if (!fs::exists(bin / "initdb", ec) || !fs::exists(bin / "postgres", ec)) continue;
    if (std::stoi(name) > best) {
      best = std::stoi(name);
      found = bin.string();
    }
  }
  return found;
}

PgServer::PgServer() {
  bin_ = PostgresBinDir();
  if (bin_.empty()) {
    throw std::runtime_error(
        "PgServer: no /usr/lib/postgresql/N/bin/initdb: install Debian's postgresql package "
        "(deploy/install-deps.sh --test)");
  }
  const Credentials credentials = ChildCredentials();
  dir_ = MakeServerDir(credentials);
  try {
    const std::string password_file = dir_ + "/password";
    WriteFileBytes(password_file, std::string(kPassword) + "\n");
    if (credentials.drop) {
      (void)chown(password_file.c_str(), credentials.uid, credentials.gid);
    }
    // Tests only: --no-sync (initdb does not fsync the new cluster); below, fsync=off and
    // synchronous_commit=off. A crash of the test machine loses this throwaway server's data,
    // which nothing needs; the production server keeps its own settings.
    const pid_t initdb = Spawn(
        {bin_ + "/initdb", "-D", dir_ + "/data", "-U", kUser, "--pwfile=" + password_file, "-A",
         "scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync", "--no-instructions"},
        dir_ + "/initdb.log", credentials);
    const int status = WaitFor(initdb, std::chrono::seconds(60));
    if (status == -1) {
      kill(initdb, SIGKILL);
      WaitFor(initdb, std::chrono::seconds(5));
    }
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      throw std::runtime_error("PgServer: initdb failed:\n" + Tail(dir_ + "/initdb.log"));
    }
    // A port taken between FreeLoopbackPort's check and the bind: try another.
    for (int attempt = 0; attempt < 5; ++attempt) {
      if (StartOnce(credentials.uid, credentials.gid)) return;
    }
    throw std::runtime_error("PgServer: the server did not start:\n" + Tail(dir_ + "/server.log"));
  } catch (...) {
    Stop();
    throw;
  }
}

bool PgServer::StartOnce(uid_t uid, gid_t gid) {
  Credentials credentials;
  credentials.drop = geteuid() == 0;
  credentials.uid = uid;
  credentials.gid = gid;
  port_ = FreeLoopbackPort();
  if (port_ < 0) throw std::runtime_error("PgServer: no free port");
  pid_ = Spawn({bin_ + "/postgres",
                "-D",
                dir_ + "/data",
                "-p",
                std::to_string(port_),
                "-k",
                dir_,
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "shared_buffers=32MB",
                "-c",
                "max_connections=60",
                "-c",
                "max_wal_size=1GB"},
               dir_ + "/server.log", credentials);
  const std::string conninfo = ConnInfo(dir_, port_, "postgres");
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (Clock::now() < deadline) {
    if (PQping(conninfo.c_str()) == PQPING_OK) return true;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      const std::string log = ReadFileBytes(dir_ + "/server.log");
      if (log.find("could not bind") != std::string::npos ||
          log.find("already in use") != std::string::npos) {
        return false;
      }
      throw std::runtime_error("PgServer: postgres exited:\n" + Tail(dir_ + "/server.log"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  throw std::runtime_error("PgServer: no answer within 30 s:\n" + Tail(dir_ + "/server.log"));
}

PgServer::~PgServer() { Stop(); }

void PgServer::Stop() {
  if (pid_ > 0) {
    // SIGINT is the fast shutdown (`pg_ctl stop -m fast`): sessions ended, no checkpoint wait.
    kill(pid_, SIGINT);
    if (WaitFor(pid_, std::chrono::seconds(20)) == -1) {
      kill(pid_, SIGQUIT);
      if (WaitFor(pid_, std::chrono::seconds(5)) == -1) {
        kill(pid_, SIGKILL);
        WaitFor(pid_, std::chrono::seconds(5));
      }
    }
    pid_ = -1;
  }
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }
}

void PgServer::Execute(const std::string& database, const std::string& sql) const {
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn(
      PQconnectdb(ConnInfo(dir_, port_, database).c_str()), &PQfinish);
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    throw std::runtime_error("PgServer: cannot connect: " +
                             std::string(PQerrorMessage(conn.get())));
  }
  std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn.get(), sql.c_str()), &PQclear);
  const ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    throw std::runtime_error("PgServer: " + sql + ": " +
                             std::string(PQresultErrorMessage(result.get())));
  }
}

std::string PgServer::CreateDatabase(const std::string& prefix) {
  const std::string name = prefix + "_" + std::to_string(next_database_++);
  Execute("postgres", "CREATE DATABASE " + name);
  return SocketUrl(name);
}

std::string PgServer::SocketUrl(const std::string& database) const {
  return std::string("postgresql://") + kUser + ":" + kPassword + "@/" + database +
         "?host=" + dir_ + "&port=" + std::to_string(port_);
}

std::string PgServer::TcpUrl(const std::string& database) const {
  return std::string("postgresql://") + kUser + ":" + kPassword +
         "@127.0.0.1:" + std::to_string(port_) + "/" + database;
}

PgServer& SharedPgServer() {
  static PgServer server;
  return server;
}

}  // namespace droidlab::testutil
