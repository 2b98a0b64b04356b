// Looper-stats writes joined while they wait in the writer's queue (writer.h's JoinableRows):
// the rows of several AddLooperStats calls written by one InsertLooperStats — one COPY on
// PostgreSQL — when the writer is behind. A lab's phones each hand in a dump of ~1,500 rows per
// run; written one statement a dump, PostgreSQL spends more on the statements and transactions
// than on the rows (bench/README.md, issue 17 §1's ingest figure). Internal to store/.
//
// Each call keeps its own completion. A joined write that failed alone (a row the database
// refused: PostgreSQL takes only UTF-8 text, and a phone's handler names are whatever it
// printed) is not reported as it stands: each call's rows are written again on their own, so
// that only the call whose rows were refused fails, as it would have unjoined.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "store/records.h"
#include "store/store.h"
#include "store/writer.h"

namespace droidlab::store {

class JoinedLooperStats final : public JoinableRows {
 public:
  JoinedLooperStats(std::vector<LooperStatsRow> rows, Completion committed);

  // The writer's task for `rows` of one call: joinable, written by one InsertLooperStats; a
  // failed joined write is split and pushed again to `writer`, which outlives its tasks.
  static WriteTask Task(std::vector<LooperStatsRow> rows, Completion committed, Writer& writer);

  bool Join(JoinableRows& newer) override;

 private:
  struct Call {
    size_t rows = 0;  // its rows, the next ones of rows_ in call order
    Completion committed;
  };
  // On the writer thread, once the writer has taken the task: the joined calls' rows after the
  // first's, so that one InsertLooperStats writes them all.
  Status Write(WriteSession& session);
  void Gather();
  void Finish(const Status& status, Writer& writer);

  std::vector<LooperStatsRow> rows_;
  // The rows of the calls joined later, kept apart until Write: Join runs under the writer's
  // queue lock, often from an io thread, so it moves one vector, never the rows themselves.
  std::vector<std::vector<LooperStatsRow>> later_;
  std::vector<Call> calls_;
};

}  // namespace droidlab::store
