// One HTTP request on its own loopback connection with a tolerant limit: the soak runs beside
// compilers on two cores, where the tests' usual 5 s is not always enough for an answer.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "tests/common/http_client.h"

namespace droidlab::soak {

inline testutil::HttpResponse Call(uint16_t port, const std::string& method,
                                   const std::string& target, const std::string& body = "",
                                   std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  if (port == 0) return {};
  testutil::RawHttpClient client(port);
  if (!client.connected()) return {};
  client.Send(testutil::HttpRequestBytes(method, target, body));
  auto responses = client.Read(1, limit);
  return responses.empty() ? testutil::HttpResponse{} : responses[0];
}

}  // namespace droidlab::soak
