#include "parsers/binary_xml.h"

#include <utility>

namespace droidlab::parsers {

namespace {

constexpr uint16_t kStringPoolType = 0x0001;
constexpr uint16_t kXmlType = 0x0003;
constexpr uint16_t kStartNamespaceType = 0x0100;
constexpr uint16_t kEndNamespaceType = 0x0101;
constexpr uint16_t kStartElementType = 0x0102;
constexpr uint16_t kEndElementType = 0x0103;
constexpr uint16_t kCdataType = 0x0104;
constexpr uint16_t kResourceMapType = 0x0180;
constexpr uint32_t kNoString = 0xFFFFFFFF;
constexpr uint32_t kUtf8Flag = 1u << 8;  // ResStringPool_header::UTF8_FLAG
constexpr size_t kChunkHeaderSize = 8;
constexpr size_t kNodeHeaderSize = 16;  // ResXMLTree_node
constexpr size_t kAttrExtSize = 20;     // ResXMLTree_attrExt
constexpr size_t kAttributeSize = 20;   // ResXMLTree_attribute with its Res_value
constexpr size_t kStringPoolHeaderSize = 28;

uint16_t U16(std::string_view b, size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(b[at]) | static_cast<uint8_t>(b[at + 1]) << 8);
}
uint32_t U32(std::string_view b, size_t at) {
  return static_cast<uint32_t>(U16(b, at)) | static_cast<uint32_t>(U16(b, at + 2)) << 16;
}

ParseError MalformedXml(std::string message) {
  return MakeError(ParseErrorCode::kMalformed, "binary XML: " + std::move(message));
}

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | cp >> 6);
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | cp >> 12);
    out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | cp >> 18);
    out += static_cast<char>(0x80 | (cp >> 12 & 0x3F));
    out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Why a string of the pool cannot be read; the caller says which string.
ParseError Why(const char* what) { return MakeError(ParseErrorCode::kMalformed, what); }

// ResStringPool: strings decoded once, looked up by index.
class StringPool {
 public:
  Result<bool> Load(std::string_view chunk) {
    if (chunk.size() < kStringPoolHeaderSize) return MalformedXml("string pool header cut short");
    const size_t header_size = U16(chunk, 2);
    const uint32_t count = U32(chunk, 8);
    const uint32_t style_count = U32(chunk, 12);
    const uint32_t flags = U32(chunk, 16);
    const uint32_t strings_start = U32(chunk, 20);
    const uint32_t styles_start = U32(chunk, 24);
    if (header_size < kStringPoolHeaderSize || header_size > chunk.size()) {
      return MalformedXml("string pool header size " + std::to_string(header_size));
    }
    // Each string needs a 4-byte offset: a count beyond the chunk is a lie, not a big pool.
    if (count > (chunk.size() - header_size) / 4) {
      return MalformedXml("string pool claims " + std::to_string(count) + " strings");
    }
    size_t strings_end = chunk.size();
    if (style_count > 0 && styles_start != 0 && styles_start <= chunk.size()) {
      strings_end = styles_start;
    }
    if (count > 0 && (strings_start < header_size + 4ull * count || strings_start > strings_end)) {
      return MalformedXml("string pool's strings start at " + std::to_string(strings_start));
    }
    const bool utf8 = (flags & kUtf8Flag) != 0;
    strings_.reserve(count);
    for (uint32_t i = 0; i < count; ++i) {
      const size_t at = static_cast<size_t>(strings_start) + U32(chunk, header_size + 4 * i);
      auto s = utf8 ? Utf8At(chunk, at, strings_end) : Utf16At(chunk, at, strings_end);
      if (!s) return MalformedXml("string " + std::to_string(i) + ": " + s.error().message);
      strings_.push_back(std::move(*s));
    }
    return true;
  }

  size_t size() const { return strings_.size(); }
  // The string at `index`; "" for 0xFFFFFFFF (none). Past the pool: an error.
  Result<std::string> At(uint32_t index, const char* what) const {
    if (index == kNoString) return std::string();
    if (index >= strings_.size()) {
      return MalformedXml(std::string(what) + " names string " + std::to_string(index) + " of " +
                          std::to_string(strings_.size()));
    }
    return strings_[index];
  }

 private:
  // u8 UTF-16 length (1 or 2 bytes, high bit: two), u8 UTF-8 length (same), the bytes.
  static Result<std::string> Utf8At(std::string_view b, size_t at, size_t end) {
    auto length = [&](size_t& p) -> std::optional<size_t> {
      if (p >= end) return std::nullopt;
      size_t n = static_cast<uint8_t>(b[p++]);
      if (n & 0x80) {
        if (p >= end) return std::nullopt;
        n = (n & 0x7F) << 8 | static_cast<uint8_t>(b[p++]);
      }
      return n;
    };
    size_t p = at;
    if (!length(p)) return Why("its length runs past the pool");
    const auto bytes = length(p);
    if (!bytes || *bytes > end - p) return Why("it runs past the pool");
    return std::string(b.substr(p, *bytes));
  }

  // u16 length (high bit: a second u16 holds the low half), then that many UTF-16 units.
  static Result<std::string> Utf16At(std::string_view b, size_t at, size_t end) {
    if (at > end || end - at < 2) return Why("its length runs past the pool");
    size_t p = at;
    size_t n = U16(b, p);
    p += 2;
    if (n & 0x8000) {
      if (end - p < 2) return Why("its length runs past the pool");
      n = (n & 0x7FFF) << 16 | U16(b, p);
      p += 2;
    }
    if (n > (end - p) / 2) return Why("it runs past the pool");
    std::string out;
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      uint32_t unit = U16(b, p + 2 * i);
      if (unit >= 0xD800 && unit < 0xDC00 && i + 1 < n) {
        const uint32_t low = U16(b, p + 2 * (i + 1));
        if (low >= 0xDC00 && low < 0xE000) {
          AppendUtf8(out, 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
          ++i;
          continue;
        }
      }
      if (unit >= 0xD800 && unit < 0xE000) unit = 0xFFFD;
      AppendUtf8(out, unit);
    }
    return out;
  }

  std::vector<std::string> strings_;
};

Result<BinaryXmlAttribute> ReadAttribute(std::string_view b, size_t at, const StringPool& pool,
                                         const std::vector<uint32_t>& resource_ids) {
  BinaryXmlAttribute attribute;
  const uint32_t ns = U32(b, at);
  const uint32_t name = U32(b, at + 4);
  const uint32_t raw = U32(b, at + 8);
  attribute.type = static_cast<uint8_t>(b[at + 15]);
  attribute.data = U32(b, at + 16);
  auto ns_text = pool.At(ns, "an attribute's namespace");
  if (!ns_text) return ns_text.error();
  auto name_text = pool.At(name, "an attribute's name");
  if (!name_text) return name_text.error();
  attribute.ns = std::move(*ns_text);
  attribute.name = std::move(*name_text);
  if (name < resource_ids.size()) attribute.resource_id = resource_ids[name];
  if (attribute.type == static_cast<uint8_t>(BinaryXmlValueType::kString)) {
    auto value = pool.At(attribute.data, "a string value");
    if (!value) return value.error();
    attribute.string = std::move(*value);
  } else if (raw != kNoString) {
    auto value = pool.At(raw, "a raw value");
    if (!value) return value.error();
    attribute.string = std::move(*value);
  }
  return attribute;
}

Result<BinaryXmlElement> ReadStartElement(std::string_view chunk, size_t header_size,
                                          const StringPool& pool,
                                          const std::vector<uint32_t>& resource_ids) {
  if (chunk.size() - header_size < kAttrExtSize) return MalformedXml("element cut short");
  const size_t ext = header_size;
  BinaryXmlElement element;
  auto ns = pool.At(U32(chunk, ext), "an element's namespace");
  if (!ns) return ns.error();
  auto name = pool.At(U32(chunk, ext + 4), "an element's name");
  if (!name) return name.error();
  element.ns = std::move(*ns);
  element.name = std::move(*name);
  const size_t start = U16(chunk, ext + 8);
  const size_t size = U16(chunk, ext + 10);
  const size_t count = U16(chunk, ext + 12);
  if (count > 0 && size < kAttributeSize) {
    return MalformedXml("<" + element.name + ">'s attributes are " + std::to_string(size) +
                        " bytes");
  }
  if (ext + start > chunk.size() || count * size > chunk.size() - ext - start) {
    return MalformedXml("<" + element.name + ">'s " + std::to_string(count) +
                        " attributes run past the element");
  }
  element.attributes.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    auto attribute = ReadAttribute(chunk, ext + start + i * size, pool, resource_ids);
    if (!attribute) return attribute.error();
    element.attributes.push_back(std::move(*attribute));
  }
  return element;
}

}  // namespace

Result<std::vector<BinaryXmlElement>> ParseBinaryXml(std::string_view bytes) {
  if (bytes.empty()) return MakeError(ParseErrorCode::kEmpty, "binary XML: no bytes");
  if (bytes.size() < kChunkHeaderSize || U16(bytes, 0) != kXmlType) {
    return MakeError(ParseErrorCode::kNotThisFormat,
                     "not Android binary XML (no RES_XML_TYPE chunk at the start)");
  }
  const size_t header_size = U16(bytes, 2);
  const size_t total = U32(bytes, 4);
  if (header_size < kChunkHeaderSize || total > bytes.size() || header_size > total) {
    return MalformedXml("the document's chunk says " + std::to_string(total) + " bytes, " +
                        std::to_string(bytes.size()) + " given");
  }
  const std::string_view document = bytes.substr(0, total);

  StringPool pool;
  bool have_pool = false;
  std::vector<uint32_t> resource_ids;
  std::vector<BinaryXmlElement> elements;
  int depth = 0;
  for (size_t at = header_size; at < document.size();) {
    if (document.size() - at < kChunkHeaderSize) return MalformedXml("a chunk header cut short");
    const uint16_t type = U16(document, at);
    const size_t chunk_header = U16(document, at + 2);
    const size_t chunk_size = U32(document, at + 4);
    if (chunk_header < kChunkHeaderSize || chunk_size < chunk_header ||
        chunk_size > document.size() - at) {
      return MalformedXml("chunk of type " + std::to_string(type) + " at byte " +
                          std::to_string(at) + " runs past the document");
    }
    const std::string_view chunk = document.substr(at, chunk_size);
    at += chunk_size;
    if (type == kStringPoolType) {
      if (have_pool) continue;  // the platform reads the first pool only
      auto loaded = pool.Load(chunk);
      if (!loaded) return loaded.error();
      have_pool = true;
    } else if (type == kResourceMapType) {
      const size_t n = (chunk.size() - chunk_header) / 4;
      resource_ids.resize(n);
      for (size_t i = 0; i < n; ++i) resource_ids[i] = U32(chunk, chunk_header + 4 * i);
    } else if (type == kStartElementType) {
      if (chunk_header < kNodeHeaderSize) return MalformedXml("an element's header is too short");
      auto element = ReadStartElement(chunk, chunk_header, pool, resource_ids);
      if (!element) return element.error();
      element->depth = depth++;
      elements.push_back(std::move(*element));
    } else if (type == kEndElementType) {
      if (depth == 0) return MalformedXml("an end element with no element open");
      --depth;
    } else if (type == kStartNamespaceType || type == kEndNamespaceType || type == kCdataType) {
      // Namespaces are resolved through each attribute's own URI; text is not needed.
    }
    // Other chunk types are skipped by their size, as ResXMLParser does.
  }
  if (elements.empty()) return MalformedXml("no element");
  return elements;
}

}  // namespace droidlab::parsers
