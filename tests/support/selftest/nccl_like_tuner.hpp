#pragma once
// The selftest's stand-in for NCCL's side of the tuner-plugin interface: it finds the plugin
// as NCCL 2.28 does (NCCL_TUNER_PLUGIN=STATIC_PLUGIN: ncclTunerPlugin_v5 in the process
// itself, i.e. the cctune executable; a path: that library; unset: no plugin), calls its
// init once per communicator, and before every operation of a collective NCCL asks the
// tuner about, hands it an NCCL-like cost table and runs the cheapest entry >= 0 with the
// channel count the plugin returned. So the sweep control (TunedBackend + SweepControl)
// steers the selftest exactly as it steers NCCL.
#include <optional>

#include "core/algo_proto.hpp"
#include "core/collective.hpp"
#include "tuner/plugin/nccl_tuner_abi.hpp"

namespace cctune::selftest {

// What one operation ran. channels: the plugin's count, 0 when it left NCCL's own.
struct Ran {
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;
  int channels = 0;
};

class NcclLikeTuner {
 public:
  // Loads and initialises the plugin NCCL_TUNER_PLUGIN names; a plugin that cannot be
  // loaded is reported on stderr and NCCL's own choices are used, as NCCL does.
  NcclLikeTuner(int nranks, int nnodes);
  ~NcclLikeTuner();
  NcclLikeTuner(const NcclLikeTuner&) = delete;
  NcclLikeTuner& operator=(const NcclLikeTuner&) = delete;

  // One operation. nullopt for what NCCL never asks the tuner about (one rank, which NCCL
  // runs as a copy, and the point-to-point collectives).
  std::optional<Ran> operation(Collective c, std::uint64_t bytes);

 private:
  const nccl_abi::TunerV5* plugin_ = nullptr;
  void* context_ = nullptr;
  int nranks_ = 1;
};

}  // namespace cctune::selftest
