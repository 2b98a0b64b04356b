#include "tools/devsim/android/meminfo_dump.h"

#include <cstdio>
#include <initializer_list>
#include <string_view>
#include <vector>

namespace droidlab::devsim {
namespace {

// printRow's layouts (ActivityThread.java): a label right-aligned in 13 (table) or 21 (summary)
// characters, numbers in 8; the table's other rows print "" in the heap columns (trailing blanks).
std::string Row(int label_width, std::initializer_list<std::string> cells) {
  std::string out;
  bool first = true;
  for (const std::string& cell : cells) {
    const int width = first ? label_width : 8;
    if (!first) out += ' ';
    if (static_cast<int>(cell.size()) < width) out.append(width - cell.size(), ' ');
    out += cell;
    first = false;
  }
  return out + "\n";
}

// "%21s %8d %21s %8d …": label/number pairs.
std::string Pairs(std::initializer_list<std::pair<std::string, std::string>> pairs) {
  std::string out;
  bool first = true;
  for (const auto& [label, value] : pairs) {
    if (!first) out += ' ';
    if (label.size() < 21) out.append(21 - label.size(), ' ');
    out += label + ' ';
    if (value.size() < 8) out.append(8 - value.size(), ' ');
    out += value;
    first = false;
  }
  return out + "\n";
}

std::string N(long value) { return std::to_string(value); }

struct TableRow {
  std::string label;
  long pss = 0;
  long private_dirty = 0;
  long private_clean = 0;
  long swap_pss = 0;
  long rss = 0;
};

}  // namespace

std::string FormatMeminfo(int sdk, long uptime_ms, long realtime_ms, const MeminfoProcess& process,
                          const MemorySpec& m) {
  // The Rss column and the summary's Rss(KB) came with Android 11 (Unity's logcat package, PR
  // 114: "Android 11 started including RSS memory in memory dump"; real 11+ dumps).
  const bool rss = sdk >= 30;
  // The private pages behind each App Summary line (Debug.MemoryInfo getSummary*): Java Heap is
  // the Dalvik heap and the .art mmap's, Code the mapped code, Graphics EGL and GL mtrack,
  // Private Other Dalvik Other and Unknown. What other processes share of the code mappings
  // shows as their Pss beyond their private pages; with the swapped-out Pss, that is System.
  const long art = m.java_heap_kb / 4;
  const long dalvik = m.java_heap_kb - art;
  const long so = m.code_kb / 3;
  const long dex = m.code_kb / 3;
  const long oat = m.code_kb - so - dex;
  const long egl = m.graphics_kb * 2 / 3;
  const long gl = m.graphics_kb - egl;
  const long dalvik_other = m.private_other_kb * 2 / 3;
  const long unknown = m.private_other_kb - dalvik_other;
  const long shared = m.system_kb > m.swap_pss_kb ? m.system_kb - m.swap_pss_kb : 0;
  const long swap_native = m.swap_pss_kb / 2;
  const long swap_dalvik = m.swap_pss_kb - swap_native;
  std::vector<TableRow> rows = {
      {"Native Heap", m.native_heap_kb, m.native_heap_kb, 0, swap_native, 0},
      {"Dalvik Heap", dalvik, dalvik, 0, swap_dalvik, 0},
      {"Dalvik Other", dalvik_other, dalvik_other, 0, 0, 0},
      {"Stack", m.stack_kb, m.stack_kb, 0, 0, 0},
      {".so mmap", so + shared / 2, so / 4, so - so / 4, 0, 0},
      {".apk mmap", shared / 4, 0, 0, 0, 0},
      {".dex mmap", dex, 0, dex, 0, 0},
      {".oat mmap", oat + (shared - shared / 2 - shared / 4), 0, oat, 0, 0},
      {".art mmap", art, art, 0, 0, 0},
      {"EGL mtrack", egl, egl, 0, 0, 0},
      {"GL mtrack", gl, gl, 0, 0, 0},
      {"Unknown", unknown, unknown, 0, 0, 0},
  };
  TableRow total{"TOTAL"};
  for (TableRow& row : rows) {
    // Rss: the pages resident, shared ones whole (Pss divides them): half again the Pss.
    row.rss = row.pss + row.pss / 2;
    total.pss += row.pss;
    total.private_dirty += row.private_dirty;
    total.private_clean += row.private_clean;
    total.swap_pss += row.swap_pss;
    total.rss += row.rss;
  }
  total.pss += total.swap_pss;  // MemoryInfo.getTotalPss counts the swapped-out Pss
  const long native_size = m.native_heap_kb * 4 / 3;
  const long dalvik_size = dalvik * 2;

  std::string out = "Applications Memory Usage (in Kilobytes):\n";
  out += "Uptime: " + N(uptime_ms) + " Realtime: " + N(realtime_ms) + "\n";
  out += "\n** MEMINFO in pid " + N(process.pid) + " [" + process.package + "] **\n";
  if (rss) {
    out += Row(13, {"", "Pss", "Private", "Private", "SwapPss", "Rss", "Heap", "Heap", "Heap"});
    out += Row(13, {"", "Total", "Dirty", "Clean", "Dirty", "Total", "Size", "Alloc", "Free"});
    out += Row(
        13, {"", "------", "------", "------", "------", "------", "------", "------", "------"});
  } else {
    out += Row(13, {"", "Pss", "Private", "Private", "SwapPss", "Heap", "Heap", "Heap"});
    out += Row(13, {"", "Total", "Dirty", "Clean", "Dirty", "Size", "Alloc", "Free"});
    out += Row(13, {"", "------", "------", "------", "------", "------", "------", "------"});
  }
  auto table_row = [&](const TableRow& row, const std::string& size, const std::string& alloc,
                       const std::string& free) {
    if (rss) {
      out += Row(13, {row.label, N(row.pss), N(row.private_dirty), N(row.private_clean),
                      N(row.swap_pss), N(row.rss), size, alloc, free});
    } else {
      out += Row(13, {row.label, N(row.pss), N(row.private_dirty), N(row.private_clean),
                      N(row.swap_pss), size, alloc, free});
    }
  };
  table_row(rows[0], N(native_size), N(m.native_heap_kb), N(native_size - m.native_heap_kb));
  table_row(rows[1], N(dalvik_size), N(dalvik), N(dalvik_size - dalvik));
  for (std::size_t i = 2; i < rows.size(); ++i) table_row(rows[i], "", "", "");
  table_row(total, N(native_size + dalvik_size), N(m.native_heap_kb + dalvik),
            N(native_size - m.native_heap_kb + dalvik_size - dalvik));

  const long system = total.pss - m.java_heap_kb - m.native_heap_kb - m.code_kb - m.stack_kb -
                      m.graphics_kb - m.private_other_kb;
  out += " \n App Summary\n";
  if (rss) {
    const long java_rss = rows[1].rss + rows[8].rss;
    const long code_rss = rows[4].rss + rows[5].rss + rows[6].rss + rows[7].rss;
    const long graphics_rss = rows[9].rss + rows[10].rss;
    const long unknown_rss =
        total.rss - java_rss - rows[0].rss - code_rss - rows[3].rss - graphics_rss;
    out += Pairs({{"", "Pss(KB)"}, {"", "Rss(KB)"}});
    out += Pairs({{"", "------"}, {"", "------"}});
    out += Pairs({{"Java Heap:", N(m.java_heap_kb)}, {"", N(java_rss)}});
    out += Pairs({{"Native Heap:", N(m.native_heap_kb)}, {"", N(rows[0].rss)}});
    out += Pairs({{"Code:", N(m.code_kb)}, {"", N(code_rss)}});
    out += Pairs({{"Stack:", N(m.stack_kb)}, {"", N(rows[3].rss)}});
    out += Pairs({{"Graphics:", N(m.graphics_kb)}, {"", N(graphics_rss)}});
    out += Pairs({{"Private Other:", N(m.private_other_kb)}});
    out += Pairs({{"System:", N(system)}});
    out += Pairs({{"Unknown:", ""}, {"", N(unknown_rss)}});
    out += " \n";
    out += Pairs({{"TOTAL PSS:", N(total.pss)},
                  {"TOTAL RSS:", N(total.rss)},
                  {"TOTAL SWAP PSS:", N(total.swap_pss)}});
  } else {
    out += Pairs({{"", "Pss(KB)"}});
    out += Pairs({{"", "------"}});
    out += Pairs({{"Java Heap:", N(m.java_heap_kb)}});
    out += Pairs({{"Native Heap:", N(m.native_heap_kb)}});
    out += Pairs({{"Code:", N(m.code_kb)}});
    out += Pairs({{"Stack:", N(m.stack_kb)}});
    out += Pairs({{"Graphics:", N(m.graphics_kb)}});
    out += Pairs({{"Private Other:", N(m.private_other_kb)}});
    out += Pairs({{"System:", N(system)}});
    out += " \n";
    out += Pairs({{"TOTAL:", N(total.pss)}, {"TOTAL SWAP PSS:", N(total.swap_pss)}});
  }
  out += " \n Objects\n";
  out += Pairs({{"Views:", N(m.views)}, {"ViewRootImpl:", N(m.view_root_impl)}});
  out += Pairs({{"AppContexts:", N(m.app_contexts)}, {"Activities:", N(process.activities)}});
  out += Pairs({{"Assets:", "10"}, {"AssetManagers:", "0"}});
  out += Pairs({{"Local Binders:", "16"}, {"Proxy Binders:", "33"}});
  out += Pairs({{"Parcel memory:", "4"}, {"Parcel count:", "19"}});
  out += Pairs({{"Death Recipients:", "1"}, {"OpenSSL Sockets:", "0"}});
  out += Pairs({{"WebViews:", "0"}});
  out += " \n SQL\n";
  out += Pairs({{"MEMORY_USED:", "0"}});
  out += Pairs({{"PAGECACHE_OVERFLOW:", "0"}, {"MALLOC_SIZE:", "0"}});
  out += " \n";
  return out;
}

}  // namespace droidlab::devsim
