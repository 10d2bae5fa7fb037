#include "core/install_layout.hpp"

namespace cctune {

namespace fs = std::filesystem;

std::vector<fs::path> library_candidates(const std::string& executable, const std::string& file_name) {
  const fs::path dir = fs::absolute(fs::path(executable)).parent_path();
  return {dir / "lib" / file_name, dir / ".." / "lib" / file_name, dir / file_name};
}

std::optional<fs::path> find_installed_library(const std::string& executable, const std::string& file_name) {
  for (const fs::path& p : library_candidates(executable, file_name)) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p;
  }
  return std::nullopt;
}

std::vector<std::string> data_dirs(const std::string& executable, const std::string& name) {
  std::vector<std::string> dirs;
  bool installed = false;
  if (!executable.empty()) {
    const fs::path exe_dir = fs::absolute(fs::path(executable)).parent_path();
    const fs::path share = (exe_dir / ".." / "share" / "cctune" / name).lexically_normal();
    std::error_code ec;
    installed = fs::is_directory(share, ec);
    dirs.push_back(share.string());
    dirs.push_back((exe_dir / ".." / "configs" / name).lexically_normal().string());
  }
  // The build host's checkout, for build trees only: an installed tree has its own data.
  if (!installed) dirs.push_back((fs::path(CCTUNE_SOURCE_DIR) / "configs" / name).string());
  return dirs;
}

}  // namespace cctune
