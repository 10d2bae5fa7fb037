#include "app/ab/ab_side.hpp"

#include "core/error.hpp"
#include "tuner/export/outputs.hpp"

namespace cctune::app {

AbSide defaults_side() { return {"default", {}}; }

AbSide profile_side(std::string name, const tuner::Profile& profile, const std::string& profile_abs, const std::string& plugin) {
  // A profile read from a file was checked by its reader; a candidate built in memory was not read back.
  if (const std::string error = tuner::validate_profile(profile); !error.empty())
    throw UsageError(error, "pass a profile.json written by cctune tune");
  AbSide side{std::move(name), profile.env};
  // A side's own NCCL_TUNER_PLUGIN wins over the sweep's STATIC_PLUGIN (runtime/nccl_job.cpp).
  side.env["NCCL_TUNER_PLUGIN"] = plugin;
  side.env["CCTUNE_PROFILE"] = profile_abs;
  return side;
}

std::string find_plugin_or_throw(const std::string& executable) {
  bool found = false;
  std::string plugin = tuner::find_tuner_plugin(executable, &found);
  if (!found)
    throw EnvironmentError(std::string("the tuner plugin ") + tuner::kPluginFileName + " was not found (looked for " + plugin + ")",
                           "build the nccl-tuner-cctune target, or install it next to cctune");
  return plugin;
}

}  // namespace cctune::app
