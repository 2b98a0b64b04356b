// XML read back with a real parser (expat), for tests of what droidlab writes as XML (the JUnit
// report of `droidlab run --junit`): a malformed document is an error, not a string that happens
// to contain the expected words.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"

namespace droidlab::testutil {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::string text;  // character data directly inside, entities resolved
  std::vector<std::unique_ptr<XmlElement>> children;

  // The direct children named `name`.
  std::vector<const XmlElement*> Children(const std::string& child_name) const;
  // The first descendant (depth first) named `name`, or null.
  const XmlElement* Find(const std::string& descendant_name) const;
};

// The root element, or expat's error with its line.
BasicResult<std::unique_ptr<XmlElement>, std::string> ParseXml(const std::string& text);

}  // namespace droidlab::testutil
