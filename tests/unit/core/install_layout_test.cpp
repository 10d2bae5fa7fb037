#include "core/install_layout.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace cctune;

namespace {

// A fresh tree under the system temp dir, removed at the end of the test.
struct TempTree {
  fs::path root = fs::temp_directory_path() / ("cctune_layout_" + std::to_string(::getpid()));
  TempTree() { fs::remove_all(root); fs::create_directories(root / "bin"); }
  ~TempTree() { fs::remove_all(root); }
  void touch(const fs::path& rel) const {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << "x";
  }
};

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

TEST(InstallLayout, InstalledTreeFindsLibUnderPrefix) {
  TempTree t;
  t.touch("lib/libx.so");
  const auto found = find_installed_library((t.root / "bin" / "cctune").string(), "libx.so");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(fs::weakly_canonical(*found), fs::weakly_canonical(t.root / "lib" / "libx.so"));
}

TEST(InstallLayout, BuildTreeLibFolderComesFirst) {
  TempTree t;
  t.touch("bin/lib/libx.so");
  t.touch("lib/libx.so");
  const auto found = find_installed_library((t.root / "bin" / "cctune").string(), "libx.so");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(*found, t.root / "bin" / "lib" / "libx.so");
}

TEST(InstallLayout, MissingLibraryIsNulloptAndCandidatesNameWhereItWasLooked) {
  TempTree t;
  const std::string exe = (t.root / "bin" / "cctune").string();
  EXPECT_FALSE(find_installed_library(exe, "libx.so").has_value());
  const auto c = library_candidates(exe, "libx.so");
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0], t.root / "bin" / "lib" / "libx.so");
}

TEST(InstallLayout, InstalledTreeUsesItsShareAndNotTheCheckout) {
  TempTree t;
  fs::create_directories(t.root / "share" / "cctune" / "spaces");
  const auto dirs = data_dirs((t.root / "bin" / "cctune").string(), "spaces");
  ASSERT_FALSE(dirs.empty());
  EXPECT_EQ(dirs[0], (t.root / "share" / "cctune" / "spaces").string());
  EXPECT_FALSE(contains(dirs, (fs::path(CCTUNE_SOURCE_DIR) / "configs" / "spaces").string()));
}

TEST(InstallLayout, BuildTreeFallsBackToTheCheckout) {
  TempTree t;
  const auto dirs = data_dirs((t.root / "bin" / "cctune").string(), "spaces");
  EXPECT_EQ(dirs.back(), (fs::path(CCTUNE_SOURCE_DIR) / "configs" / "spaces").string());
}
