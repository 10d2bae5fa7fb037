#pragma once
// `cctune verify --workload`: the A/B rounds summed into the job's collective time per step,
// so the verdict is about the job, not about sizes it never issues. Pure; docs/TUNING.md.
#include <cstdint>
#include <vector>

#include "app/ab/ab_analysis.hpp"
#include "core/job_point.hpp"

namespace cctune::app {

// Calls per step of each row: a job point goes to the rows of its collective at the measured
// size nearest in log distance, of its data type where one was measured, else split evenly.
// `rows`: verify's measured rows (their call shapes); `job`: the job's planned points.
std::vector<double> row_weights(const std::vector<JobPoint>& rows, const std::vector<JobPoint>& job);

// Per round, sum over rows of weight x the round's time, for A and for B: one AbSamples to
// analyze_pair (its speedup is the job's, per step). A round where a weighted row lacks either
// side is left out of both.
AbSamples job_step_samples(const std::vector<AbSamples>& rows, const std::vector<double>& weights);

}  // namespace cctune::app
