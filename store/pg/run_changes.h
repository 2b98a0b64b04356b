// RunChangeListener: the changes of runs on a PostgreSQL database that several daemons share
// (issue 17 §2: events across hosts), as each daemon commits them. Schema 0018's trigger
// NOTIFYs channel `droidlab_runs` at the commit of each new run, each change of a run's status
// and each claim; this LISTENs on a connection of its own, on a thread of its own, and hands
// each change to `on_change` on that thread. A broken connection is made again (every second
// while the server is away); what changed meanwhile is not replayed — a listener that must not
// miss an end reads the run again (the CLI's follower does).
//
// The progress of a run (iteration N of M) is no change of a row: the host measuring the run
// tells it (Tell) on channel `droidlab_progress`, and every listener hears it (`on_progress`) —
// the lab's dashboards see a run on another host move as its own host's dashboard does. It is
// not stored: a progress told while the connection is away is dropped, and the next one
// replaces it; of several told for one run before the thread sends them, the newest is sent.
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

// A running run's progress, as its host tells the lab.
struct RunProgressChange {
  int64_t run_id = 0;
  std::string host;  // the host measuring it
  std::string serial;
  std::string phase;  // the run executor's: "preflight", "launching", …
  int64_t iterations_done = 0;
  int64_t iterations = 0;
  int64_t valid_launches = 0;
  bool running = false;  // its `running` status is committed
};

// "id\thost\tserial\tphase\tdone\titerations\tvalid\trunning(0|1)" and back; nothing for
// anything else.
std::string FormatRunProgress(const RunProgressChange& progress);
std::optional<RunProgressChange> ParseRunProgress(std::string_view payload);

class RunChangeListener {
 public:
  // Starts listening on `url` at once (the first connection is made on the listener's thread).
  // `on_progress` may be empty: progress is then not listened for.
  RunChangeListener(std::string url, std::function<void(const RunChange&)> on_change,
                    std::function<void(std::string_view)> log,
                    std::function<void(const RunProgressChange&)> on_progress = {});
  ~RunChangeListener();  // stops and joins the thread (within about 200 ms)
  RunChangeListener(const RunChangeListener&) = delete;
  RunChangeListener& operator=(const RunChangeListener&) = delete;

  // Whether the listener is connected and listening now (tests wait for it).
  bool listening() const;

  // Tells the lab a run's progress (above). Never blocks: the listener's thread sends it.
  void Tell(RunProgressChange progress);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace droidlab::store::pg
