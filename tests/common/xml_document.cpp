#include "tests/common/xml_document.h"

#include <expat.h>

namespace droidlab::testutil {

namespace {

struct Builder {
  std::unique_ptr<XmlElement> root;
  std::vector<XmlElement*> open;
};

void OnStart(void* data, const XML_Char* name, const XML_Char** attributes) {
  auto* b = static_cast<Builder*>(data);
  auto element = std::make_unique<XmlElement>();
  element->name = name;
  for (size_t i = 0; attributes[i]; i += 2) element->attributes[attributes[i]] = attributes[i + 1];
  XmlElement* raw = element.get();
  if (b->open.empty()) {
    b->root = std::move(element);
  } else {
    b->open.back()->children.push_back(std::move(element));
  }
  b->open.push_back(raw);
}

void OnEnd(void* data, const XML_Char*) { static_cast<Builder*>(data)->open.pop_back(); }

void OnText(void* data, const XML_Char* text, int length) {
  auto* b = static_cast<Builder*>(data);
  if (!b->open.empty()) b->open.back()->text.append(text, static_cast<size_t>(length));
}

}  // namespace

std::vector<const XmlElement*> XmlElement::Children(const std::string& child_name) const {
  std::vector<const XmlElement*> out;
  for (const auto& child : children) {
    if (child->name == child_name) out.push_back(child.get());
  }
  return out;
}

const XmlElement* XmlElement::Find(const std::string& descendant_name) const {
  for (const auto& child : children) {
    if (child->name == descendant_name) return child.get();
    if (const XmlElement* found = child->Find(descendant_name)) return found;
  }
  return nullptr;
}

BasicResult<std::unique_ptr<XmlElement>, std::string> ParseXml(const std::string& text) {
  Builder builder;
  XML_Parser parser = XML_ParserCreate("UTF-8");
  XML_SetUserData(parser, &builder);
  XML_SetElementHandler(parser, OnStart, OnEnd);
  XML_SetCharacterDataHandler(parser, OnText);
  const bool ok = XML_Parse(parser, text.data(), static_cast<int>(text.size()), 1) == XML_STATUS_OK;
  std::string error;
  if (!ok) {
    error = std::string(XML_ErrorString(XML_GetErrorCode(parser))) + " at line " +
            std::to_string(XML_GetCurrentLineNumber(parser));
  }
  XML_ParserFree(parser);
  if (!ok) return error;
  if (!builder.root) return std::string("no root element");
  return std::move(builder.root);
}

}  // namespace droidlab::testutil
