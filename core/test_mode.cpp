// The test mode a results file was measured in. Core owns the notion (test_mode_shared_gpu,
// runs[].test_mode) and so reads meta.settings.test_mode itself, as its own typed view of the
// settings section: `cctune compare` and `cctune report`, which may not include the runtime
// that owns the rest of the plan, need it too.
#include <nlohmann/json.hpp>

#include "core/json_fields.hpp"
#include "core/results.hpp"

namespace cctune {

namespace {

struct SettingsTestMode {
  std::string mode;  // empty: a performance run
};

SettingsTestMode read_test_mode(const nlohmann::json& settings) {
  // Settings of a file written before they were recorded may be null.
  if (settings.is_null()) return {};
  const JsonFields f(settings, "meta.settings", "pass a results.json written by cctune sweep (its meta.settings is the resolved plan)");
  return {f.get_optional<std::string>("test_mode").value_or("")};
}

}  // namespace

std::string test_mode_of(const Results& r) {
  if (const std::string& mode = r.meta.settings.get<SettingsTestMode>(read_test_mode).mode; !mode.empty()) return mode;
  for (const auto& run : r.runs)
    if (!run.test_mode.empty()) return run.test_mode;
  return {};
}

void seed_test_mode(ResultSection& settings, std::string mode) { settings.seed(SettingsTestMode{std::move(mode)}); }

}  // namespace cctune
