// Counters for GET /metrics that only the API sees (HTTP requests by route and status); the
// rest of the exposition is read from the store, the registry and the queue when scraped.
// Threading: the io thread only.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace droidlab::api {

class Metrics {
 public:
  void CountRequest(const std::string& route, int status) { ++requests_[{route, status}]; }
  const std::map<std::pair<std::string, int>, uint64_t>& requests() const { return requests_; }
  uint64_t sse_clients = 0;

 private:
  std::map<std::pair<std::string, int>, uint64_t> requests_;
};

}  // namespace droidlab::api
