#include "api/response_cache.h"

namespace droidlab::api {

const HttpResponse* ResponseCache::Find(const std::string& target, Clock::time_point now) const {
  if (!enabled()) return nullptr;
  auto it = entries_.find(target);
  if (it == entries_.end() || now - it->second.stored >= ttl_) return nullptr;
  ++hits_;
  return &it->second.response;
}

void ResponseCache::Store(const std::string& target, HttpResponse response, Clock::time_point now) {
  if (!enabled() || response.status != 200) return;
  if (response.etag.empty()) response.etag = EtagOf(response.body);
  const size_t size = target.size() + response.body.size();
  if (size > max_bytes_) return;
  if (bytes_ + size > max_bytes_) Clear();
  auto [it, inserted] = entries_.insert_or_assign(target, Entry{std::move(response), now});
  (void)it;
  (void)inserted;
  // A replaced entry's bytes are counted twice until the next Clear: a bound, not a tally.
  bytes_ += size;
}

void ResponseCache::Clear() {
  entries_.clear();
  bytes_ = 0;
}

}  // namespace droidlab::api
