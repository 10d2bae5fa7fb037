#include "collectives/nccl/nccl_native.hpp"

#include <dlfcn.h>

#include "core/collective_traits.hpp"

namespace cctune::nccl_detail {
namespace {

// The library defining ncclGetVersion, reopened without loading anything (it is already
// mapped as our dependency), so that dlsym searches exactly it and not the global scope.
void* loaded_nccl() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&ncclGetVersion), &info) == 0 || info.dli_fname == nullptr) return nullptr;
  return dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
}

}  // namespace

std::string nccl_version_text(int code) {
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}

void* loaded_nccl_symbol(const char* name) {
  void* lib = loaded_nccl();
  if (!lib) return nullptr;
  void* found = dlsym(lib, name);
  dlclose(lib);  // only a reference count: the library stays mapped, the pointer valid
  return found;
}

bool NativeP2pCalls::has(Collective c) const noexcept {
  switch (c) {
    case Collective::AllToAll: return alltoall != nullptr;
    case Collective::Gather: return gather != nullptr;
    case Collective::Scatter: return scatter != nullptr;
    default: return false;
  }
}

NativeP2pCalls find_native_p2p_calls() {
  NativeP2pCalls calls;
  calls.alltoall = reinterpret_cast<NativeP2pCalls::AllToAllFn>(loaded_nccl_symbol("ncclAlltoAll"));
  calls.gather = reinterpret_cast<NativeP2pCalls::RootedFn>(loaded_nccl_symbol("ncclGather"));
  calls.scatter = reinterpret_cast<NativeP2pCalls::RootedFn>(loaded_nccl_symbol("ncclScatter"));
  return calls;
}

std::string native_absent_reason(Collective c, int nccl_version_code) {
  return std::string(traits(c).nccl_call) + " is absent from the loaded NCCL " + nccl_version_text(nccl_version_code) +
         " (NCCL 2.28 added it); the grouped send/recv variant is measured instead (--p2p-impl grouped)";
}

}  // namespace cctune::nccl_detail
