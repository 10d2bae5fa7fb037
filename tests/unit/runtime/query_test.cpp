// Issue 15 item 11: the query's log was /tmp/cctune-query.<pid>.out, opened without
// O_EXCL/O_NOFOLLOW; a symlink planted there made the worker append to its target.
#include "runtime/query.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace cctune::runtime {
namespace {

namespace fs = std::filesystem;

TEST(Query, LogNeverFollowsAPlantedSymlink) {
  std::string pattern = (fs::temp_directory_path() / "cctune-qt-XXXXXX").string();
  const fs::path dir = ::mkdtemp(pattern.data());
  const fs::path victim = dir / "victim";
  std::ofstream(victim) << "precious";
  fs::create_symlink(victim, dir / ("cctune-query." + std::to_string(::getpid()) + ".out"));
  // /bin/sh stands in for the worker: it fails at once ("__worker: not found"), writing to the log.
  EXPECT_THROW(query_gpus("/bin/sh", {{"PATH", "/usr/bin:/bin"}}, dir.string(), 10), Error);
  std::ifstream in(victim);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_EQ(s.str(), "precious");
  std::size_t left = 0;
  for (const auto& e : fs::directory_iterator(dir)) left += e.path().filename().string().rfind("cctune-query.", 0) == 0;
  EXPECT_EQ(left, 1u);  // only the planted link: the private directory is gone
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cctune::runtime
