#include "orchestrator/spec/json_body.h"

#include <string>
#include <utility>
#include <vector>

namespace droidlab::orchestrator {

namespace {

using nlohmann::json;

// nlohmann's own DOM builder (detail::json_sax_dom_parser) with a depth limit, a refusal of
// duplicate keys, and the JSON path of the value being built for the error.
class BoundedDomBuilder final : public json::json_sax_t {
 public:
  BoundedDomBuilder(json& root, int max_depth) : root_(root), max_depth_(max_depth) {}

  const std::optional<FieldError>& error() const { return error_; }

  bool null() override { return Put(nullptr) != nullptr; }
  bool boolean(bool v) override { return Put(v) != nullptr; }
  bool number_integer(number_integer_t v) override { return Put(v) != nullptr; }
  bool number_unsigned(number_unsigned_t v) override { return Put(v) != nullptr; }
  bool number_float(number_float_t v, const string_t&) override { return Put(v) != nullptr; }
  bool string(string_t& v) override { return Put(std::move(v)) != nullptr; }
  bool binary(binary_t&) override { return Fail("", "holds binary data"); }

  bool start_object(std::size_t) override { return Open(json::object()); }
  bool start_array(std::size_t) override { return Open(json::array()); }
  bool end_object() override { return Close(); }
  bool end_array() override { return Close(); }

  bool key(string_t& k) override {
    Frame& top = frames_.back();
    if (top.value->contains(k)) return Fail(Path(k), "is given more than once");
    top.key = std::move(k);
    top.slot = &(*top.value)[top.key];
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    // "[json.exception.parse_error.101] parse error at line 1, ..." → "parse error at line 1, ..."
    std::string what = e.what();
    const size_t close = what.find("] ");
    if (what.starts_with("[json.exception.") && close != std::string::npos) {
      what.erase(0, close + 2);
    }
    return Fail("", "is not valid JSON: " + what);
  }

 private:
  struct Frame {
    json* value;           // the object or array being filled
    std::string key;       // an object's current key
    json* slot = nullptr;  // where that key's value goes
  };

  // The value in its place: the root, the end of the open array, or the open object's key.
  template <class V>
  json* Put(V&& v) {
    if (frames_.empty()) {
      root_ = json(std::forward<V>(v));
      return &root_;
    }
    Frame& top = frames_.back();
    if (top.value->is_array()) {
      top.value->emplace_back(std::forward<V>(v));
      return &top.value->back();
    }
    *top.slot = json(std::forward<V>(v));
    return top.slot;
  }

  bool Open(json container) {
    if (static_cast<int>(frames_.size()) >= max_depth_) {
      return Fail("", "is nested deeper than " + std::to_string(max_depth_) + " levels");
    }
    json* placed = Put(std::move(container));
    frames_.push_back(Frame{placed, {}, nullptr});
    return true;
  }

  bool Close() {
    frames_.pop_back();
    return true;
  }

  // "run.looper_stats.x", "list[2].y": the keys and indexes of the open containers, then `last`.
  std::string Path(const std::string& last) const {
    std::string path;
    for (const Frame& f : frames_) {
      if (&f == &frames_.back()) break;
      if (f.value->is_array()) {
        path += "[" + std::to_string(f.value->size() - 1) + "]";
      } else {
        path += (path.empty() ? "" : ".") + f.key;
      }
    }
    return path + (path.empty() ? "" : ".") + last;
  }

  bool Fail(std::string field, std::string message) {
    if (!error_) error_ = FieldError{std::move(field), std::move(message)};
    return false;
  }

  json& root_;
  const int max_depth_;
  std::vector<Frame> frames_;
  std::optional<FieldError> error_;
};

}  // namespace

BasicResult<json, FieldError> ParseJsonBody(std::string_view text, int max_depth) {
  json root;
  BoundedDomBuilder builder(root, max_depth);
  const bool ok = json::sax_parse(text.begin(), text.end(), &builder);
  if (!ok || builder.error()) {
    if (builder.error()) return *builder.error();
    return FieldError{"", "is not valid JSON"};
  }
  return root;
}

}  // namespace droidlab::orchestrator
