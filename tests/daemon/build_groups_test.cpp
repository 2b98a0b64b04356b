// `droidlab build add FILE…`: which files are one build (daemon/build_groups.h), on the APKs of
// tests/data/apk (README.md there: app_aapt2.apk is com.example.app 42, split_aapt2.apk and
// split_feature_aapt2.apk its splits, app_aapt2.dm its .dm, major_aapt2.apk another app).
#include "daemon/build_groups.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace droidlab::daemon {
namespace {

std::string Apk(const std::string& name) {
  return std::string(DROIDLAB_TEST_DATA_DIR) + "/apk/" + name;
}

TEST(BuildGroupsTest, OnePackageAndVersionCodeIsOneBuildWithItsDm) {
  auto groups =
      GroupBuildFiles({Apk("split_aapt2.apk"), Apk("app_aapt2.dm"), Apk("major_aapt2.apk"),
                       Apk("app_aapt2.apk"), Apk("split_feature_aapt2.apk")});
  ASSERT_TRUE(groups.ok()) << groups.error();
  ASSERT_EQ(groups->size(), 2u);
  EXPECT_EQ((*groups)[0],
            (std::vector<std::string>{Apk("split_aapt2.apk"), Apk("app_aapt2.apk"),
                                      Apk("split_feature_aapt2.apk"), Apk("app_aapt2.dm")}));
  EXPECT_EQ((*groups)[1], std::vector<std::string>{Apk("major_aapt2.apk")});
  EXPECT_EQ(JoinedNames((*groups)[0]),
            "split_aapt2.apk + app_aapt2.apk + split_feature_aapt2.apk + app_aapt2.dm");
}

TEST(BuildGroupsTest, AnotherVersionCodeIsAnotherBuild) {
  auto groups = GroupBuildFiles({Apk("app_aapt2.apk"), Apk("split_other_version_aapt2.apk")});
  ASSERT_TRUE(groups.ok()) << groups.error();
  EXPECT_EQ(groups->size(), 2u);
}

TEST(BuildGroupsTest, ADmWithoutItsApkIsSaidAFileThatIsNoApkGoesAlone) {
  auto lone = GroupBuildFiles({Apk("app_aapt.apk"), Apk("app_aapt2.dm")});
  ASSERT_FALSE(lone.ok());
  EXPECT_NE(lone.error().find("app_aapt2.dm: no APK of the same name"), std::string::npos)
      << lone.error();
  // The daemon says why it is no APK, as for any upload.
  auto text = GroupBuildFiles({Apk("app_aapt2.apk"), Apk("README.md"), Apk("split_aapt2.apk")});
  ASSERT_TRUE(text.ok()) << text.error();
  ASSERT_EQ(text->size(), 2u);
  EXPECT_EQ((*text)[1], std::vector<std::string>{Apk("README.md")});
}

}  // namespace
}  // namespace droidlab::daemon
