// Bursts of hostile requests at the daemon's API, as a careless or malicious client sends them:
// bodies nested deeper than any parser's stack, bodies and headers over the limits, random bytes,
// wrong types, huge numbers, duplicate keys, a text/plain POST, a cross-site Origin, and clients
// that send half a request and then nothing (they stay open until the next burst). Each must be
// refused with a 4xx or a closed connection; a 5xx, or a daemon that stops answering, is a problem.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tests/common/http_client.h"

namespace droidlab::soak {

class BadRequestBursts {
 public:
  explicit BadRequestBursts(uint64_t seed) : rng_(seed) {}

  // Sends one burst to `port`; returns how many requests it sent. What went wrong is appended to
  // `problems`.
  int Burst(uint16_t port, std::vector<std::string>& problems);
  // Closes the slow clients still open.
  void CloseSlowClients() { slow_clients_.clear(); }

 private:
  std::mt19937_64 rng_;
  std::vector<std::unique_ptr<testutil::RawHttpClient>> slow_clients_;
};

}  // namespace droidlab::soak
