#pragma once
// When a group's `requires` are met on a job, and the values of the placeholders a group's
// env may hold. A group whose requirement is unmet is skipped with the reason these return,
// so that a space can carry settings for every transport and a job runs those of its own.
#include <string>

#include "tuner/space/feasibility.hpp"
#include "tuner/space/space.hpp"

namespace cctune::tuner {

// Empty when the job meets `r`; otherwise why the group does not matter here (one line).
std::string unmet_requirement(GroupRequirement r, const SpaceContext& ctx);

// What a placeholder env value ("{nearest_nics}", "{fastest_interfaces}") stands for on this
// job, as the setting `key` wants it; empty `why` when it resolves, else why it cannot.
struct ResolvedValue {
  std::string value;
  std::string why;
};
ResolvedValue resolve_placeholder(const std::string& key, const std::string& placeholder, const SpaceContext& ctx);

}  // namespace cctune::tuner
