#pragma once
// Checks that may fail on some ranks only (a directory only rank 0 writes, memory on one
// node) are made collective: every rank runs its check, and if any failed, every rank
// throws the first failure, so no rank is left waiting in a collective.
#include <functional>

#include "collectives/rank_comm.hpp"

namespace cctune::app {

// `check` throws UsageError or EnvironmentError on failure. Collective over `comm`.
void agree_on_errors(RankComm& comm, const std::function<void()>& check);

}  // namespace cctune::app
