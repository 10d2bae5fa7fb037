#include "selftest/nccl_like_tuner.hpp"

#include <dlfcn.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tuner/plugin/cost_table.hpp"

namespace cctune::selftest {
namespace {

void log_to_stderr(int level, unsigned long, const char*, int, const char* fmt, ...) {
  if (level > nccl_abi::kLogWarn) return;
  va_list args;
  va_start(args, fmt);
  std::fprintf(stderr, "selftest NCCL WARN ");
  std::vfprintf(stderr, fmt, args);
  std::fprintf(stderr, "\n");
  va_end(args);
}

const nccl_abi::TunerV5* find_plugin() {
  const char* name = std::getenv("NCCL_TUNER_PLUGIN");
  if (!name || !*name) return nullptr;
  const std::string what(name);
  void* handle = what == "STATIC_PLUGIN" ? ::dlopen(nullptr, RTLD_NOW) : ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
  void* symbol = handle ? ::dlsym(handle, "ncclTunerPlugin_v5") : nullptr;
  if (!symbol) std::fprintf(stderr, "selftest NCCL WARN: no tuner plugin v5 in %s; using internal tuning\n", name);
  return static_cast<const nccl_abi::TunerV5*>(symbol);
}

// ncclFunc_t of the collectives NCCL asks the tuner about; -1 for the others.
int nccl_func(Collective c) {
  switch (c) {
    case Collective::Broadcast: return nccl_abi::kFuncBroadcast;
    case Collective::Reduce: return nccl_abi::kFuncReduce;
    case Collective::AllGather: return nccl_abi::kFuncAllGather;
    case Collective::ReduceScatter: return nccl_abi::kFuncReduceScatter;
    case Collective::AllReduce: return nccl_abi::kFuncAllReduce;
    default: return -1;
  }
}

// Shaped like NCCL's on one node: LL cheapest when small, Simple when large; Tree only for
// allreduce, PAT only for allgather/reducescatter, broadcast/reduce only on rings; NVLS and
// CollNet never offered.
void fill_costs(Collective c, std::uint64_t bytes, float* table) {
  for (int i = 0; i < kAlgorithmCount * kProtocolCount; ++i) table[i] = nccl_abi::kIgnoreCost;
  const bool small = bytes < 65536;
  const auto set = [&](Algorithm a, Protocol p, float small_us, float large_us) {
    table[static_cast<int>(a) * kProtocolCount + static_cast<int>(p)] = small ? small_us : large_us;
  };
  set(Algorithm::Ring, Protocol::LL, 5, 50);
  set(Algorithm::Ring, Protocol::LL128, 7, 30);
  set(Algorithm::Ring, Protocol::Simple, 12, 20);
  if (c == Collective::AllReduce) {
    set(Algorithm::Tree, Protocol::LL, 6, 60);
    set(Algorithm::Tree, Protocol::LL128, 8, 35);
    set(Algorithm::Tree, Protocol::Simple, 14, 25);
  } else if (c == Collective::AllGather || c == Collective::ReduceScatter) {
    set(Algorithm::Pat, Protocol::Simple, 9, 40);
  }
}

}  // namespace

NcclLikeTuner::NcclLikeTuner(int nranks, int nnodes) : nranks_(nranks) {
  if (nranks < 2) return;  // NCCL loads no tuner for a communicator it runs as a copy
  plugin_ = find_plugin();
  if (plugin_ && plugin_->init(&context_, 0, static_cast<std::size_t>(nranks), static_cast<std::size_t>(nnodes), log_to_stderr,
                               nullptr, nullptr) != nccl_abi::kSuccess)
    plugin_ = nullptr;
}

NcclLikeTuner::~NcclLikeTuner() {
  if (plugin_) plugin_->finalize(context_);
}

std::optional<Ran> NcclLikeTuner::operation(Collective c, std::uint64_t bytes) {
  const int func = nccl_func(c);
  if (nranks_ < 2 || func < 0) return std::nullopt;
  float table[kAlgorithmCount * kProtocolCount];
  fill_costs(c, bytes, table);
  int channels = 0;
  if (plugin_)
    plugin_->get_coll_info(context_, func, bytes, 1, reinterpret_cast<float**>(table), kAlgorithmCount, kProtocolCount, 0,
                           &channels);
  const auto pick = tuner::CostTable(table, kAlgorithmCount, kProtocolCount).cheapest();
  if (!pick) return std::nullopt;  // NCCL would fail the call; the plugin never empties the table
  return Ran{static_cast<Algorithm>(pick->algorithm), static_cast<Protocol>(pick->protocol), channels};
}

}  // namespace cctune::selftest
