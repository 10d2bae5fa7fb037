#pragma once
// The MPI backend's sweep: every supervisor rank measures MPI collectives in-process.
#include "app/cli/session.hpp"
#include "app/cli/sweep_options.hpp"
#include "app/run/resume.hpp"
#include "core/reporter.hpp"
#include "runtime/sweep_outcome.hpp"

namespace cctune::app {

// Collective: one run (group "default"); `reporters` is empty on ranks other than 0. With
// `resume` (same on every rank), points it holds are not measured again and the earlier
// run's points come first.
runtime::SweepOutcome run_mpi_sweep(Session& session, const SweepPlan& plan, Reporter& reporters, const ResumeState* resume = nullptr);

}  // namespace cctune::app
