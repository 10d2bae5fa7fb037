#pragma once
// The MPI backend's sweep: every supervisor rank measures MPI collectives in-process.
#include "app/results_sink.hpp"
#include "app/resume.hpp"
#include "app/session.hpp"
#include "app/sweep_options.hpp"

namespace cctune::app {

// Collective. Returns the stop signal if the sweep was interrupted, else 0. Only rank 0
// touches `sink` (others pass nullptr). With `resume` (same on every rank), points it
// holds are not measured again and the earlier run's points come first.
int run_mpi_sweep(Session& session, const SweepPlan& plan, ResultsSink* sink, const ResumeState* resume = nullptr);

// Number of ranks of the job on this rank's node.
int ranks_on_this_node(Session& session);

}  // namespace cctune::app
