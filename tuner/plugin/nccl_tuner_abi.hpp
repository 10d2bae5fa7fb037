#pragma once
// cctune's own declarations of NCCL's tuner plugin interface, so the plugin builds without
// NCCL headers. Layouts and calling conventions follow NCCL's tuner_v3.h/tuner_v4.h/
// tuner_v5.h (NCCL 2.28 looks up ncclTunerPlugin_v5 first, then v4, v3, v2). Only the
// layout must match NCCL: names are ours. ncclResult_t, ncclFunc_t and the log level are
// C enums, passed as int on every ABI NCCL supports.
#include <cstddef>
#include <cstdint>

namespace cctune::nccl_abi {

using Result = int;  // ncclResult_t
inline constexpr Result kSuccess = 0;
inline constexpr Result kInternalError = 3;

// ncclFunc_t values of the collectives a tuner is asked about.
inline constexpr int kFuncBroadcast = 0;
inline constexpr int kFuncReduce = 1;
inline constexpr int kFuncAllGather = 2;
inline constexpr int kFuncReduceScatter = 3;
inline constexpr int kFuncAllReduce = 4;

// ncclDebugLogLevel and ncclDebugLogSubSys values used by the plugin.
inline constexpr int kLogWarn = 2;
inline constexpr int kLogInfo = 3;
inline constexpr unsigned long kSubsysInit = 0x1;
inline constexpr unsigned long kSubsysTuning = 0x40;

// NCCL's logger: printf-style, filtered by NCCL_DEBUG / NCCL_DEBUG_SUBSYS.
using Logger = void (*)(int level, unsigned long flags, const char* file, int line, const char* fmt, ...);

// The cost table is float[numAlgo][numProto], row-major, passed as float**; entries NCCL
// cannot run are -1.0 (NCCL_ALGO_PROTO_IGNORE). NCCL picks the smallest entry >= 0.
inline constexpr float kIgnoreCost = -1.0f;

// v5 (NCCL 2.27, 2.28).
struct NvlDomainInfoV5 {
  int nvl_domain_count;
  int min_ranks_per_nvl_domain;
  int max_ranks_per_nvl_domain;
};

// Model constants NCCL lets a v5 tuner adjust at init; cctune leaves them as they are.
struct TunerConstantsV5 {
  double base_latencies[7][3];         // [algorithm][protocol]
  double hw_latencies[3][7][3];        // [link: nvlink, pci, net][algorithm][protocol]
  double ll_max_bws[4][3];             // [compute capability class][tuning scale]
  double per_ch_max_ring_ll128_bws[4][3];
  double per_ch_max_tree_ll128_bws[4][3];
  double per_ch_max_tree_bws[4][3];
  double per_ch_max_nvls_tree_bws[4][3];
};

using GetCollInfoFn = Result (*)(void* context, int coll_type, std::size_t n_bytes, int num_pipe_ops, float** cost_table,
                                 int num_algo, int num_proto, int reg_buff, int* n_channels);

struct TunerV5 {
  const char* name;
  Result (*init)(void** context, std::uint64_t comm_id, std::size_t n_ranks, std::size_t n_nodes, Logger log,
                 NvlDomainInfoV5* nvl_domain_info, TunerConstantsV5* constants);
  GetCollInfoFn get_coll_info;
  Result (*finalize)(void* context);
};

// v4 (NCCL 2.23-2.26): init without communicator id and constants; destroy instead of finalize.
struct TunerV4 {
  const char* name;
  Result (*init)(std::size_t n_ranks, std::size_t n_nodes, Logger log, void** context);
  GetCollInfoFn get_coll_info;
  Result (*destroy)(void* context);
};

// v3 (NCCL 2.22): as v4 but getCollInfo has no regBuff argument.
struct TunerV3 {
  const char* name;
  Result (*init)(std::size_t n_ranks, std::size_t n_nodes, Logger log, void** context);
  Result (*get_coll_info)(void* context, int coll_type, std::size_t n_bytes, int num_pipe_ops, float** cost_table,
                          int num_algo, int num_proto, int* n_channels);
  Result (*destroy)(void* context);
};

}  // namespace cctune::nccl_abi

// The symbols NCCL looks up (dlsym) in the plugin library, or in the executable itself
// with NCCL_TUNER_PLUGIN=STATIC_PLUGIN. Default visibility even though the plugin is built
// with hidden visibility: these three are all it exports.
#define CCTUNE_TUNER_EXPORT __attribute__((visibility("default")))
extern "C" {
CCTUNE_TUNER_EXPORT extern const cctune::nccl_abi::TunerV5 ncclTunerPlugin_v5;
CCTUNE_TUNER_EXPORT extern const cctune::nccl_abi::TunerV4 ncclTunerPlugin_v4;
CCTUNE_TUNER_EXPORT extern const cctune::nccl_abi::TunerV3 ncclTunerPlugin_v3;
}
