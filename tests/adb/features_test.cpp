#include "adb/features.h"

#include <gtest/gtest.h>

namespace droidlab::adb {
namespace {

// packages/modules/adb transport.cpp StringToFeatureSet (split on ','); the list is what a
// Pixel on Android 14 answers to host-serial:SERIAL:features.
TEST(FeaturesTest, RealDeviceList) {
  FeatureSet f = ParseFeatures(
      "shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,apex,abb,fixed_push_symlink_timestamp,"
      "abb_exec,remount_shell,track_app,sendrecv_v2,sendrecv_v2_brotli,sendrecv_v2_lz4,"
      "sendrecv_v2_zstd,sendrecv_v2_dry_run_send,openscreen_mdns,push_sync");
  EXPECT_EQ(f.size(), 18u);
  EXPECT_TRUE(HasFeature(f, kFeatureShellV2));
  EXPECT_TRUE(HasFeature(f, kFeatureCmd));
  EXPECT_TRUE(HasFeature(f, kFeatureAbbExec));
  EXPECT_FALSE(HasFeature(f, "delayed_ack"));
}

TEST(FeaturesTest, EmptyPayloadIsEmptySet) {
  EXPECT_TRUE(ParseFeatures("").empty());
  EXPECT_FALSE(HasFeature(ParseFeatures(""), kFeatureShellV2));
}

TEST(FeaturesTest, WholeNamesOnly) {
  FeatureSet f = ParseFeatures("shell_v2x,xshell_v2,shell");
  EXPECT_FALSE(HasFeature(f, kFeatureShellV2));
  EXPECT_TRUE(HasFeature(f, "shell"));
}

TEST(FeaturesTest, EmptyItemsDropped) {
  EXPECT_EQ(ParseFeatures(",shell_v2,,cmd,"), (FeatureSet{"shell_v2", "cmd"}));
}

}  // namespace
}  // namespace droidlab::adb
