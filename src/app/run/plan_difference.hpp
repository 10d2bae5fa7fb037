#pragma once
// What must agree between an interrupted sweep's plan and the resuming one for their points
// to belong in one results file. Both sides are typed plans (runtime::plan_of the file being
// resumed, and the plan this invocation resolved): fields are compared as values,
// not as JSON keys, so an equal plan written in another form (a one-element dtype list, a
// reordered object) agrees.
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/sweep_plan.hpp"

namespace cctune::app {

// The first difference as "KEY is A there, B now" (KEY and the values as the plan's JSON
// names and writes them), or empty when they agree. Sizes and stopping rules may differ (a
// resumed sweep may extend the size range); what decides what a point *is* may not.
std::string first_plan_difference(const runtime::SweepPlan& before, const runtime::SweepPlan& now);

}  // namespace cctune::app
