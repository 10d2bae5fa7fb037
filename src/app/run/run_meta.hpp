#pragma once
// What makes a results file interpretable later: who ran what, where, with which
// libraries and environment.
#include <string>

#include "app/cli/session.hpp"
#include "core/results.hpp"

namespace cctune::app {

// Collective: every rank calls it (hostnames are gathered).
Meta collect_meta(Session& session);
std::string utc_now_iso8601();
// Environment variables that shape a run (NCCL_*, CCTUNE_*, CUDA_VISIBLE_DEVICES, launcher ids).
std::map<std::string, std::string> relevant_env();

}  // namespace cctune::app
