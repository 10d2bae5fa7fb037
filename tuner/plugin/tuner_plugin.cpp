// cctune's NCCL tuner plugin: the C entry points NCCL calls. Three behaviours, in order:
//  1. sweep (only inside cctune workers): SweepControl forces or observes each call;
//  2. production: the CCTUNE_PROFILE rules for this communicator's (nranks, nnodes);
//  3. otherwise nothing: NCCL keeps its own choices.
// Nothing here may take a job down: every entry point returns ncclSuccess (NCCL treats a
// failing init as a failed communicator), catches everything, and leaves NCCL's choice
// alone when in doubt. A bad profile is reported once per process through NCCL's logger.
#include <atomic>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/text.hpp"
#include "tuner/plugin/cost_table.hpp"
#include "tuner/plugin/nccl_func.hpp"
#include "tuner/plugin/nccl_tuner_abi.hpp"
#include "tuner/plugin/production_profile.hpp"
#include "tuner/plugin/sweep_control.hpp"
#include "tuner/profile/rule_table.hpp"

namespace cctune::tuner {
namespace {

using nccl_abi::Logger;
using nccl_abi::Result;

constexpr int kMaxTableSide = 64;  // sanity bound on numAlgo/numProto

struct PluginContext {
  std::size_t n_ranks = 0;
  std::size_t n_nodes = 0;
  Logger log = nullptr;
  RuleTable rules;
  std::vector<std::uint8_t> unsupported_noted;  // per profile rule: "unsupported here" logged
};

// Messages quote the profile (its path, nccl_version, schema): one line of NCCL's log, shown
// escaped (text::log_text) and capped, so a profile cannot forge log lines or flood them.
constexpr std::size_t max_log_line_bytes = 1024;

void log_line(Logger log, int level, const std::string& message) noexcept {
  if (!log) return;
  try {
    log(level, nccl_abi::kSubsysInit | nccl_abi::kSubsysTuning, __FILE__, __LINE__, "%s",
        text::log_text(message, max_log_line_bytes).c_str());
  } catch (...) {  // out of memory while escaping: the line is dropped, never NCCL's call
  }
}

// One warning per process, however many communicators are created.
void warn_once(Logger log, const std::string& message) noexcept {
  static std::atomic<bool> warned{false};
  if (log && !warned.exchange(true)) log_line(log, nccl_abi::kLogWarn, message);
}

Result init_common(void** context, std::size_t n_ranks, std::size_t n_nodes, Logger log) noexcept {
  if (!context) return nccl_abi::kSuccess;
  *context = nullptr;
  try {
    auto ctx = std::make_unique<PluginContext>();
    ctx->n_ranks = n_ranks;
    ctx->n_nodes = n_nodes;
    ctx->log = log;
    const ProductionProfile& production = production_profile();
    tuner_activity().communicators.fetch_add(1, std::memory_order_relaxed);
    if (production.profile && n_ranks <= INT_MAX && n_nodes <= INT_MAX) {
      ctx->rules = RuleTable::for_communicator(*production.profile, static_cast<int>(n_ranks), static_cast<int>(n_nodes));
      if (!ctx->rules.empty()) tuner_activity().with_rules.fetch_add(1, std::memory_order_relaxed);
      ctx->unsupported_noted.assign(production.profile->rules.size(), 0);
      log_line(log, nccl_abi::kLogInfo,
               "cctune tuner: profile " + production.path + ": " + std::to_string(ctx->rules.size()) + " of " +
                   std::to_string(production.profile->rules.size()) + " rules apply to nranks=" + std::to_string(n_ranks) +
                   " nnodes=" + std::to_string(n_nodes));
    } else if (!production.problem.empty()) {
      warn_once(log, "cctune tuner: not using the profile: " + production.problem + ". NCCL's own choices are used.");
    }
    *context = ctx.release();
  } catch (...) {
    warn_once(log, "cctune tuner: initialisation failed; NCCL's own choices are used.");
  }
  return nccl_abi::kSuccess;
}

// A profile's rules only won against the algorithms offered when they were measured. Where
// NCCL now offers another (NVLS in production, measured with NVLS off), the rule never
// competed against it: NCCL keeps its choice, and the process says why once per collective.
bool offers_unmeasured(const PluginContext& ctx, Collective collective, const CostTable& table) noexcept {
  const AlgorithmSet extra = table.offered() & ~ctx.rules.offered(collective);
  if (!extra) return false;
  static std::atomic<std::uint32_t> warned{0};
  const std::uint32_t bit = 1u << (static_cast<unsigned>(collective) & 31u);
  if (ctx.log && !(warned.fetch_or(bit) & bit)) {
    try {
      const std::string name(profile_collective_name(collective));
      log_line(ctx.log, nccl_abi::kLogWarn,
               "cctune tuner: NCCL offers " + join_algorithm_names(extra) + " for " + name +
                   " on this communicator, but the profile was measured where it was not offered, so its rules never "
                   "competed against it; " + name + " is left to NCCL's own choice (re-tune in this environment to include it)");
    } catch (...) {
    }
  }
  return true;
}

void apply_profile(PluginContext& ctx, int nccl_func, std::size_t n_bytes, float* cells, int num_algo, int num_proto,
                   int* n_channels) noexcept {
  if (ctx.rules.empty()) return;
  const auto collective = collective_from_nccl_func(nccl_func);
  if (!collective) return;
  const RuleChoice* rule = ctx.rules.find(*collective, n_bytes);
  if (!rule) return;
  CostTable table(cells, num_algo, num_proto);
  if (offers_unmeasured(ctx, *collective, table)) return;
  if (table.choose(static_cast<int>(rule->algorithm), static_cast<int>(rule->protocol))) {
    if (rule->channels > 0 && n_channels) *n_channels = rule->channels;
    tuner_activity().calls_steered.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  // NCCL cannot run the rule's choice for this call (e.g. another buffer registration or
  // an NCCL_ALGO restriction): NCCL chooses. Say so once per rule, at INFO level.
  if (rule->rule_index < ctx.unsupported_noted.size() && !ctx.unsupported_noted[rule->rule_index]) {
    ctx.unsupported_noted[rule->rule_index] = 1;
    try {
      log_line(ctx.log, nccl_abi::kLogInfo,
               "cctune tuner: profile rule " + std::to_string(rule->rule_index) + " (" +
                   algo_proto_name(rule->algorithm, rule->protocol) +
                   ") is unsupported for " + std::string(profile_collective_name(*collective)) + " of " +
                   std::to_string(n_bytes) + " bytes here; NCCL's choice is kept");
    } catch (...) {
    }
  }
}

Result get_coll_info(void* context, int coll_type, std::size_t n_bytes, int /*num_pipe_ops*/, float** cost_table,
                     int num_algo, int num_proto, int /*reg_buff*/, int* n_channels) noexcept {
  if (!cost_table || num_algo <= 0 || num_proto <= 0 || num_algo > kMaxTableSide || num_proto > kMaxTableSide)
    return nccl_abi::kSuccess;
  // NCCL passes its float[numAlgo][numProto] array cast to float**.
  float* cells = reinterpret_cast<float*>(cost_table);
  if (SweepControl::instance().on_get_coll_info(coll_type, n_bytes, cells, num_algo, num_proto, n_channels))
    return nccl_abi::kSuccess;
  if (context) apply_profile(*static_cast<PluginContext*>(context), coll_type, n_bytes, cells, num_algo, num_proto, n_channels);
  return nccl_abi::kSuccess;
}

Result get_coll_info_v3(void* context, int coll_type, std::size_t n_bytes, int num_pipe_ops, float** cost_table,
                        int num_algo, int num_proto, int* n_channels) noexcept {
  return get_coll_info(context, coll_type, n_bytes, num_pipe_ops, cost_table, num_algo, num_proto, 0, n_channels);
}

Result init_v5(void** context, std::uint64_t /*comm_id*/, std::size_t n_ranks, std::size_t n_nodes, Logger log,
               nccl_abi::NvlDomainInfoV5* /*nvl_domain_info*/, nccl_abi::TunerConstantsV5* /*constants*/) noexcept {
  return init_common(context, n_ranks, n_nodes, log);
}

Result init_v4(std::size_t n_ranks, std::size_t n_nodes, Logger log, void** context) noexcept {
  return init_common(context, n_ranks, n_nodes, log);
}

Result finalize(void* context) noexcept {
  delete static_cast<PluginContext*>(context);
  return nccl_abi::kSuccess;
}

}  // namespace
}  // namespace cctune::tuner

extern "C" {
const cctune::nccl_abi::TunerV5 ncclTunerPlugin_v5 = {"cctune", cctune::tuner::init_v5, cctune::tuner::get_coll_info,
                                                     cctune::tuner::finalize};
const cctune::nccl_abi::TunerV4 ncclTunerPlugin_v4 = {"cctune", cctune::tuner::init_v4, cctune::tuner::get_coll_info,
                                                     cctune::tuner::finalize};
const cctune::nccl_abi::TunerV3 ncclTunerPlugin_v3 = {"cctune", cctune::tuner::init_v4, cctune::tuner::get_coll_info_v3,
                                                     cctune::tuner::finalize};
}
