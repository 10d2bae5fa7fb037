#include "tuner/plugin/production_profile.hpp"

#include <dlfcn.h>

#include <cstdlib>

namespace cctune::tuner {

ProductionProfile load_production_profile(const std::string& path, const RuntimeFacts& facts) {
  ProductionProfile result;
  result.path = path;
  result.facts = facts;
  if (path.empty()) return result;
  ProfileResult loaded = load_profile(path);
  if (!loaded.profile) {
    result.problem = loaded.error;
    return result;
  }
  std::string mismatch = check_compatibility(loaded.profile->provenance, facts);
  if (!mismatch.empty()) {
    result.problem = "profile " + path + ": " + mismatch;
    return result;
  }
  result.profile = std::move(loaded.profile);
  return result;
}

int loaded_nccl_version_code() noexcept {
  using GetVersion = int (*)(int*);  // ncclResult_t ncclGetVersion(int* version)
  int version = 0;
  // Usually libnccl is already in the global namespace (linked by the program).
  if (auto fn = reinterpret_cast<GetVersion>(dlsym(RTLD_DEFAULT, "ncclGetVersion"))) {
    if (fn(&version) == 0) return version;
    return 0;
  }
  // Loaded with RTLD_LOCAL (Python extensions do this): ask for the loaded copy only.
  for (const char* name : {"libnccl.so.2", "libnccl.so"}) {
    void* handle = dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
    if (!handle) continue;
    auto fn = reinterpret_cast<GetVersion>(dlsym(handle, "ncclGetVersion"));
    const bool ok = fn && fn(&version) == 0;
    dlclose(handle);
    if (ok) return version;
  }
  return 0;
}

TunerActivity& tuner_activity() noexcept {
  static TunerActivity* const activity = new TunerActivity;
  return *activity;
}

const ProductionProfile& production_profile() {
  // Never destroyed: the profiler half's last write (its production watch) runs among the
  // static destructors at exit, after a function-local static of its own would be gone.
  static const ProductionProfile* const loaded = [] {
    const char* path = std::getenv("CCTUNE_PROFILE");
    const char* fingerprint = std::getenv("CCTUNE_TOPOLOGY_FINGERPRINT");
    RuntimeFacts facts{loaded_nccl_version_code(), fingerprint ? fingerprint : ""};
    return new ProductionProfile(load_production_profile(path ? path : "", facts));
  }();
  return *loaded;
}

}  // namespace cctune::tuner
