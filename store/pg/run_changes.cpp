#include "store/pg/run_changes.h"

#include <libpq-fe.h>
#include <poll.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include "store/pg/connection.h"

namespace droidlab::store::pg {

std::optional<RunChange> ParseRunChange(std::string_view payload) {
  std::vector<std::string_view> fields;
  for (size_t start = 0;;) {
    const size_t tab = payload.find('\t', start);
    fields.push_back(payload.substr(start, tab == std::string_view::npos ? tab : tab - start));
    if (tab == std::string_view::npos) break;
    start = tab + 1;
  }
  if (fields.size() != 4) return std::nullopt;
  RunChange change;
  const auto [end, ec] =
      std::from_chars(fields[0].data(), fields[0].data() + fields[0].size(), change.run_id);
  if (ec != std::errc() || end != fields[0].data() + fields[0].size() || fields[1].empty()) {
    return std::nullopt;
  }
  change.status = fields[1];
  change.host = fields[2];
  change.serial = fields[3];
  return change;
}

struct RunChangeListener::Impl {
  std::string url;
  std::function<void(const RunChange&)> on_change;
  std::function<void(std::string_view)> log;
  std::atomic<bool> stop{false};
  std::atomic<bool> listening{false};
  std::thread thread;

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
          auto listen = connection.Execute("LISTEN droidlab_runs", "listening for run changes");
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
      pollfd fd{PQsocket(connection.handle()), POLLIN, 0};
      // A bounded wait: the stop flag is looked at five times a second.
      if (::poll(&fd, 1, 200) < 0) continue;
      if (PQconsumeInput(connection.handle()) == 0) {
        log(std::string("the run changes' connection broke: ") +
            PQerrorMessage(connection.handle()));
        listening = false;
        said_away = true;
        connection = Connection();
        continue;
      }
      while (PGnotify* notify = PQnotifies(connection.handle())) {
        auto change = ParseRunChange(notify->extra);
        PQfreemem(notify);
        if (change) on_change(*change);
      }
    }
    listening = false;
  }
};

RunChangeListener::RunChangeListener(std::string url,
                                     std::function<void(const RunChange&)> on_change,
                                     std::function<void(std::string_view)> log)
    : impl_(std::make_unique<Impl>()) {
  impl_->url = std::move(url);
  impl_->on_change = std::move(on_change);
  impl_->log = std::move(log);
  impl_->thread = std::thread([impl = impl_.get()] { impl->Loop(); });
}

RunChangeListener::~RunChangeListener() {
  impl_->stop = true;
  if (impl_->thread.joinable()) impl_->thread.join();
}

bool RunChangeListener::listening() const { return impl_->listening; }

}  // namespace droidlab::store::pg
