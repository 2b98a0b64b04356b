// RunChangeListener: the changes of runs on a PostgreSQL database that several daemons share
// (issue 17 §2: events across hosts), as each daemon commits them. Schema 0018's trigger
// NOTIFYs channel `droidlab_runs` at the commit of each new run, each change of a run's status
// and each claim; this LISTENs on a connection of its own, on a thread of its own, and hands
// each change to `on_change` on that thread. A broken connection is made again (every second
// while the server is away); what changed meanwhile is not replayed — a listener that must not
// miss an end reads the run again (the CLI's follower does).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace droidlab::store::pg {

struct RunChange {
  int64_t run_id = 0;
  std::string status;  // RunStatusName's
  std::string host;    // who claimed it; "" while unclaimed
  std::string serial;  // "" for a pool run not yet claimed
};

// "id\tstatus\thost\tserial" → the change; nothing for anything else.
std::optional<RunChange> ParseRunChange(std::string_view payload);

class RunChangeListener {
 public:
  // Starts listening on `url` at once (the first connection is made on the listener's thread).
  RunChangeListener(std::string url, std::function<void(const RunChange&)> on_change,
                    std::function<void(std::string_view)> log);
  ~RunChangeListener();  // stops and joins the thread (within about 200 ms)
  RunChangeListener(const RunChangeListener&) = delete;
  RunChangeListener& operator=(const RunChangeListener&) = delete;

  // Whether the listener is connected and listening now (tests wait for it).
  bool listening() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace droidlab::store::pg
