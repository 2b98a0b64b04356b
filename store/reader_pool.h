// ReaderPool: the store's read-only connections (WAL readers) and the threads that run posted
// reads, one per connection. Internal to store/ (Store::Read and Store::PostRead use it).
//
// Threading: every member is thread-safe. Acquire blocks until a connection is free; Post never
// blocks. The destructor runs every task already posted, then joins the threads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "store/reader.h"
#include "store/unique_function.h"

namespace droidlab::store {

class ReaderPool {
 public:
  // Called on a reader before it is lent (outside the pool's lock): PostgreSQL's reconnects a
  // connection that broke; true when it made a new one (counted in reconnects()).
  using BeforeLend = std::function<bool(Reader&)>;

  explicit ReaderPool(std::vector<std::unique_ptr<Reader>> readers,
                      BeforeLend before_lend = nullptr);
  ~ReaderPool();
  ReaderPool(const ReaderPool&) = delete;
  ReaderPool& operator=(const ReaderPool&) = delete;

  // A free connection, lent until Release; blocks while all are lent.
  std::unique_ptr<Reader> Acquire();
  void Release(std::unique_ptr<Reader> reader);
  // Runs `task` on a pool thread with a free connection.
  void Post(UniqueFunction<void(Reader&)> task);
  // How many times a reader's connection was made again.
  uint64_t reconnects() const { return reconnects_; }

 private:
  void Work();

  const BeforeLend before_lend_;
  std::atomic<uint64_t> reconnects_{0};
  std::mutex mu_;
  std::condition_variable reader_free_;
  std::condition_variable tasks_ready_;
  std::vector<std::unique_ptr<Reader>> free_;
  std::deque<UniqueFunction<void(Reader&)>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace droidlab::store
