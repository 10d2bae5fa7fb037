#include "app/cli/version_info.hpp"

#include <filesystem>

#include "app/cli/build_info.hpp"
#include "comm/mpi_rank_comm.hpp"
#include "runtime/module_loader.hpp"
#include "runtime/query.hpp"
#include "runtime/worker_process.hpp"
#include "tuner/export/outputs.hpp"
#include "tuner/space/space.hpp"

namespace cctune::app {
namespace {

namespace fs = std::filesystem;

std::string temp_dir() {
  std::error_code ec;
  const auto d = fs::temp_directory_path(ec);
  return ec ? std::string("/tmp") : d.string();
}

std::string first_existing_dir(const std::vector<std::string>& dirs) {
  for (const auto& d : dirs) {
    std::error_code ec;
    if (fs::is_directory(d, ec)) return fs::weakly_canonical(d, ec).string();
  }
  return "not found";
}

}  // namespace

std::string version_text(const std::string& executable) {
  std::string text = std::string("cctune ") + CCTUNE_VERSION + " (" + build_git_sha() + ")\n";
  const auto rt = runtime::query_versions(executable, runtime::current_environment(), temp_dir());
  text += "NCCL    " + rt.nccl + "\n";
  text += "CUDA    " + rt.cuda + "\n";
  // MPI_Get_library_version may be called before MPI_Init (MPI 3.0, section 8.1.1).
  text += "MPI     " + MpiRuntime::library_version() + "\n";
  text += "module  " + (rt.module_path.empty() ? runtime::nccl_module_path(executable) + " (not loaded)" : rt.module_path) + "\n";
  bool plugin_found = false;
  const std::string plugin = tuner::find_tuner_plugin(executable, &plugin_found);
  text += "plugin  " + (plugin_found ? plugin : "not found (looked for " + plugin + ")") + "\n";
  text += "spaces  " + first_existing_dir(tuner::default_space_dirs(executable));
  return text;
}

}  // namespace cctune::app
