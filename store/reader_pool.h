// ReaderPool: the store's read-only connections (WAL readers) and the threads that run posted
// reads, one per connection. Internal to store/ (Store::Read and Store::PostRead use it).
//
// Threading: every member is thread-safe. Acquire blocks until a connection is free; Post never
// blocks. The destructor runs every task already posted, then joins the threads.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "store/reader.h"
#include "store/unique_function.h"

namespace droidlab::store {

class ReaderPool {
 public:
  explicit ReaderPool(std::vector<std::unique_ptr<Reader>> readers);
  ~ReaderPool();
  ReaderPool(const ReaderPool&) = delete;
  ReaderPool& operator=(const ReaderPool&) = delete;

  // A free connection, lent until Release; blocks while all are lent.
  std::unique_ptr<Reader> Acquire();
  void Release(std::unique_ptr<Reader> reader);
  // Runs `task` on a pool thread with a free connection.
  void Post(UniqueFunction<void(Reader&)> task);

 private:
  void Work();

  std::mutex mu_;
  std::condition_variable reader_free_;
  std::condition_variable tasks_ready_;
  std::vector<std::unique_ptr<Reader>> free_;
  std::deque<UniqueFunction<void(Reader&)>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace droidlab::store
