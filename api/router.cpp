#include "api/router.h"

#include <algorithm>

namespace droidlab::api {

namespace {

std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> out;
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  while (true) {
    const size_t slash = path.find('/');
    out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

// Fills `params`; false when the path does not fit the pattern.
bool Fits(std::string_view pattern, std::string_view path, PathParams& params, bool& bad_escape) {
  const auto want = Segments(pattern);
  const auto have = Segments(path);
  if (want.size() != have.size()) return false;
  PathParams found;
  for (size_t i = 0; i < want.size(); ++i) {
    const std::string_view w = want[i];
    if (w.size() > 2 && w.front() == '{' && w.back() == '}') {
      if (have[i].empty()) return false;
      auto decoded = PercentDecode(have[i]);
      if (!decoded) {
        bad_escape = true;
        return false;
      }
      found[std::string(w.substr(1, w.size() - 2))] = *decoded;
    } else if (w != have[i]) {
      return false;
    }
  }
  params = std::move(found);
  return true;
}

}  // namespace

void Router::Add(std::string method, std::string pattern, Handler handler) {
  routes_.push_back(Route{std::move(method), std::move(pattern), std::move(handler)});
}

Router::Match Router::Find(std::string_view method, std::string_view path) const {
  Match match;
  for (const Route& route : routes_) {
    PathParams params;
    if (!Fits(route.pattern, path, params, match.bad_escape)) continue;
    if (route.method == method) {
      match.route = &route;
      match.params = std::move(params);
      return match;
    }
    if (std::find(match.allow.begin(), match.allow.end(), route.method) == match.allow.end()) {
      match.allow.push_back(route.method);
    }
  }
  return match;
}

}  // namespace droidlab::api
