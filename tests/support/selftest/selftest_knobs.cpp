#include "selftest/selftest_knobs.hpp"

#include <cstdlib>

namespace cctune::selftest {

Knobs read_knobs() {
  using test_env::text;
  Knobs k;
  if (const auto v = text("CCTUNE_SELFTEST_GPUS"); !v.empty()) k.gpus = std::atoi(v.c_str());
  if (const auto v = text("CCTUNE_SELFTEST_MEMORY"); !v.empty()) k.memory_bytes = static_cast<std::uint64_t>(std::atoll(v.c_str()));
  if (const auto v = text("CCTUNE_SELFTEST_SLOWDOWN"); !v.empty()) k.slowdown = std::atof(v.c_str());
  // CCTUNE_SELFTEST_SLOWDOWN_WITH=KEY=VALUE:FACTOR: the factor holds only in a worker whose
  // environment has KEY=VALUE, as a real NCCL setting changes NCCL's speed: verify's A/B tests
  // give the profile an NCCL setting (a profile may carry no other) and this knob to everyone.
  if (const auto v = text("CCTUNE_SELFTEST_SLOWDOWN_WITH"); !v.empty()) {
    const auto eq = v.find('='), colon = v.rfind(':');
    if (eq != std::string::npos && colon != std::string::npos && colon > eq &&
        text(v.substr(0, eq).c_str()) == v.substr(eq + 1, colon - eq - 1))
      k.slowdown *= std::atof(v.c_str() + colon + 1);
  }
  if (const auto v = text("CCTUNE_SELFTEST_OVERLAP_COST"); !v.empty()) k.overlap_cost = std::atof(v.c_str());
  if (const auto v = text("CCTUNE_SELFTEST_OVERLAP_COST_WITH"); !v.empty()) {
    const auto eq = v.find('='), colon = v.rfind(':');
    if (eq != std::string::npos && colon != std::string::npos && colon > eq &&
        text(v.substr(0, eq).c_str()) == v.substr(eq + 1, colon - eq - 1))
      k.overlap_cost = std::atof(v.c_str() + colon + 1);
  }
  k.config_factors = text("CCTUNE_SELFTEST_CONFIG_FACTORS");
  // CCTUNE_SELFTEST_FACTORS_IN_SWEEP_ONLY=1: the factors hold only under the sweep's own tuner
  // control (STATIC_PLUGIN), not for a profile the production plugin applies: a win the sweep
  // measured that a deployment does not get (what the sweep's confirmation round must catch).
  if (text("CCTUNE_SELFTEST_FACTORS_IN_SWEEP_ONLY") == "1" && text("NCCL_TUNER_PLUGIN") != "STATIC_PLUGIN") k.config_factors.clear();
  k.refused_setting = text("CCTUNE_SELFTEST_REFUSED_SETTING");
  k.record_step = text("CCTUNE_SELFTEST_RECORD_STEP");
  k.slow_rank = test_env::parse_slow_rank(text("CCTUNE_TEST_SLOW_RANK"));
  if (const auto v = text("CCTUNE_SELFTEST_NCCL_VERSION"); !v.empty()) k.nccl_version = v;
  return k;
}

}  // namespace cctune::selftest
