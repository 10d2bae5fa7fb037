#pragma once
// Typed reads of the meta.settings fields that readers other than the plan's own
// (plan_from_json) need: the test mode and the search space's name. Absent fields read as
// empty; a field of another type is a UsageError of one line naming it.
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace cctune {

// meta.settings.test_mode: "shared-gpu", or empty for a performance run.
std::string settings_test_mode(const nlohmann::json& settings);
// meta.settings.space.name (or meta.settings.space as a plain name): empty without a space.
std::string settings_space_name(const nlohmann::json& settings);

}  // namespace cctune
