#pragma once
// diagnose's names for the outlier rule, which lives in core (core/outliers.hpp) so that the
// plugin's production watch judges with the same rule.
#include "core/outliers.hpp"

namespace cctune::diagnose {

using cctune::Better;
using cctune::is_slow;
using cctune::kMinGroup;
using cctune::OutlierRule;
using cctune::shortfall;
using cctune::Typical;
using cctune::typical_of;
using cctune::better_reading;

}  // namespace cctune::diagnose
