#include "runtime/module_loader.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"
#include "core/install_layout.hpp"

namespace cctune::runtime {

std::string nccl_module_path(const std::string& executable) {
  if (const char* p = std::getenv("CCTUNE_NCCL_MODULE"); p && *p) return p;
  constexpr const char* kModule = "libcctune-nccl.so";
  if (const auto found = find_installed_library(executable, kModule)) return found->lexically_normal().string();
  return (std::filesystem::path(executable).parent_path() / kModule).string();  // dlerror() will name it
}

std::unique_ptr<NcclModule> load_nccl_module(const std::string& path) {
  const std::string fix = "install NCCL or add its lib directory to LD_LIBRARY_PATH (CCTUNE_NCCL_MODULE names the module itself)";
  // RTLD_LOCAL: the module's NCCL and CUDA symbols stay out of the executable's namespace.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = ::dlerror();
    throw EnvironmentError(std::string("NCCL backend could not be loaded: ") + (err ? err : path.c_str()), fix);
  }
  auto create = reinterpret_cast<NcclModuleCreateFn>(::dlsym(handle, nccl_module_create_symbol));
  if (!create)
    throw EnvironmentError("NCCL backend could not be loaded: " + path + " has no " + nccl_module_create_symbol,
                           "rebuild cctune so that the module and the executable match");
  NcclModule* m = create();
  if (!m) throw EnvironmentError("NCCL backend could not be loaded: " + path + " returned no module", fix);
  return std::unique_ptr<NcclModule>(m);
}

std::unique_ptr<NcclModule> load_worker_module(const std::string& executable) {
  return load_nccl_module(nccl_module_path(executable));
}

}  // namespace cctune::runtime
