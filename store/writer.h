// Writer: the store's one writing connection (a WriteSession of either backend), on its own
// thread, fed by a bounded queue.
// Internal to store/ (Store wraps it); tests use it through Store.
//
// Each task runs on the writer thread inside the open batch transaction, in a savepoint of its
// own: a task that breaks a constraint is undone alone and fails alone. The batch commits when
// it holds `batch_max_records` records, when `batch_max_delay` has passed since it began, when
// the queue runs dry after that delay, or right after a durable task (committed with
// synchronous=FULL, or PostgreSQL's synchronous_commit, before the task's completion runs). A
// batch is begun durable when its first task is (SQLite chooses the level before BEGIN); a
// durable task that finds an ordinary batch open commits that batch first and gets one of its
// own. A durability that cannot be set fails the task, never lets it pass unsynced. A full disk
// or an I/O error while a batch is open rolls the whole batch back: every task in it completes
// with that error (the batch is reported lost, never half-kept) and the writer goes on with the
// next one.
//
// A lost connection (kUnavailable, on a session that can reconnect: PostgreSQL) loses nothing:
// the server rolled the batch back, so the writer logs the loss, reconnects with back-off
// (reconnect_first_delay doubling up to reconnect_max_delay, for as long as the store is open)
// and applies the batch's tasks again, in order, in a new transaction — each task's `apply` is
// kept until its batch commits, and may run more than once. A COMMIT whose answer was lost is
// looked up first (WriteSession::LostCommitTookEffect), so a batch is never applied twice.
// Completions run once, after the commit. Meanwhile the queue fills and producers are held back
// as ever. Once Stop() has begun, a failed reconnection gives up: the batch is reported lost
// with the error, so a store closing while the server is away still ends.
//
// Back-pressure: the queue holds at most `queue_capacity_records` records. Push blocks while it
// is full; PushAsync parks the task and calls on_accepted (from the writer thread) once there is
// room, so an awaiting producer is suspended rather than a thread blocked.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "store/error.h"
#include "store/write_session.h"
#include "store/unique_function.h"

namespace droidlab::store {

struct WriterOptions {
  size_t queue_capacity_records = 50'000;
  size_t batch_max_records = 1'000;
  // The most records queued writes may be joined into (JoinableRows): one statement of up to
  // this many rows when the writer is behind. Half the queue: one joined write is applied while
  // the next one fills.
  size_t join_max_records = 25'000;
  std::chrono::milliseconds batch_max_delay{50};
  // Test-only: called on the writer thread inside the batch's transaction right before its
  // COMMIT, with whether a durable task is in it (tests read the synchronous level in force).
  std::function<void(WriteSession&, bool durable)> before_commit;
  // Between attempts to reconnect after a lost connection: the first wait, doubled each time up
  // to the last.
  std::chrono::milliseconds reconnect_first_delay{100};
  std::chrono::milliseconds reconnect_max_delay{5000};
};

struct WriterStats {
  uint64_t batches_committed = 0;
  uint64_t records_committed = 0;
  uint64_t batches_lost = 0;   // rolled back by a full disk, I/O errors, a lost connection
  uint64_t records_lost = 0;
  uint64_t tasks_failed = 0;   // tasks that failed alone (constraint), batch kept
  uint64_t writes_joined = 0;  // writes joined into a queued one's statement (JoinableRows)
  uint64_t connection_losses = 0;  // the connection broke under the writer (batch kept)
  uint64_t reconnects = 0;         // new connections made after those losses
};

// A write's rows that the writer may join with those of the write pushed right after it while
// both wait in the queue: one statement (one COPY) for many small writes, when the writer is
// behind and only then (a writer that keeps up takes each write alone, as soon as it comes).
// The task's apply and on_done hold the same object and write or tell whatever it holds when the
// writer takes it; the writer never joins into a task it has taken.
class JoinableRows {
 public:
  virtual ~JoinableRows() = default;
  // Takes `newer`'s rows and completion into this one if they are of the same kind (true), which
  // leaves `newer` with nothing to write. Called under the writer's queue lock.
  virtual bool Join(JoinableRows& newer) = 0;
};

// Whether a write that failed with `code` took its whole batch with it (a full disk, an I/O
// error, a lost connection: every task of the batch is told the error) rather than failing
// alone in its savepoint (a broken key, a value the database refuses).
bool LosesTheBatch(StoreErrorCode code);

struct WriteTask {
  size_t records = 1;    // for the queue bound and the batch size
  bool durable = false;  // commit (synchronous=FULL) right after this task
  // Set: this task's rows may be joined with the next queued task's (JoinableRows).
  std::shared_ptr<JoinableRows> joinable;
  // Runs on the writer thread inside the batch's transaction; again, on a new connection, when
  // the first one broke before the batch committed (its writes were rolled back with it).
  UniqueFunction<Status(WriteSession&)> apply;
  // Runs on the writer thread once the batch committed, or with the error that lost it.
  UniqueFunction<void(const Status&)> on_done;
};

class Writer {
 public:
  Writer(std::unique_ptr<WriteSession> session, WriterOptions options);
  ~Writer();  // Stop()
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Blocks while the queue is full. kShuttingDown once Stop() has begun.
  Status Push(WriteTask task);
  // Never blocks. on_accepted runs on this thread if there is room now, else on the writer
  // thread when there is; with kShuttingDown if the store is closing (task not taken).
  void PushAsync(WriteTask task, UniqueFunction<void(const Status&)> on_accepted);
  // Enqueues past the bound: for the writer's own follow-up tasks (retention steps).
  void PushUnbounded(WriteTask task);

  // Finishes every queued task, commits, and joins the thread. Idempotent.
  void Stop();

  WriterStats stats() const;
  size_t queued_records() const;

 private:
  struct Parked {
    WriteTask task;
    UniqueFunction<void(const Status&)> on_accepted;
  };
  struct Applied {
    // Kept until the batch commits: a batch lost with its connection is applied again.
    UniqueFunction<Status(WriteSession&)> apply;
    UniqueFunction<void(const Status&)> on_done;
    Status status;  // the task's own outcome (a failed task in a committed batch keeps its error)
    size_t records;
  };
  // How a batch lost with its connection ended: open again with every task applied on a new
  // connection, committed after all (its COMMIT had landed), or reported lost.
  enum class Recovery { kReplayed, kCommitted, kLost };

  void Run();
  // Joins `task` into the newest queued task when both are joinable and the two together stay
  // within join_max_records; true: `task` is now part of it. Under mu_.
  bool JoinedLocked(WriteTask& task);
  Status BeginBatch(bool durable);
  void ApplyTask(WriteTask& task);
  // The task in a savepoint of its own; a failure that does not end the batch undoes it alone.
  Status ApplyInSavepoint(UniqueFunction<Status(WriteSession&)>& apply, bool replay);
  // Whether `status` ends the open batch (it cannot commit any of it).
  bool EndsTheBatch(const Status& status);
  // Whether a batch ended by `error` can be kept: a lost connection that can be made again.
  bool CanRecover(const StoreError& error) const;
  // Reconnects and applies the batch again (or, its COMMIT lost, finds it committed); `error`
  // is the loss, and when the batch is lost after all, what lost it.
  Recovery Recover(StoreError& error, bool lost_at_commit);
  Status ReconnectWithBackoff();
  Status ReplayBatch();
  void CommitBatch();
  void FailBatch(const StoreError& error);

  std::unique_ptr<WriteSession> session_;
  const WriterOptions options_;

  mutable std::mutex mu_;
  std::condition_variable not_empty_;
  std::condition_variable not_full_;
  std::deque<WriteTask> queue_;
  std::deque<Parked> parked_;
  size_t queued_records_ = 0;
  bool stopping_ = false;
  WriterStats stats_;

  // Writer thread only.
  std::vector<Applied> batch_;
  size_t batch_records_ = 0;
  bool batch_open_ = false;
  bool batch_durable_ = false;            // a durable task is in the open batch
  bool batch_full_ = false;               // the open batch was begun durable
  bool gave_up_reconnecting_ = false;     // Stop() had begun and the server was away
  std::chrono::steady_clock::time_point batch_started_;

  std::thread thread_;
};

}  // namespace droidlab::store
