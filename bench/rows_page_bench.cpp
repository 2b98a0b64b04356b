// A page of a run's proc samples (GET /api/v1/runs/{id}/proc-samples, issue 13 §1) beside the
// whole run in one body, as the route served it before it was paged.
//
// Seeds one run sampled every 10 ms for an hour (360,000 samples) through Store's writer, then
// times, each on the calling thread as a reader thread of the daemon does it: reading a page of
// 10,000 samples through Reader::PageProcSamples, mapping it with api::ProcSampleJson and
// serialising it with api::Dump — the first page and the last (keyset paging: the same cost) —
// and, as the reference, the whole run read, mapped and serialised at once. Also prints how long
// serialising alone takes for a page, the part that would run on the io thread if it were built
// there: why the route builds pages on a reader thread.
//
//   rows_page_bench [--samples N] [--rounds N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include "api/json.h"
#include "store/store.h"

namespace {

using namespace droidlab;  // NOLINT(google-build-using-namespace): a benchmark's main
using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

constexpr int64_t kPage = 10'000;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// The route's work for one page (or, with limit -1, the whole run): read, map, serialise.
size_t ServeRows(store::Store& st, int64_t run_id, const store::RowPageQuery& query,
                 std::string& next_cursor) {
  auto body = st.Read([&](store::Reader& r) -> store::StoreResult<std::string> {
    auto page = r.PageProcSamples(run_id, query);
    if (!page) return page.error();
    Json list = Json::array();
    for (const auto& s : page->rows) list.push_back(api::ProcSampleJson(s));
    Json out = Json::object();
    out["samples"] = std::move(list);
    out["next_cursor"] = nullptr;
    if (!page->next_cursor.empty()) out["next_cursor"] = page->next_cursor;
    next_cursor = page->next_cursor;
    return api::Dump(out);
  });
  if (!body) {
    std::fprintf(stderr, "rows_page_bench: %s\n", body.error().message.c_str());
    std::exit(1);
  }
  return body->size();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int64_t samples = 360'000;
  int rounds = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--samples") == 0) samples = std::atoll(argv[i + 1]);
    if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::atoi(argv[i + 1]);
  }
  const auto dir = std::filesystem::temp_directory_path() /
                   ("rows_page_bench." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    store::StoreOptions options;
    options.path = (dir / "bench.db").string();
    auto opened = store::Store::Open(options);
    if (!opened.ok()) {
      std::fprintf(stderr, "rows_page_bench: %s\n", opened.error().message.c_str());
      return 1;
    }
    store::Store& st = **opened;
    store::NewRun run;
    run.spec_json = "{}";
    run.serial = "bench";
    run.package = "com.bench";
    run.mode = "cold";
    run.iterations = 1;
    run.created_at = 1;
    const int64_t id = *st.CreateRun(run);
    for (int64_t done = 0; done < samples;) {
      std::vector<store::ProcSample> batch;
      for (; done < samples && batch.size() < 10'000; ++done) {
        store::ProcSample s;
        s.run_id = id;
        s.t_ms = 10 * done;
        s.pid = 4242;
        s.utime = done / 3;
        s.stime = done / 7;
        s.cpu_pct = 12.5;
        s.rss_kb = 150'000 + done % 1000;
        s.num_threads = 40;
        batch.push_back(s);
      }
      if (!st.AddProcSamples(std::move(batch)).ok()) return 1;
    }
    if (!st.Flush().ok()) return 1;

    // The last page's cursor: walk once.
    std::string cursor;
    std::string last_cursor;
    store::RowPageQuery walk;
    walk.limit = kPage;
    for (;;) {
      ServeRows(st, id, walk, cursor);
      if (cursor.empty()) break;
      last_cursor = cursor;
      walk.cursor = cursor;
    }

    std::vector<double> first_ms, last_ms, whole_ms, dump_ms;
    size_t page_bytes = 0, whole_bytes = 0;
    for (int round = 0; round < rounds; ++round) {
      store::RowPageQuery first;
      first.limit = kPage;
      auto t0 = Clock::now();
      page_bytes = ServeRows(st, id, first, cursor);
      first_ms.push_back(Ms(Clock::now() - t0));

      store::RowPageQuery last = first;
      last.cursor = last_cursor;
      t0 = Clock::now();
      ServeRows(st, id, last, cursor);
      last_ms.push_back(Ms(Clock::now() - t0));

      store::RowPageQuery whole;  // the reference: every sample in one body
      t0 = Clock::now();
      whole_bytes = ServeRows(st, id, whole, cursor);
      whole_ms.push_back(Ms(Clock::now() - t0));

      auto rows = st.Read([&](store::Reader& r) { return r.PageProcSamples(id, first); });
      Json list = Json::array();
      for (const auto& s : rows->rows) list.push_back(api::ProcSampleJson(s));
      const Json page = {{"samples", std::move(list)}};
      t0 = Clock::now();
      const std::string text = api::Dump(page);
      dump_ms.push_back(Ms(Clock::now() - t0));
    }
    const double first = Median(first_ms), last = Median(last_ms), whole = Median(whole_ms);
    std::printf("rows_page_bench: one run, %lld proc samples, median of %d rounds\n",
                static_cast<long long>(samples), rounds);
    std::printf("  first page (10,000 rows, %zu B): %8.2f ms\n", page_bytes, first);
    std::printf("  last page  (10,000 rows):          %8.2f ms  (last/first %.2f)\n", last,
                last / first);
    std::printf("  serialising a page alone:          %8.2f ms\n", Median(dump_ms));
    std::printf("  reference: the whole run in one body (%zu B): %8.2f ms\n", whole_bytes, whole);
    std::printf("  ratio page / whole run: %.3f\n", first / whole);
  }
  std::filesystem::remove_all(dir);
  return 0;
}
