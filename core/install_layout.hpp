#pragma once
// Where cctune's pieces lie relative to its own executable, in the two layouts it runs from:
//   installed (or relocated) tree   <prefix>/bin/cctune, <prefix>/lib/*.so, <prefix>/share/cctune/
//   build tree                      build/cctune, build/*.so, build/lib/*.so; data in the checkout
// The one place that knows these layouts (cmake/CctuneInstall.cmake writes the first).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace cctune {

// The first existing file named FILE_NAME among <exe dir>/lib, <exe dir>/../lib and
// <exe dir>; nullopt when none exists.
std::optional<std::filesystem::path> find_installed_library(const std::string& executable, const std::string& file_name);

// The places a library named FILE_NAME is looked for, in order (what an error names).
std::vector<std::filesystem::path> library_candidates(const std::string& executable, const std::string& file_name);

// The folders that may hold the data folder NAME (e.g. "spaces"), in order:
// <exe dir>/../share/cctune/NAME, <exe dir>/../configs/NAME, and, only when the first does not
// exist (a build tree, not an installed one), the build host's checkout configs/NAME.
std::vector<std::string> data_dirs(const std::string& executable, const std::string& name);

}  // namespace cctune
