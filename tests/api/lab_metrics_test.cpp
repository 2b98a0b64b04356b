// The /metrics histograms (api/lab_metrics.h) in Prometheus' text exposition format 0.0.4:
// cumulative `le` buckets ending in +Inf, _sum and _count, label values escaped.
#include "api/lab_metrics.h"

#include <gtest/gtest.h>

namespace droidlab::api {
namespace {

TEST(LabMetricsTest, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  Histogram h({0.1, 0.5, 1});
  for (double v : {0.05, 0.1, 0.3, 0.7, 2.0}) h.Observe(v);
  std::string out;
  h.AppendExposition(out, "x_seconds", "a=\"b\"");
  EXPECT_EQ(out,
            "x_seconds_bucket{a=\"b\",le=\"0.1\"} 2\n"
            "x_seconds_bucket{a=\"b\",le=\"0.5\"} 3\n"
            "x_seconds_bucket{a=\"b\",le=\"1\"} 4\n"
            "x_seconds_bucket{a=\"b\",le=\"+Inf\"} 5\n"
            "x_seconds_sum{a=\"b\"} 3.15\n"
            "x_seconds_count{a=\"b\"} 5\n");
}

TEST(LabMetricsTest, LaunchesByPackageAndModelAdbByCommand) {
  LabMetrics m;
  EXPECT_EQ(m.Exposition().find("_bucket"), std::string::npos);  // headers only
  m.ObserveLaunch("com.example.app", "Pixel 7", 180);
  m.ObserveLaunch("com.example.app", "Pixel 7", 220);
  m.ObserveLaunch("com.example.app", "SM-\"A52\"\\5G\n", 900);
  m.ObserveAdbCommand("shell", 0.0007);
  const std::string text = m.Exposition();
  EXPECT_NE(text.find("# TYPE droidlab_launch_displayed_seconds histogram\n"), std::string::npos);
  EXPECT_NE(text.find("droidlab_launch_displayed_seconds_bucket{package=\"com.example.app\","
                      "model=\"Pixel 7\",le=\"0.2\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("droidlab_launch_displayed_seconds_count{package=\"com.example.app\","
                      "model=\"Pixel 7\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("model=\"SM-\\\"A52\\\"\\\\5G\\n\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("droidlab_adb_command_duration_seconds_bucket{command=\"shell\","
                      "le=\"0.001\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("droidlab_adb_command_duration_seconds_bucket{command=\"shell\","
                      "le=\"0.0005\"} 0\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace droidlab::api
