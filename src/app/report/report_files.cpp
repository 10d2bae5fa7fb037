#include "app/report/report_files.hpp"

#include <filesystem>

#include "core/error.hpp"

namespace cctune::app::report {

std::vector<std::string> resolve_results_paths(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const auto& a : args) {
    std::error_code ec;
    if (!std::filesystem::is_directory(a, ec)) {
      out.push_back(a);
      continue;
    }
    const auto p = std::filesystem::path(a) / "results.json";
    if (!std::filesystem::exists(p, ec))
      throw UsageError(a + " is a directory without results.json", "pass the results.json written by cctune sweep -o DIR");
    out.push_back(p.string());
  }
  return out;
}

}  // namespace cctune::app::report
