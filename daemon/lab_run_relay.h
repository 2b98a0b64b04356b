// LabRunRelay: on a PostgreSQL database several daemons share (issue 17 §2), what other hosts do
// to runs reaches this daemon's event stream (the dashboards' live view, `droidlab watch`) and
// its GET /runs/{id}: their status changes (the store's NOTIFY at each commit) and their
// progress, iteration by iteration, which this host's run queue tells the lab for its own runs
// (store::pg::RunChangeListener::Tell). This host's own runs reach its listeners through its
// queue as before; what it hears of them from the database is left out.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace boost::asio {
class io_context;
}

namespace droidlab::orchestrator {
class RunQueue;
}

namespace droidlab {

class LabRunRelay {
 public:
  // Listens on `url` at once; what it hears is announced to `queue` on `io`'s thread.
  LabRunRelay(std::string url, std::string host_name, boost::asio::io_context& io,
              orchestrator::RunQueue& queue, std::function<void(std::string_view)> log);
  ~LabRunRelay();  // stops telling and listening
  LabRunRelay(const LabRunRelay&) = delete;
  LabRunRelay& operator=(const LabRunRelay&) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace droidlab
