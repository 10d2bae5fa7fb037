#pragma once
// NVML probe, loaded with dlopen at run time so cctune runs where there is no driver.
// Our own minimal declarations of the few NVML entry points used (nvml_api.hpp).
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace cctune::topo {

struct NvmlFacts {
  std::vector<Gpu> gpus;           // placement left empty: the hwloc probe fills it
  std::string driver;              // "580.159.04"
  std::string cuda_driver;         // "13.0"
  std::string absent_reason;       // non-empty when NVML could not be used
};

// Never throws for a missing library or driver: that is reported in absent_reason.
NvmlFacts probe_nvml(const std::string& library = "libnvidia-ml.so.1");

// Version of the libnccl.so.2 the dynamic loader finds ("2.28.9"), or empty with `reason`.
std::string probe_nccl_version(std::string& reason);

// Whether CUDA_VISIBLE_DEVICES (`cvd`, nullptr: unset) shows the GPU of NVML index `index` and
// UUID `uuid` to this process's CUDA, as CUDA reads it: a comma-separated list of indices or UUID
// prefixes ("GPU-8f2c..."); the list ends at the first entry that names no GPU ("-1": none).
// NVML itself sees every GPU of the machine: a node of a one-box cluster, or one without device
// cgroups, is given its GPUs this way, and its topology lists only those.
bool visible_to_cuda(const char* cvd, unsigned index, const std::string& uuid);

// Per-link NVLink speed (GB/s per direction) by NVML architecture id, for when NVML
// does not report it: Volta/Ampere 25, Hopper 26.5625, Blackwell 50. 0 when unknown.
double nvlink_speed_for_architecture(unsigned nvml_architecture);

}  // namespace cctune::topo
