// Android's binary XML (the form of AndroidManifest.xml and res/xml files inside an APK), as
// aapt and aapt2 write it and the platform reads it: frameworks/base/libs/androidfw/include/
// androidfw/ResourceTypes.h (ResChunk_header, ResStringPool_header, ResXMLTree_node,
// ResXMLTree_attrExt, ResXMLTree_attribute, Res_value) and ResourceTypes.cpp (ResStringPool's
// string decoding, ResXMLParser). Little-endian throughout:
//
//   RES_XML_TYPE (0x0003) chunk
//     RES_STRING_POOL_TYPE (0x0001)   UTF-16 (aapt, and aapt2 for manifests) or UTF-8 (flag 0x100)
//     RES_XML_RESOURCE_MAP_TYPE (0x0180, optional): the resource id of string i, for i < count
//     RES_XML_START_NAMESPACE_TYPE (0x0100) / END (0x0101)
//     RES_XML_START_ELEMENT_TYPE (0x0102): ns, name, then attributeCount attributes of
//       attributeSize bytes at attributeStart: ns, name, rawValue, Res_value{size, res0,
//       dataType, data}
//     RES_XML_END_ELEMENT_TYPE (0x0103), RES_XML_CDATA_TYPE (0x0104)
//
// An attribute is known by its resource id (android:versionCode is 0x0101021b in
// frameworks/base/core/res/res/values/public.xml) rather than by its name: resource shrinking
// may empty or rename the names, and the platform matches on the id too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/result.h"

namespace droidlab::parsers {

// Res_value::dataType values read here (ResourceTypes.h).
enum class BinaryXmlValueType : uint8_t {
  kNull = 0x00,
  kReference = 0x01,  // @type/name: a resource id, resolved only through resources.arsc
  kAttribute = 0x02,
  kString = 0x03,
  kFloat = 0x04,
  kIntDec = 0x10,
  kIntHex = 0x11,
  kIntBoolean = 0x12,
};

struct BinaryXmlAttribute {
  std::string ns;                     // the namespace URI, "" when none
  std::string name;                   // as in the string pool (may be "" in a shrunk APK)
  uint32_t resource_id = 0;           // from the resource map, 0 when the name has none
  uint8_t type = 0;                   // Res_value::dataType (BinaryXmlValueType for the known ones)
  uint32_t data = 0;                  // Res_value::data
  std::optional<std::string> string;  // the string value (kString), else the raw text if kept
};

struct BinaryXmlElement {
  std::string ns;
  std::string name;
  int depth = 0;  // 0 for the root element
  std::vector<BinaryXmlAttribute> attributes;
};

// Every start element in document order, with its attributes. Strings come out as UTF-8
// (UTF-16 pools are converted; unpaired surrogates become U+FFFD). Thread-safe (pure function).
// Bounded by the input: every count and offset is checked against the chunk it lies in.
// Errors: kEmpty for no bytes; kNotThisFormat when the first chunk is not RES_XML_TYPE (a text
// XML file, a zip); kMalformed for a chunk, string or attribute that runs past its end, an index
// past the string pool, an end element without a start, or no element at all.
Result<std::vector<BinaryXmlElement>> ParseBinaryXml(std::string_view bytes);

}  // namespace droidlab::parsers
