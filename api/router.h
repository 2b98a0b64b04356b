// Routing as a table: (method, path pattern) → handler. Patterns are literal segments and
// `{name}` segments, which match one non-empty segment, percent-decoded ("127.0.0.1%3A5555" →
// "127.0.0.1:5555"). A path no pattern matches is 404; a path some pattern matches under other
// methods is 405 with those methods in `Allow`.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/http.h"

namespace droidlab::api {

using PathParams = std::map<std::string, std::string>;
using Handler =
    std::function<boost::asio::awaitable<HttpResponse>(const HttpRequest&, const PathParams&)>;

struct Route {
  std::string method;
  std::string pattern;  // "/api/v1/runs/{id}"
  Handler handler;
};

class Router {
 public:
  void Add(std::string method, std::string pattern, Handler handler);

  struct Match {
    const Route* route = nullptr;  // null: see `allow` (405) or neither (404)
    PathParams params;
    std::vector<std::string> allow;  // methods of the patterns the path matches
    bool bad_escape = false;         // a {param} with a malformed %-escape (400)
  };
  Match Find(std::string_view method, std::string_view path) const;

  const std::vector<Route>& routes() const { return routes_; }

 private:
  std::vector<Route> routes_;
};

}  // namespace droidlab::api
