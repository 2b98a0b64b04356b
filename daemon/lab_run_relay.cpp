#include "daemon/lab_run_relay.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <cstdint>
#include <utility>

#include "orchestrator/lab/run_queue.h"
#include "store/pg/run_changes.h"

namespace droidlab {

namespace asio = boost::asio;

struct LabRunRelay::Impl {
  orchestrator::RunQueue& queue;
  std::unique_ptr<store::pg::RunChangeListener> listener;
  uint64_t subscription = 0;

  explicit Impl(orchestrator::RunQueue& q) : queue(q) {}
};

LabRunRelay::LabRunRelay(std::string url, std::string host_name, asio::io_context& io,
                         orchestrator::RunQueue& queue,
                         std::function<void(std::string_view)> log)
    : impl_(std::make_unique<Impl>(queue)) {
  auto on_change = [&io, &queue, host_name](const store::pg::RunChange& change) {
    if (change.host.empty() || change.host == host_name) return;
    auto status = store::RunStatusFromName(change.status);
    if (!status) return;
    orchestrator::RunEvent event;
    event.run_id = change.run_id;
    event.serial = change.serial;
    event.status = *status;
    asio::post(io, [&queue, event] { queue.Announce(event); });
  };
  auto on_progress = [&io, &queue, host_name](const store::pg::RunProgressChange& told) {
    if (told.host == host_name) return;
    orchestrator::RunEvent event;
    event.run_id = told.run_id;
    event.serial = told.serial;
    event.status = told.running ? store::RunStatus::kRunning : store::RunStatus::kQueued;
    event.progress = orchestrator::RunProgress{told.run_id,    told.phase,
                                               told.iterations_done, told.iterations,
                                               told.valid_launches, told.running};
    asio::post(io, [&queue, event] { queue.Announce(event); });
  };
  impl_->listener = std::make_unique<store::pg::RunChangeListener>(
      std::move(url), std::move(on_change), std::move(log), std::move(on_progress));
  // This host's own runs' progress, told to the lab (the queue's listeners run on its executor;
  // Tell does not block).
  store::pg::RunChangeListener* listener = impl_->listener.get();
  impl_->subscription =
      queue.Subscribe([listener, host_name](const orchestrator::RunEvent& event) {
        if (event.remote || !event.progress) return;
        const orchestrator::RunProgress& p = *event.progress;
        listener->Tell(store::pg::RunProgressChange{event.run_id, host_name, event.serial,
                                                    p.phase, p.iterations_done, p.iterations,
                                                    p.valid_launches, p.running});
      });
}

LabRunRelay::~LabRunRelay() {
  impl_->queue.Unsubscribe(impl_->subscription);
  impl_->listener.reset();
}

}  // namespace droidlab
