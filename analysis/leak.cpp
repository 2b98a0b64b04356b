#include "analysis/leak.h"

#include <vector>

namespace droidlab::analysis {

namespace {

struct Point {
  double x = 0;
  int64_t y = 0;
};

// Ordinary least squares slope of y on x; 0 when all x are equal.
double Slope(const std::vector<Point>& points) {
  double mean_x = 0, mean_y = 0;
  for (const Point& p : points) {
    mean_x += p.x;
    mean_y += static_cast<double>(p.y);
  }
  mean_x /= static_cast<double>(points.size());
  mean_y /= static_cast<double>(points.size());
  double sxy = 0, sxx = 0;
  for (const Point& p : points) {
    sxy += (p.x - mean_x) * (static_cast<double>(p.y) - mean_y);
    sxx += (p.x - mean_x) * (p.x - mean_x);
  }
  return sxx > 0 ? sxy / sxx : 0;
}

std::optional<LeakSuspicion> Judge(std::span<const MemoryCounts> stretch, const char* metric,
                                   std::optional<int64_t> MemoryCounts::*field,
                                   const LeakRule& rule) {
  std::vector<Point> points;
  for (const MemoryCounts& c : stretch) {
    if (!(c.*field)) return std::nullopt;  // a version without the count: nothing to say
    if (!points.empty() && *(c.*field) < points.back().y) return std::nullopt;  // released
    points.push_back({static_cast<double>(c.iteration), *(c.*field)});
  }
  if (points.size() < rule.min_iterations) return std::nullopt;
  const int64_t rise = points.back().y - points.front().y;
  const double slope = Slope(points);
  if (rise < rule.min_rise || !(slope > rule.min_slope)) return std::nullopt;
  LeakSuspicion s;
  s.metric = metric;
  s.from = points.front().y;
  s.to = points.back().y;
  s.slope_per_iteration = slope;
  s.first_iteration = stretch.front().iteration;
  s.last_iteration = stretch.back().iteration;
  s.pid = stretch.front().pid;
  return s;
}

}  // namespace

LeakVerdict CheckActivityLeak(std::span<const MemoryCounts> iterations, const LeakRule& rule) {
  // The longest stretch of consecutive iterations of one pid; the latest of equal ones.
  size_t best_begin = 0, best_size = 0;
  for (size_t begin = 0; begin < iterations.size();) {
    size_t end = begin + 1;
    while (end < iterations.size() && iterations[end].pid == iterations[begin].pid) ++end;
    if (end - begin >= best_size) {
      best_begin = begin;
      best_size = end - begin;
    }
    begin = end;
  }
  LeakVerdict verdict;
  if (best_size < rule.min_iterations || best_size < 2) return verdict;  // not applicable
  const auto stretch = iterations.subspan(best_begin, best_size);
  verdict.check = LeakCheck::kNoLeak;
  for (const auto& [metric, field] : {std::pair{"activities", &MemoryCounts::activities},
                                      std::pair{"view_root_impl", &MemoryCounts::view_root_impl},
                                      std::pair{"app_contexts", &MemoryCounts::app_contexts}}) {
    if (auto s = Judge(stretch, metric, field, rule)) {
      verdict.check = LeakCheck::kSuspected;
      verdict.suspected = std::move(s);
      break;
    }
  }
  return verdict;
}

const char* LeakCheckName(LeakCheck check) {
  switch (check) {
    case LeakCheck::kNotApplicable:
      return "not_applicable";
    case LeakCheck::kNoLeak:
      return "no_leak";
    case LeakCheck::kSuspected:
      return "suspected";
  }
  return "not_applicable";
}

}  // namespace droidlab::analysis
