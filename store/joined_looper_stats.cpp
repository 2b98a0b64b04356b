#include "store/joined_looper_stats.h"

#include <cstddef>
#include <iterator>
#include <utility>

#include "store/write_session.h"

namespace droidlab::store {

JoinedLooperStats::JoinedLooperStats(std::vector<LooperStatsRow> rows, Completion committed)
    : rows_(std::move(rows)) {
  calls_.push_back(Call{rows_.size(), std::move(committed)});
}

WriteTask JoinedLooperStats::Task(std::vector<LooperStatsRow> rows, Completion committed,
                                  Writer& writer) {
  auto joined = std::make_shared<JoinedLooperStats>(std::move(rows), std::move(committed));
  WriteTask task;
  task.records = joined->rows_.size();
  task.joinable = joined;
  // The writer joins only into tasks it has not taken, under its queue's lock: once apply runs,
  // rows_ no longer changes (and apply may run again, on a new connection, over the same rows).
  task.apply = [joined](WriteSession& session) { return joined->Write(session); };
  task.on_done = [joined, &writer](const Status& status) { joined->Finish(status, writer); };
  return task;
}

bool JoinedLooperStats::Join(JoinableRows& newer) {
  auto* other = dynamic_cast<JoinedLooperStats*>(&newer);
  if (other == nullptr) return false;
  later_.push_back(std::move(other->rows_));
  other->rows_.clear();
  for (auto& rows : other->later_) later_.push_back(std::move(rows));
  other->later_.clear();
  for (Call& call : other->calls_) calls_.push_back(std::move(call));
  other->calls_.clear();
  return true;
}

Status JoinedLooperStats::Write(WriteSession& session) {
  Gather();
  return session.InsertLooperStats(rows_);
}

void JoinedLooperStats::Gather() {
  // Once: a write applied again (its connection lost) finds the rows already together.
  if (!later_.empty()) {
    size_t total = rows_.size();
    for (const auto& rows : later_) total += rows.size();
    rows_.reserve(total);
    for (auto& rows : later_) {
      rows_.insert(rows_.end(), std::make_move_iterator(rows.begin()),
                   std::make_move_iterator(rows.end()));
    }
    later_.clear();
  }
}

void JoinedLooperStats::Finish(const Status& status, Writer& writer) {
  if (status || calls_.size() == 1 || LosesTheBatch(status.error().code)) {
    for (Call& call : calls_) {
      if (call.committed) call.committed(status);
    }
    return;
  }
  // Refused rows among several calls': each call's rows again, alone (PushUnbounded: these were
  // already counted against the queue's bound once, and the writer thread must not block).
  Gather();  // the task may have failed before its rows were written (its savepoint refused)
  auto next = rows_.begin();
  for (Call& call : calls_) {
    std::vector<LooperStatsRow> own(
        std::make_move_iterator(next),
        std::make_move_iterator(next + static_cast<std::ptrdiff_t>(call.rows)));
    next += static_cast<std::ptrdiff_t>(call.rows);
    WriteTask task = Task(std::move(own), std::move(call.committed), writer);
    task.joinable.reset();  // alone, never joined again
    writer.PushUnbounded(std::move(task));
  }
}

}  // namespace droidlab::store
