#pragma once
// A fresh directory under the system's temporary folder, removed with everything in it at
// the end of the test, and a whole-file reader for checking what was written there.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace cctune::testing {

struct TempDir {
  explicit TempDir(const std::string& prefix = "cctune-test") {
    std::string p = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    path = ::mkdtemp(p.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::filesystem::path path;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace cctune::testing
