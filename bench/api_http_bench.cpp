// The REST API's speed over HTTP beside nginx serving the same bytes as static files, same run.
//
// In process, no devices: a temporary store seeded through its public writes (20 devices, one
// succeeded run with 100 launches), api::Server on 127.0.0.1 on its own io_context thread. The
// two bodies (GET /api/v1/devices, GET /api/v1/runs/{id}/launches) are fetched once and written
// as files that nginx (Debian's binary, a generated config: one process, no access log) serves
// at the same paths. Then `wrk -t2 -c64 -d10s --latency` against each, interleaved (ours, nginx,
// ours, nginx: 2 rounds), and per endpoint: req/s, p99, CPU per request, ratio ours/nginx
// (goals: ≥ 0.7, p99 < 10 ms). Then ours again while a thread pushes looper-stats rows through
// the store's writer as fast as it takes them (batches of 1,000): req/s under load beside the
// idle figure (goal: within 20 %).
//
//   api_http_bench [--quick]     (--quick: 1 s runs, one round, 16 connections: a smoke run)
// Without wrk or nginx it says why and exits 0.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "api/server.h"
#include "bench/bench_lab.h"
#include "store/store.h"

namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using droidlab::bench::Clock;

constexpr int kDevices = 20;
constexpr int kLaunches = 100;
constexpr int64_t kNow = 1'750'000'000'000;  // ms since the epoch: a fixed "now" for the rows

// A program on PATH (or one of `extra` paths); "" when none is executable.
std::string FindProgram(const std::string& name, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> candidates;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      if (!dir.empty()) candidates.push_back(dir + "/" + name);
    }
  }
  candidates.insert(candidates.end(), extra.begin(), extra.end());
  for (const auto& c : candidates) {
    if (::access(c.c_str(), X_OK) == 0) return c;
  }
  return "";
}

int ConnectLoopback(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  timeval tv{};
  tv.tv_sec = 5;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// GET `target` with Connection: close; the body of a 200 answer with a Content-Length, else
// nullopt and `why`.
std::optional<std::string> HttpGet(int port, const std::string& target, std::string* why) {
  const int fd = ConnectLoopback(port);
  if (fd < 0) {
    *why = "cannot connect to 127.0.0.1:" + std::to_string(port);
    return std::nullopt;
  }
  std::string request = "GET ";
  request += target;
  request += " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      ::close(fd);
      *why = "send failed";
      return std::nullopt;
    }
    sent += static_cast<size_t>(n);
  }
  std::string response;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n < 0) {
      ::close(fd);
      *why = "recv failed or timed out";
      return std::nullopt;
    }
    if (n == 0) break;
    response.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  const size_t head_end = response.find("\r\n\r\n");
  if (head_end == std::string::npos || response.compare(0, 12, "HTTP/1.1 200") != 0) {
    *why = "GET " + target + ": not a 200 answer: " + response.substr(0, response.find("\r\n"));
    return std::nullopt;
  }
  std::string head = response.substr(0, head_end);
  std::transform(head.begin(), head.end(), head.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const size_t cl = head.find("\r\ncontent-length:");
  if (cl == std::string::npos) {
    *why = "GET " + target + ": no Content-Length";
    return std::nullopt;
  }
  const size_t length = std::strtoull(head.c_str() + cl + 17, nullptr, 10);
  std::string body = response.substr(head_end + 4);
  if (body.size() != length) {
    *why = "GET " + target + ": body of " + std::to_string(body.size()) + " bytes, Content-Length " +
           std::to_string(length);
    return std::nullopt;
  }
  return body;
}

// Waits for the child to exit, at most `timeout`; its status, or -1 (then it is killed).
int WaitFor(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  int status = 0;
  while (Clock::now() < deadline) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (r < 0) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return -1;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// nginx in the foreground, one process, on 127.0.0.1:port, serving `files` (URL path → file).
class Nginx {
 public:
  static std::unique_ptr<Nginx> Start(const std::string& binary, const fs::path& dir, int port,
                                      const std::vector<std::pair<std::string, fs::path>>& files,
                                      std::string* why) {
    const fs::path prefix = dir / "nginx";
    fs::create_directories(prefix / "tmp");
    const fs::path conf = prefix / "nginx.conf";
    const std::string p = prefix.string();
    std::ofstream out(conf);
    out << "daemon off;\nmaster_process off;\nworker_processes 1;\n"
        << "pid " << p << "/nginx.pid;\nerror_log " << p << "/error.log warn;\n"
        << "events { worker_connections 4096; }\n"
        << "http {\n  access_log off;\n  default_type application/json;\n  sendfile on;\n"
        << "  keepalive_requests 100000000;\n"
        << "  client_body_temp_path " << p << "/tmp/body;\n"
        << "  proxy_temp_path " << p << "/tmp/proxy;\n"
        << "  fastcgi_temp_path " << p << "/tmp/fastcgi;\n"
        << "  uwsgi_temp_path " << p << "/tmp/uwsgi;\n"
        << "  scgi_temp_path " << p << "/tmp/scgi;\n"
        << "  server {\n    listen 127.0.0.1:" << port << ";\n";
    for (const auto& [path, file] : files) {
      out << "    location = " << path << " { alias " << file.string() << "; }\n";
    }
    out << "  }\n}\n";
    out.close();
    auto nginx = std::unique_ptr<Nginx>(new Nginx);
    nginx->error_log_ = prefix / "error.log";
    nginx->pid_ = droidlab::bench::Spawn(
        {binary, "-e", nginx->error_log_.string(), "-p", p, "-c", conf.string()}, -1);
    if (nginx->pid_ < 0) {
      *why = "cannot start " + binary;
      return nullptr;
    }
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    while (Clock::now() < deadline) {
      int status = 0;
      if (::waitpid(nginx->pid_, &status, WNOHANG) == nginx->pid_) {
        nginx->pid_ = -1;
        *why = "nginx exited at start-up: " + ReadFile(nginx->error_log_);
        return nullptr;
      }
      const int fd = ConnectLoopback(port);
      if (fd >= 0) {
        ::close(fd);
        return nginx;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    *why = "nginx did not listen within 10 s: " + ReadFile(nginx->error_log_);
    return nullptr;  // the destructor stops it
  }
  ~Nginx() {
    if (pid_ > 0) {
      ::kill(pid_, SIGQUIT);  // graceful
      if (WaitFor(pid_, std::chrono::seconds(5)) != 0) {
        std::fprintf(stderr, "api_http_bench: nginx did not exit cleanly: %s\n",
                     ReadFile(error_log_).c_str());
      }
    }
  }
  Nginx(const Nginx&) = delete;
  Nginx& operator=(const Nginx&) = delete;
  pid_t pid() const { return pid_; }

 private:
  Nginx() = default;
  pid_t pid_ = -1;
  fs::path error_log_;
};

struct WrkResult {
  double rps = 0;
  double p99_ms = 0;
  double requests = 0;
  std::string trouble;  // non-2xx answers, socket errors
  bool non_2xx = false;
};

// Milliseconds from wrk's "1.23ms" / "456.00us" / "1.02s".
double WrkDurationMs(const char* text) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (std::strncmp(end, "us", 2) == 0) return v / 1000.0;
  if (std::strncmp(end, "ms", 2) == 0) return v;
  if (std::strncmp(end, "s", 1) == 0) return v * 1000.0;
  if (std::strncmp(end, "m", 1) == 0) return v * 60'000.0;
  return -1;
}

std::optional<WrkResult> ParseWrk(const std::string& out) {
  WrkResult r;
  const size_t rps = out.find("Requests/sec:");
  const size_t p99 = out.find(" 99%");
  const size_t reqs = out.find(" requests in ");
  if (rps == std::string::npos || p99 == std::string::npos || reqs == std::string::npos) {
    return std::nullopt;
  }
  r.rps = std::strtod(out.c_str() + rps + 13, nullptr);
  size_t at = p99 + 4;
  while (at < out.size() && out[at] == ' ') ++at;
  r.p99_ms = WrkDurationMs(out.c_str() + at);
  size_t line = out.rfind('\n', reqs);
  line = line == std::string::npos ? 0 : line + 1;
  r.requests = std::strtod(out.c_str() + line, nullptr);
  r.non_2xx = out.find("Non-2xx or 3xx responses:") != std::string::npos;
  for (const char* marker : {"Non-2xx or 3xx responses:", "Socket errors:"}) {
    const size_t m = out.find(marker);
    if (m != std::string::npos) {
      if (!r.trouble.empty()) r.trouble += "; ";
      r.trouble += out.substr(m, out.find('\n', m) - m);
    }
  }
  return r;
}

struct Load {
  std::string wrk;
  std::string threads, connections, duration;
};

// One wrk run; CPU per request of `pid` (-1: this process) over the run.
std::optional<WrkResult> RunWrk(const Load& load, const std::string& url, pid_t pid,
                                double* cpu_us_per_request, std::string* why) {
  const double cpu0 = pid < 0 ? droidlab::bench::CpuMicros() : droidlab::bench::ProcessCpuMicros(pid);
  auto out = droidlab::bench::Capture({load.wrk, "-t" + load.threads, "-c" + load.connections,
                                       "-d" + load.duration, "--latency", url});
  const double cpu1 = pid < 0 ? droidlab::bench::CpuMicros() : droidlab::bench::ProcessCpuMicros(pid);
  if (!out) {
    *why = "wrk failed against " + url;
    return std::nullopt;
  }
  auto r = ParseWrk(*out);
  if (!r) {
    *why = "cannot read wrk's output:\n" + *out;
    return std::nullopt;
  }
  *cpu_us_per_request = r->requests > 0 ? (cpu1 - cpu0) / r->requests : 0;
  return r;
}

struct Tally {
  double rps_sum = 0, p99_max = 0, cpu_sum = 0;
  int n = 0;
  void Add(const WrkResult& r, double cpu) {
    rps_sum += r.rps;
    p99_max = std::max(p99_max, r.p99_ms);
    cpu_sum += cpu;
    ++n;
  }
  double rps() const { return n ? rps_sum / n : 0; }
  double cpu() const { return n ? cpu_sum / n : 0; }
};

void PrintRound(const char* who, const std::string& path, int round, const WrkResult& r,
                double cpu) {
  std::printf("  round %d %-6s %-28s %9.0f req/s  p99 %7.3f ms  %6.1f us CPU/request%s%s\n",
              round, who, path.c_str(), r.rps, r.p99_ms, cpu, r.trouble.empty() ? "" : "  !! ",
              r.trouble.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else {
      std::fprintf(stderr, "usage: api_http_bench [--quick]\n");
      return 2;
    }
  }
  Load load;
  load.wrk = FindProgram("wrk");
  const std::string nginx_binary = FindProgram("nginx", {"/usr/sbin/nginx"});
  if (load.wrk.empty() || nginx_binary.empty()) {
    std::printf("api_http_bench: skipped: %s not found (deploy/install-deps.sh --test installs "
                "wrk and nginx-light)\n",
                load.wrk.empty() ? "wrk" : "nginx (on PATH or /usr/sbin/nginx)");
    return 0;
  }
  load.threads = quick ? "1" : "2";
  load.connections = quick ? "16" : "64";
  load.duration = quick ? "1s" : "10s";
  const int rounds = quick ? 1 : 2;

  const fs::path dir =
      fs::temp_directory_path() / ("droidlab_api_http_bench." + std::to_string(::getpid()));
  fs::create_directories(dir);
  struct RemoveDir {
    fs::path dir;
    ~RemoveDir() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } remove_dir{dir};

  namespace store = droidlab::store;
  store::StoreOptions store_options;
  store_options.path = (dir / "api.db").string();
  auto opened = store::Store::Open(store_options);
  if (!opened.ok()) {
    std::fprintf(stderr, "api_http_bench: %s\n", opened.error().message.c_str());
    return 1;
  }
  store::Store& st = **opened;

  // Seed through the store's public writes.
  for (int i = 0; i < kDevices; ++i) {
    store::Device device;
    device.serial = "emulator-" + std::to_string(5600 + 2 * i);
    device.model = "Pixel " + std::to_string(6 + i % 3);
    device.manufacturer = "Google";
    device.sdk = 30 + i % 5;
    device.release = std::to_string(11 + i % 5);
    device.abi = "arm64-v8a";
    device.fingerprint = "google/bench/bench:14/UP1A.231005.007/" + std::to_string(10'000'000 + i) +
                         ":user/release-keys";
    device.state = "device";
    device.first_seen = kNow - 86'400'000;
    device.last_seen = kNow;
    store::DeviceStateChange change;
    change.serial = device.serial;
    change.state = "device";
    change.changed_at = kNow;
    if (!st.UpsertDevice(device).ok() || !st.RecordDeviceState(change).ok()) {
      std::fprintf(stderr, "api_http_bench: seeding devices failed\n");
      return 1;
    }
  }
  store::NewRun new_run;
  new_run.spec_json = R"({"serial":"emulator-5600","package":"com.bench.app","mode":"cold","iterations":100})";
  new_run.serial = "emulator-5600";
  new_run.device_model = "Pixel 6";
  new_run.package = "com.bench.app";
  new_run.activity = ".MainActivity";
  new_run.mode = "cold";
  new_run.iterations = kLaunches;
  new_run.created_at = kNow - 600'000;
  auto run_id = st.CreateRun(new_run);
  if (!run_id.ok()) {
    std::fprintf(stderr, "api_http_bench: CreateRun: %s\n", run_id.error().message.c_str());
    return 1;
  }
  std::vector<store::Launch> launches(kLaunches);
  for (int i = 0; i < kLaunches; ++i) {
    auto& l = launches[static_cast<size_t>(i)];
    l.run_id = *run_id;
    l.iteration = i;
    l.displayed_ms = 400 + (i * 37) % 300;
    l.fully_drawn_ms = *l.displayed_ms + 120;
    l.total_time_ms = *l.displayed_ms + 7;
    l.wait_time_ms = *l.displayed_ms + 12;
    l.launch_state = "COLD";
    l.pid = 20'000 + i;
    l.intent_at_ms = 1'000'000 + i * 5'000;
    l.fork_at_ms = *l.intent_at_ms + 45;
    l.displayed_at_ms = *l.intent_at_ms + *l.displayed_ms;
  }
  store::RunStatusUpdate running;
  running.run_id = *run_id;
  running.status = store::RunStatus::kRunning;
  running.started_at = kNow - 590'000;
  store::RunStatusUpdate succeeded;
  succeeded.run_id = *run_id;
  succeeded.status = store::RunStatus::kSucceeded;
  succeeded.finished_at = kNow - 60'000;
  if (!st.UpdateRunStatus(running).ok() || !st.AddLaunches(std::move(launches)).ok() ||
      !st.UpdateRunStatus(succeeded).ok() || !st.Flush().ok()) {
    std::fprintf(stderr, "api_http_bench: seeding the run failed\n");
    return 1;
  }

  // Ours: the server on its own io_context thread.
  asio::io_context io;
  droidlab::api::Services services;
  services.store = &st;
  services.version = "bench";
  droidlab::api::ServerOptions server_options;
  server_options.port = 0;
  auto server = std::make_unique<droidlab::api::Server>(io.get_executor(), services, server_options);
  auto listened = server->Listen();
  if (!listened) {
    std::fprintf(stderr, "api_http_bench: %s\n", listened.error().c_str());
    return 1;
  }
  const int our_port = *listened;
  asio::cancellation_signal stop_server;
  std::atomic<bool> server_ended{false};
  asio::co_spawn(io, server->Run(),
                 asio::bind_cancellation_slot(stop_server.slot(), [&](std::exception_ptr e) {
                   if (e) std::fprintf(stderr, "api_http_bench: the server ended with an exception\n");
                   server_ended = true;
                 }));
  std::thread io_thread([&] { io.run(); });
  struct StopServer {
    asio::io_context& io;
    asio::cancellation_signal& stop;
    std::atomic<bool>& ended;
    std::thread& thread;
    ~StopServer() {
      asio::post(io, [this] { stop.emit(asio::cancellation_type::terminal); });
      const auto deadline = Clock::now() + std::chrono::seconds(10);
      while (!ended && Clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      io.stop();
      thread.join();
    }
  } stop_guard{io, stop_server, server_ended, io_thread};

  const std::vector<std::string> paths = {"/api/v1/devices",
                                          "/api/v1/runs/" + std::to_string(*run_id) + "/launches"};
  std::vector<std::pair<std::string, fs::path>> files;
  std::vector<size_t> sizes;
  for (size_t i = 0; i < paths.size(); ++i) {
    std::string why;
    auto body = HttpGet(our_port, paths[i], &why);
    if (!body) {
      std::fprintf(stderr, "api_http_bench: ours: %s\n", why.c_str());
      return 1;
    }
    const fs::path file = dir / ("body" + std::to_string(i) + ".json");
    std::ofstream(file, std::ios::binary) << *body;
    files.emplace_back(paths[i], file);
    sizes.push_back(body->size());
  }

  const int nginx_port = droidlab::bench::FreeLoopbackPort();
  if (nginx_port < 0) {
    std::fprintf(stderr, "api_http_bench: no free loopback port for nginx\n");
    return 1;
  }
  std::string why;
  auto nginx = Nginx::Start(nginx_binary, dir, nginx_port, files, &why);
  if (!nginx) {
    std::fprintf(stderr, "api_http_bench: %s\n", why.c_str());
    return 1;
  }
  for (size_t i = 0; i < paths.size(); ++i) {  // the same bytes from both
    auto body = HttpGet(nginx_port, paths[i], &why);
    if (!body || body->size() != sizes[i]) {
      std::fprintf(stderr, "api_http_bench: nginx does not serve %s as ours does: %s\n",
                   paths[i].c_str(), why.c_str());
      return 1;
    }
  }

  std::printf("api_http_bench: wrk -t%s -c%s -d%s --latency, %d round%s each, interleaved; "
              "ours: one io thread; nginx %s: one process (p99: the worst round)\n",
              load.threads.c_str(), load.connections.c_str(), load.duration.c_str(), rounds,
              rounds == 1 ? "" : "s", nginx_binary.c_str());
  const std::string ours_base = "http://127.0.0.1:" + std::to_string(our_port);
  const std::string nginx_base = "http://127.0.0.1:" + std::to_string(nginx_port);
  bool trouble = false;
  std::vector<Tally> ours_idle(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    Tally theirs;
    for (int round = 1; round <= rounds; ++round) {
      double cpu = 0;
      auto r = RunWrk(load, ours_base + paths[i], -1, &cpu, &why);
      if (!r) {
        std::fprintf(stderr, "api_http_bench: %s\n", why.c_str());
        return 1;
      }
      trouble |= r->non_2xx;
      PrintRound("ours", paths[i], round, *r, cpu);
      ours_idle[i].Add(*r, cpu);
      r = RunWrk(load, nginx_base + paths[i], nginx->pid(), &cpu, &why);
      if (!r) {
        std::fprintf(stderr, "api_http_bench: %s\n", why.c_str());
        return 1;
      }
      trouble |= r->non_2xx;
      PrintRound("nginx", paths[i], round, *r, cpu);
      theirs.Add(*r, cpu);
    }
    std::printf("%-28s (%zu B)  ours %9.0f req/s p99 %6.3f ms %5.1f us/req | nginx %9.0f req/s "
                "p99 %6.3f ms %5.1f us/req | ratio %.2f (goal >= 0.7, p99 < 10 ms)\n",
                paths[i].c_str(), sizes[i], ours_idle[i].rps(), ours_idle[i].p99_max,
                ours_idle[i].cpu(), theirs.rps(), theirs.p99_max, theirs.cpu(),
                theirs.rps() > 0 ? ours_idle[i].rps() / theirs.rps() : 0.0);
  }

  // Ours again while the writer ingests looper-stats rows as fast as it takes them.
  nginx.reset();
  std::atomic<bool> stop_ingest{false};
  std::atomic<int64_t> ingested{0};
  std::atomic<bool> ingest_failed{false};
  const int64_t ingest_run = *run_id;
  std::thread ingest([&] {
    while (!stop_ingest) {
      std::vector<store::LooperStatsRow> rows(1000);
      for (auto& row : rows) {
        row.run_id = ingest_run;
        row.work_source_uid = "com.bench.app/u0a201";
        row.package = "com.bench.app";
        row.thread_name = "android.ui";
        row.handler_class = "android.view.Choreographer$FrameHandler";
        row.message_name = "android.view.Choreographer$FrameDisplayEventReceiver";
        row.message_count = 10;
        row.total_latency_micros = 1234;
      }
      if (!st.AddLooperStats(std::move(rows)).ok()) {
        ingest_failed = true;
        return;
      }
      ingested += 1000;
    }
  });
  const auto ingest_began = Clock::now();
  std::vector<Tally> ours_loaded(paths.size());
  for (int round = 1; round <= rounds && !ingest_failed; ++round) {
    for (size_t i = 0; i < paths.size(); ++i) {
      double cpu = 0;
      auto r = RunWrk(load, ours_base + paths[i], -1, &cpu, &why);
      if (!r) {
        stop_ingest = true;
        ingest.join();
        std::fprintf(stderr, "api_http_bench: %s\n", why.c_str());
        return 1;
      }
      trouble |= r->non_2xx;
      PrintRound("ours*", paths[i], round, *r, cpu);
      ours_loaded[i].Add(*r, cpu);
    }
  }
  stop_ingest = true;
  ingest.join();
  const double ingest_s = std::chrono::duration<double>(Clock::now() - ingest_began).count();
  const auto stats = st.stats();
  if (ingest_failed || !st.Flush().ok()) {
    std::fprintf(stderr, "api_http_bench: the writer refused looper rows\n");
    return 1;
  }
  std::printf("under ingest (* above; the writer took %.0f looper rows/s, %llu records lost; CPU "
              "per request includes the ingest thread and the writer):\n",
              static_cast<double>(ingested.load()) / ingest_s,
              static_cast<unsigned long long>(stats.records_lost));
  for (size_t i = 0; i < paths.size(); ++i) {
    std::printf("%-28s ours under ingest %9.0f req/s p99 %6.3f ms | idle %9.0f req/s | ratio %.2f "
                "(goal >= 0.8)\n",
                paths[i].c_str(), ours_loaded[i].rps(), ours_loaded[i].p99_max, ours_idle[i].rps(),
                ours_idle[i].rps() > 0 ? ours_loaded[i].rps() / ours_idle[i].rps() : 0.0);
  }
  if (trouble) {
    std::printf("api_http_bench: some runs had non-2xx answers (marked !!)\n");
    return 1;
  }
  return 0;
}
