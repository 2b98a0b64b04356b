#include "parsers/meminfo.h"

#include <array>
#include <utility>

#include "parsers/text.h"

namespace droidlab::parsers {
namespace {

enum class Section { kTable, kSummary, kObjects, kOther };

// "** MEMINFO in pid 1234 [com.pkg] **"
bool ReadHeader(std::string_view line, Meminfo& m) {
  std::string_view rest = Trim(line);
  if (!ConsumePrefix(rest, "** MEMINFO in pid ") || !rest.ends_with(" **")) return false;
  rest.remove_suffix(3);
  auto pid_text = SplitFirst(rest, ' ');
  if (!pid_text) return false;
  auto pid = ParseInt64(*pid_text);
  if (!pid || rest.size() < 3 || rest.front() != '[' || rest.back() != ']') return false;
  m.pid = *pid;
  m.package.assign(rest.substr(1, rest.size() - 2));
  return !m.package.empty();
}

// The titles ActivityThread prints between sections (on a line of their own).
Section SectionOf(std::string_view title, Section current) {
  if (title == "App Summary") return Section::kSummary;
  if (title == "Objects") return Section::kObjects;
  if (title == "SQL" || title == "DATABASES" || title == "Asset Allocations" ||
      title == "Unreachable memory" || title == "Dalvik Details") {
    return Section::kOther;
  }
  return current;
}

struct Pair {
  std::string_view label;
  std::array<int64_t, 2> values{};  // Pss, then Rss where printed
  int count = 0;
};

// "Label: N [N] Label: N …" -> pairs. False when a label has no number after it, or text that
// is neither follows a number.
bool ReadPairs(std::string_view line, std::array<Pair, 4>& pairs, int& n) {
  n = 0;
  std::string_view rest = line;
  while (!Trim(rest).empty()) {
    size_t colon = rest.find(':');
    if (colon == std::string_view::npos || n == static_cast<int>(pairs.size())) return false;
    Pair& p = pairs[static_cast<size_t>(n++)];
    p = Pair{};
    p.label = Trim(rest.substr(0, colon));
    rest.remove_prefix(colon + 1);
    for (;;) {
      std::string_view probe = rest;
      std::string_view tok = NextToken(probe);
      if (tok.empty()) break;
      auto v = ParseInt64(tok);
      if (!v) break;  // the next label starts here
      if (p.count < 2) p.values[static_cast<size_t>(p.count)] = *v;
      ++p.count;
      rest = probe;
    }
    if (p.label.empty() || p.count == 0) return false;
  }
  return true;
}

void ApplySummary(const Pair& p, Meminfo& m) {
  const std::optional<int64_t> pss = p.values[0];
  const std::string_view l = p.label;
  MeminfoSummary& s = m.summary;
  if (l == "Java Heap")
    s.java_heap_kb = pss;
  else if (l == "Native Heap")
    s.native_heap_kb = pss;
  else if (l == "Code")
    s.code_kb = pss;
  else if (l == "Stack")
    s.stack_kb = pss;
  else if (l == "Graphics")
    s.graphics_kb = pss;
  else if (l == "Private Other")
    s.private_other_kb = pss;
  else if (l == "System")
    s.system_kb = pss;
  else if (l == "TOTAL PSS" || l == "TOTAL")
    m.total_pss_kb = pss;
  else if (l == "TOTAL RSS")
    m.total_rss_kb = pss;
  else if (l == "TOTAL SWAP PSS")
    m.total_swap_pss_kb = pss;
}

void ApplyObject(const Pair& p, MeminfoObjects& o) {
  const std::optional<int64_t> v = p.values[0];
  const std::string_view l = p.label;
  if (l == "Views")
    o.views = v;
  else if (l == "ViewRootImpl")
    o.view_root_impl = v;
  else if (l == "AppContexts")
    o.app_contexts = v;
  else if (l == "Activities")
    o.activities = v;
  else if (l == "Assets")
    o.assets = v;
  else if (l == "AssetManagers")
    o.asset_managers = v;
  else if (l == "Local Binders")
    o.local_binders = v;
  else if (l == "Proxy Binders")
    o.proxy_binders = v;
  else if (l == "Death Recipients")
    o.death_recipients = v;
  else if (l == "WebViews")
    o.webviews = v;
}

// The main table's "        TOTAL    46150 …" row: its first number is Pss Total.
std::optional<int64_t> TableTotal(std::string_view line) {
  std::string_view rest = line;
  if (NextToken(rest) != "TOTAL") return std::nullopt;
  return ParseInt64(NextToken(rest));
}

}  // namespace

Result<Meminfo> ParseMeminfo(std::string_view text) {
  Meminfo m;
  bool in_block = false;
  Section section = Section::kTable;
  std::optional<int64_t> table_total;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = TrimRight(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    std::string_view trimmed = Trim(line);
    if (!in_block) {
      std::string_view rest = trimmed;
      if (ConsumePrefix(rest, "No process found for: ")) {
        return MakeError(ParseErrorCode::kEmpty, "no process found for " + std::string(Trim(rest)) +
                                                     " (dumpsys meminfo: the app is not running)");
      }
      in_block = ReadHeader(line, m);
      continue;
    }
    if (trimmed.starts_with("** MEMINFO in pid ")) break;  // the package's next process
    if (trimmed.empty()) continue;
    const Section next = SectionOf(trimmed, section);
    if (next != section) {
      section = next;
      continue;
    }
    if (section == Section::kTable) {
      if (!table_total) table_total = TableTotal(line);
      continue;
    }
    if (section == Section::kOther || trimmed.find(':') == std::string_view::npos) continue;
    std::array<Pair, 4> pairs;
    int n = 0;
    if (!ReadPairs(trimmed, pairs, n)) {
      ++m.skipped_lines;
      continue;
    }
    for (int i = 0; i < n; ++i) {
      if (section == Section::kSummary) {
        ApplySummary(pairs[static_cast<size_t>(i)], m);
      } else {
        ApplyObject(pairs[static_cast<size_t>(i)], m.objects);
      }
    }
  }
  if (!in_block) {
    return MakeError(ParseErrorCode::kNotThisFormat,
                     "no \"** MEMINFO in pid N [PKG] **\" header: not dumpsys meminfo PKG output");
  }
  if (!m.total_pss_kb) m.total_pss_kb = table_total;
  return m;
}

}  // namespace droidlab::parsers
