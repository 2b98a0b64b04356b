#include "api/response_cache.h"

namespace droidlab::api {

std::optional<HttpResponse> ResponseCache::Find(const std::string& target,
                                                Clock::time_point now) const {
  if (!enabled()) return std::nullopt;
  auto it = entries_.find(target);
  if (it == entries_.end() || now - it->second.stored >= ttl_) return std::nullopt;
  ++hits_;
  return it->second.response;
}

void ResponseCache::Store(const std::string& target, HttpResponse response, Clock::time_point now,
                          uint64_t generation) {
  if (!enabled() || response.status != 200 || generation != generation_) return;
  if (response.etag.empty()) response.etag = EtagOf(response.body);
  if (!response.shared_body) {
    response.shared_body = std::make_shared<const std::string>(std::move(response.body));
    response.body.clear();
  }
  const size_t size = target.size() + response.shared_body->size();
  if (size > max_bytes_) return;
  if (bytes_ + size > max_bytes_) Clear();
  auto [it, inserted] = entries_.insert_or_assign(target, Entry{std::move(response), now});
  (void)it;
  (void)inserted;
  // A replaced entry's bytes are counted twice until the next Clear: a bound, not a tally.
  bytes_ += size;
}

void ResponseCache::Clear() {
  ++generation_;
  entries_.clear();
  bytes_ = 0;
}

}  // namespace droidlab::api
