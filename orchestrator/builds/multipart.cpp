#include "orchestrator/builds/multipart.h"

#include <algorithm>
#include <utility>

namespace droidlab::orchestrator {

namespace {

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](char x, char y) { return Lower(x) == Lower(y); });
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Splits `params` ("; name=value; name2=\"quoted\"") into name/value pairs. A quoted value may
// escape with '\'. Returns false on a malformed parameter.
bool ForEachParameter(std::string_view params,
                      const std::function<void(std::string_view, std::string)>& each) {
  size_t i = 0;
  while (i < params.size()) {
    while (i < params.size() && (params[i] == ' ' || params[i] == '\t' || params[i] == ';')) ++i;
    if (i >= params.size()) break;
    const size_t eq = params.find('=', i);
    if (eq == std::string_view::npos) return false;
    const std::string_view name = Trim(params.substr(i, eq - i));
    i = eq + 1;
    while (i < params.size() && (params[i] == ' ' || params[i] == '\t')) ++i;
    std::string value;
    if (i < params.size() && params[i] == '"') {
      ++i;
      bool closed = false;
      while (i < params.size()) {
        const char c = params[i++];
        if (c == '\\' && i < params.size()) {
          value.push_back(params[i++]);
        } else if (c == '"') {
          closed = true;
          break;
        } else {
          value.push_back(c);
        }
      }
      if (!closed) return false;
    } else {
      while (i < params.size() && params[i] != ';') value.push_back(params[i++]);
      value = std::string(Trim(value));
    }
    if (name.empty()) return false;
    each(name, std::move(value));
  }
  return true;
}

}  // namespace

std::string_view NameStem(std::string_view name) {
  const size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(0, dot);
}

BasicResult<std::string, BoundaryError> MultipartBoundary(std::string_view content_type) {
  const size_t semicolon = content_type.find(';');
  const std::string_view media = Trim(content_type.substr(0, semicolon));
  if (!EqualsIgnoreCase(media, "multipart/form-data")) {
    return BoundaryError{"the Content-Type is not multipart/form-data"};
  }
  std::optional<std::string> boundary;
  const bool well_formed = semicolon != std::string_view::npos &&
                           ForEachParameter(content_type.substr(semicolon + 1),
                                            [&](std::string_view name, std::string v) {
                                              if (EqualsIgnoreCase(name, "boundary"))
                                                boundary = std::move(v);
                                            });
  if (!well_formed || !boundary) {
    return BoundaryError{"multipart/form-data without a boundary parameter"};
  }
  // RFC 2046 §5.1.1: bcharsnospace / space, 1 to 70 characters, not ending in a space.
  constexpr size_t kMaxBoundary = 70;
  const bool ok_chars = std::all_of(boundary->begin(), boundary->end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           std::string_view("'()+_,-./:=? ").find(c) != std::string_view::npos;
  });
  if (boundary->empty() || boundary->size() > kMaxBoundary || !ok_chars ||
      boundary->back() == ' ') {
    return BoundaryError{"the multipart boundary '" + *boundary +
                         "' is not 1 to 70 of RFC 2046's characters"};
  }
  return std::move(*boundary);
}

MultipartReader::MultipartReader(std::string boundary, MultipartLimits limits, Sink sink)
    : delimiter_("\r\n--" + boundary), limits_(limits), sink_(std::move(sink)) {
  // The first delimiter may open the body with no line end before it: reading the body as if a
  // line end came first finds it with the same search as the others.
  buffer_ = "\r\n";
}

std::optional<std::string> MultipartReader::Fail(std::string why) {
  state_ = State::kFailed;
  buffer_.clear();
  return why;
}

std::optional<std::string> MultipartReader::Feed(std::string_view bytes) {
  if (state_ == State::kFailed) return std::string("the multipart body was already refused");
  if (state_ == State::kEpilogue) return std::nullopt;  // after the close delimiter: ignored
  buffer_.append(bytes);
  for (;;) {
    bool progressed = false;
    if (auto error = Step(progressed)) return error;
    if (!progressed || state_ == State::kEpilogue) return std::nullopt;
  }
}

std::optional<std::string> MultipartReader::Step(bool& progressed) {
  const size_t keep = delimiter_.size() - 1;  // what may be the start of a split delimiter
  switch (state_) {
    case State::kPreamble: {
      const size_t at = buffer_.find(delimiter_);
      if (at == std::string::npos) {
        if (buffer_.size() > keep) buffer_.erase(0, buffer_.size() - keep);  // preamble: ignored
        return std::nullopt;
      }
      buffer_.erase(0, at + delimiter_.size());
      state_ = State::kAfterDelimiter;
      progressed = true;
      return std::nullopt;
    }
    case State::kAfterDelimiter: {
      size_t i = 0;
      while (i < buffer_.size() && (buffer_[i] == ' ' || buffer_[i] == '\t')) ++i;  // padding
      if (buffer_.size() - i < 2) return std::nullopt;
      if (i == 0 && buffer_.compare(0, 2, "--") == 0) {
        if (parts_ == 0) return Fail("the multipart body closes before any part");
        state_ = State::kEpilogue;
        buffer_.clear();
        progressed = true;
        return std::nullopt;
      }
      if (buffer_.compare(i, 2, "\r\n") != 0) {
        return Fail("a multipart boundary line is followed by bytes other than a line end");
      }
      if (parts_ == limits_.max_parts) {
        return Fail("more than " + std::to_string(limits_.max_parts) + " parts in the body");
      }
      ++parts_;
      buffer_.erase(0, i + 2);
      state_ = State::kHeaders;
      progressed = true;
      return std::nullopt;
    }
    case State::kHeaders: {
      size_t end = std::string::npos;
      size_t skip = 0;
      if (buffer_.compare(0, 2, "\r\n") == 0) {
        end = 0;  // no header at all
        skip = 2;
      } else {
        end = buffer_.find("\r\n\r\n");
        skip = 4;
      }
      if (end == std::string::npos || end > limits_.max_header_bytes) {
        if (buffer_.size() > limits_.max_header_bytes + 4) {
          return Fail("part " + std::to_string(parts_) + "'s headers are longer than " +
                      std::to_string(limits_.max_header_bytes) + " bytes");
        }
        return std::nullopt;
      }
      MultipartPart part;
      bool form_data = false;
      bool well_formed = true;
      std::string_view block(buffer_.data(), end);
      while (!block.empty() && well_formed) {
        const size_t eol = block.find("\r\n");
        const std::string_view line = block.substr(0, eol);
        block = eol == std::string_view::npos ? std::string_view() : block.substr(eol + 2);
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos) {
          well_formed = false;
          break;
        }
        const std::string_view name = Trim(line.substr(0, colon));
        const std::string_view value = Trim(line.substr(colon + 1));
        if (EqualsIgnoreCase(name, "Content-Type")) {
          part.content_type = std::string(value);
        } else if (EqualsIgnoreCase(name, "Content-Disposition")) {
          const size_t semicolon = value.find(';');
          form_data = EqualsIgnoreCase(Trim(value.substr(0, semicolon)), "form-data");
          if (semicolon != std::string_view::npos) {
            well_formed = ForEachParameter(value.substr(semicolon + 1),
                                           [&](std::string_view key, std::string v) {
                                             if (EqualsIgnoreCase(key, "name")) part.name = v;
                                             if (EqualsIgnoreCase(key, "filename")) {
                                               part.filename = std::move(v);
                                             }
                                           });
          }
        }
      }
      if (!well_formed) return Fail("part " + std::to_string(parts_) + " has a malformed header");
      if (!form_data) {
        return Fail("part " + std::to_string(parts_) +
                    " has no Content-Disposition: form-data header");
      }
      buffer_.erase(0, end + skip);
      if (sink_.begin) sink_.begin(part);
      state_ = State::kBody;
      progressed = true;
      return std::nullopt;
    }
    case State::kBody: {
      const size_t at = buffer_.find(delimiter_);
      if (at == std::string::npos) {
        if (buffer_.size() > keep) {
          const size_t give = buffer_.size() - keep;
          if (sink_.data) sink_.data(std::string_view(buffer_.data(), give));
          buffer_.erase(0, give);
        }
        return std::nullopt;
      }
      if (at > 0 && sink_.data) sink_.data(std::string_view(buffer_.data(), at));
      if (sink_.end) sink_.end();
      buffer_.erase(0, at + delimiter_.size());
      state_ = State::kAfterDelimiter;
      progressed = true;
      return std::nullopt;
    }
    case State::kEpilogue:
    case State::kFailed:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> MultipartReader::Finish() {
  const std::string close = "--" + delimiter_.substr(4) + "--";
  switch (state_) {
    case State::kEpilogue:
      return std::nullopt;
    case State::kFailed:
      return std::string("the multipart body was already refused");
    case State::kPreamble:
      return Fail("the body has no multipart boundary line (" + close.substr(0, close.size() - 2) +
                  ")");
    case State::kHeaders:
      return Fail("part " + std::to_string(parts_) + " is cut short in its headers");
    case State::kBody:
      return Fail("part " + std::to_string(parts_) + " is cut short: the body ended before " +
                  close + " or the next boundary");
    case State::kAfterDelimiter:
      return Fail("the body ends without its closing boundary " + close);
  }
  return std::nullopt;
}

BasicResult<size_t, std::string> CheckBuildFiles(const std::vector<BuildFileFacts>& files) {
  if (files.empty()) return std::string("the build has no file");
  std::optional<size_t> base;
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].dex_metadata || files[i].split) continue;
    if (base) {
      return "two base APKs: " + files[*base].name + " and " + files[i].name +
             " (a build is one app: one base APK and its splits)";
    }
    base = i;
  }
  if (!base) {
    return std::string("no base APK: every APK given is a split (a build needs its base APK)");
  }
  const BuildFileFacts& b = files[*base];
  std::vector<std::string_view> splits;
  for (const BuildFileFacts& f : files) {
    if (f.dex_metadata) {
      const bool paired = std::any_of(files.begin(), files.end(), [&](const BuildFileFacts& apk) {
        return !apk.dex_metadata && NameStem(apk.name) == NameStem(f.name);
      });
      if (!paired) {
        return f.name + " has no APK of the same name beside it (" + std::string(NameStem(f.name)) +
               ".apk): Android pairs a .dm with its APK by name";
      }
      continue;
    }
    if (!f.split) continue;
    if (f.package != b.package) {
      return f.name + " is a split of " + f.package + ", not of " + b.package;
    }
    if (f.version_code != b.version_code) {
      return f.name + " has versionCode " + std::to_string(f.version_code) + ", the base " +
             std::to_string(b.version_code);
    }
    if (std::find(splits.begin(), splits.end(), *f.split) != splits.end()) {
      return "split " + *f.split + " is given twice";
    }
    splits.push_back(*f.split);
  }
  return *base;
}

}  // namespace droidlab::orchestrator
