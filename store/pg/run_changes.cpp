#include "store/pg/run_changes.h"

#include <libpq-fe.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "base/parse_int.h"
#include "store/pg/connection.h"

namespace droidlab::store::pg {

namespace {

constexpr char kRunsChannel[] = "droidlab_runs";
constexpr char kProgressChannel[] = "droidlab_progress";

std::vector<std::string_view> SplitTabs(std::string_view payload) {
  std::vector<std::string_view> fields;
  for (size_t start = 0;;) {
    const size_t tab = payload.find('\t', start);
    fields.push_back(payload.substr(start, tab == std::string_view::npos ? tab : tab - start));
    if (tab == std::string_view::npos) break;
    start = tab + 1;
  }
  return fields;
}

bool ReadInt(std::string_view field, int64_t& value) {
  const std::optional<int64_t> parsed = ParseInt<int64_t>(field);
  if (parsed) value = *parsed;
  return parsed.has_value();
}

}  // namespace

std::optional<RunChange> ParseRunChange(std::string_view payload) {
  const std::vector<std::string_view> fields = SplitTabs(payload);
  if (fields.size() != 4) return std::nullopt;
  RunChange change;
  if (!ReadInt(fields[0], change.run_id) || fields[1].empty()) return std::nullopt;
  change.status = fields[1];
  change.host = fields[2];
  change.serial = fields[3];
  return change;
}

std::string FormatRunProgress(const RunProgressChange& p) {
  std::string text = std::to_string(p.run_id);
  for (const std::string* field : {&p.host, &p.serial, &p.phase}) {
    text += '\t';
    text += *field;
  }
  for (int64_t n : {p.iterations_done, p.iterations, p.valid_launches}) {
    text += '\t';
    text += std::to_string(n);
  }
  text += p.running ? "\t1" : "\t0";
  return text;
}

std::optional<RunProgressChange> ParseRunProgress(std::string_view payload) {
  const std::vector<std::string_view> fields = SplitTabs(payload);
  if (fields.size() != 8) return std::nullopt;
  RunProgressChange p;
  if (!ReadInt(fields[0], p.run_id) || fields[1].empty() || fields[3].empty() ||
      !ReadInt(fields[4], p.iterations_done) || !ReadInt(fields[5], p.iterations) ||
      !ReadInt(fields[6], p.valid_launches) || (fields[7] != "0" && fields[7] != "1")) {
    return std::nullopt;
  }
  p.host = fields[1];
  p.serial = fields[2];
  p.phase = fields[3];
  p.running = fields[7] == "1";
  return p;
}

struct RunChangeListener::Impl {
  std::string url;
  std::function<void(const RunChange&)> on_change;
  std::function<void(std::string_view)> log;
  std::function<void(const RunProgressChange&)> on_progress;
  std::atomic<bool> stop{false};
  std::atomic<bool> listening{false};
  std::thread thread;
  int wake = -1;  // an eventfd: Tell and the destructor wake the thread's poll

  std::mutex mutex;
  std::map<int64_t, RunProgressChange> outbox;  // per run, the newest told

  void Wake() {
    const uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(wake, &one, sizeof(one));
  }

  // Sends what was told (autocommit: heard at once); a failure drops it — progress is not kept.
  void SendTold(Connection& connection) {
    std::map<int64_t, RunProgressChange> told;
    {
      std::lock_guard lock(mutex);
      told.swap(outbox);
    }
    for (const auto& [run_id, progress] : told) {
      Params params;
      params.Text(FormatRunProgress(progress));
      auto sent = connection.Query("SELECT pg_notify('droidlab_progress', $1)", params,
                                   "telling the lab a run's progress");
      if (!sent) {
        log(sent.error().message);
        return;
      }
    }
  }

  // Sleeps `total` in short steps, so that a stop is heard.
  void Pause(std::chrono::milliseconds total) {
    for (auto left = total; left.count() > 0 && !stop; left -= std::chrono::milliseconds(100)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  void Loop() {
    Connection connection;
    bool said_away = false;
    while (!stop) {
      if (!listening) {
        auto opened = Connection::Open(url);
        if (opened) {
          connection = std::move(opened).value();
          auto listen =
              connection.Execute(on_progress ? "LISTEN droidlab_runs; LISTEN droidlab_progress"
                                             : "LISTEN droidlab_runs",
                                 "listening for run changes");
          if (listen) {
            listening = true;
            if (said_away) log("listening for other hosts' run changes again");
            said_away = false;
            continue;
          }
          if (!said_away) log(listen.error().message);
        } else if (!said_away) {
          log("cannot listen for other hosts' run changes: " + opened.error().message);
        }
        said_away = true;
        Pause(std::chrono::seconds(1));
        continue;
      }
      SendTold(connection);
      pollfd fds[2] = {{PQsocket(connection.handle()), POLLIN, 0}, {wake, POLLIN, 0}};
      // A bounded wait: the stop flag is looked at five times a second.
      if (::poll(fds, 2, 200) < 0) continue;
      if (fds[1].revents & POLLIN) {
        uint64_t count = 0;
        [[maybe_unused]] auto n = ::read(wake, &count, sizeof(count));
      }
      if (PQconsumeInput(connection.handle()) == 0) {
        log(std::string("the run changes' connection broke: ") +
            PQerrorMessage(connection.handle()));
        listening = false;
        said_away = true;
        connection = Connection();
        continue;
      }
      while (PGnotify* notify = PQnotifies(connection.handle())) {
        if (std::strcmp(notify->relname, kProgressChannel) == 0) {
          auto progress = ParseRunProgress(notify->extra);
          PQfreemem(notify);
          if (progress && on_progress) on_progress(*progress);
          continue;
        }
        auto change = std::strcmp(notify->relname, kRunsChannel) == 0
                          ? ParseRunChange(notify->extra)
                          : std::nullopt;
        PQfreemem(notify);
        if (change) on_change(*change);
      }
    }
    listening = false;
  }
};

RunChangeListener::RunChangeListener(std::string url,
                                     std::function<void(const RunChange&)> on_change,
                                     std::function<void(std::string_view)> log,
                                     std::function<void(const RunProgressChange&)> on_progress)
    : impl_(std::make_unique<Impl>()) {
  impl_->url = std::move(url);
  impl_->on_change = std::move(on_change);
  impl_->log = std::move(log);
  impl_->on_progress = std::move(on_progress);
  impl_->wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  impl_->thread = std::thread([impl = impl_.get()] { impl->Loop(); });
}

RunChangeListener::~RunChangeListener() {
  impl_->stop = true;
  if (impl_->wake >= 0) impl_->Wake();
  if (impl_->thread.joinable()) impl_->thread.join();
  if (impl_->wake >= 0) ::close(impl_->wake);
}

bool RunChangeListener::listening() const { return impl_->listening; }

void RunChangeListener::Tell(RunProgressChange progress) {
  if (!impl_->listening) return;  // the server is away: dropped (progress is not kept)
  {
    std::lock_guard lock(impl_->mutex);
    const int64_t run_id = progress.run_id;
    impl_->outbox[run_id] = std::move(progress);
  }
  if (impl_->wake >= 0) impl_->Wake();
}

}  // namespace droidlab::store::pg
