#pragma once
// `cctune tune RESULTS --job -- CMD ARGS...`: the sweep's leading candidates raced on the job
// itself. Candidates are the profile tune would write, the same decisions under each of the
// next best process-level groups, and the rules alone under NCCL's default environment; each
// is run against NCCL's defaults in interleaved pairs (job_race.hpp), the slower half dropped
// after each stage and the pairs doubled (successive halving), until one is left. Its profile
// is written when its paired interval shows the job faster beyond the tolerance; otherwise
// tune says so and writes none. docs/WORKLOAD.md "Tune on the job".
#include <string>

#include "app/job/verify_job.hpp"
#include "core/results.hpp"
#include "tuner/selection/selection.hpp"

namespace cctune::app {

struct TuneJobRequest {
  const Results* results = nullptr;
  tuner::TuneOptions options;  // as `cctune tune` builds them
  std::string plugin;          // libnccl-tuner-cctune.so
  std::string output_dir;      // the winner's files, candidates/, runs/, tune_job.json
  JobArgs job;                 // rounds: the winner's pairs at the end, at least
  int candidates = 3;
};

int run_tune_job(const TuneJobRequest& request);

}  // namespace cctune::app
