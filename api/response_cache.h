// ResponseCache: the finished 200 responses of GET routes, by request target, so that polling
// dashboards and scripts (the same few URLs, many times a second across a lab) are answered
// without a store read, a JSON build or an ETag hash — and If-None-Match gets its 304 without
// rebuilding the body.
//
// Freshness: an entry lives `ttl` at most, an answer read before the cache was last emptied is
// not kept, and every change the server hears of empties the cache: a run event (status, progress — a run's launches are committed before its progress is
// reported), a device state change, and any request that is not a GET. The ttl bounds what no
// event announces (a device row the registry has not committed yet, retention) to one device
// poll interval. Bounded by bytes: past `max_bytes` it starts over empty.
//
// Threading: the io thread only.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "api/http.h"

namespace droidlab::api {

class ResponseCache {
 public:
  using Clock = std::chrono::steady_clock;

  ResponseCache(std::chrono::milliseconds ttl, size_t max_bytes) : ttl_(ttl), max_bytes_(max_bytes) {}

  bool enabled() const { return ttl_.count() > 0; }
  // The response stored for `target` within the ttl, with its ETag set and its body shared
  // (`shared_body`), or nullopt.
  std::optional<HttpResponse> Find(const std::string& target, Clock::time_point now) const;
  // How many times the cache was emptied: taken before a handler reads the store, and handed to
  // Store, so that an answer read before a change (a run event, a POST) is not kept after it —
  // the read is on a reader thread while the io thread goes on, and a client told of the change
  // must not then be answered from before it.
  uint64_t generation() const { return generation_; }
  // Keeps a 200 response (its ETag computed once, here) read at `generation`; dropped when the
  // cache has been emptied since.
  void Store(const std::string& target, HttpResponse response, Clock::time_point now,
             uint64_t generation);
  void Clear();

  size_t entries() const { return entries_.size(); }
  uint64_t hits() const { return hits_; }

 private:
  struct Entry {
    HttpResponse response;
    Clock::time_point stored;
  };
  std::chrono::milliseconds ttl_;
  size_t max_bytes_;
  size_t bytes_ = 0;
  mutable uint64_t hits_ = 0;
  uint64_t generation_ = 0;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace droidlab::api
