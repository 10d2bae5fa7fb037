#include "runtime/plan_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/error.hpp"
#include "core/plan_limits.hpp"
#include "core/point_space.hpp"
#include "core/sizes.hpp"

namespace cctune::runtime {

namespace {

// "--point-timeout (point_timeout_s)": the flag a user types and the key a plan file holds.
[[noreturn]] void bad(const std::string& flag, const std::string& key, const std::string& what, const std::string& fix) {
  throw UsageError(flag + " (" + key + ") " + what, fix);
}

std::string number_text(double x) {
  char t[32];
  std::snprintf(t, sizeof t, "%g", x);
  return t;
}

void check_seconds(double x, const std::string& flag, const std::string& key, bool zero_ok, const std::string& example) {
  if (std::isfinite(x) && (x > 0 || (zero_ok && x == 0))) return;
  bad(flag, key, "is " + number_text(x) + ", not a finite number " + (zero_ok ? "of at least 0" : "above 0"), "use e.g. " + flag + " " + example);
}

void check_nccl(const NcclSettings& n) {
  if (n.gpus < 0) bad("--gpus", "gpus", "must not be negative", "use --gpus N, or leave it out to use every GPU");
  if (n.emulate_nodes < 1) bad("--emulate-nodes", "emulate_nodes", "must be at least 1", "use e.g. --emulate-nodes 2");
  check_seconds(n.point_timeout_s, "--point-timeout", "point_timeout_s", false, "60");
  check_seconds(n.group_timeout_s, "--group-timeout", "group_timeout_s", true, "0 (automatic) or 600");
  if (n.test_shared_gpu < 0 || n.test_shared_gpu > 16)
    bad("--test-shared-gpu", "test_shared_gpu", "must be 0..16", "use e.g. --test-shared-gpu 2 (workers per GPU)");
}

}  // namespace

void check_plan(const SweepPlan& p) {
  if (p.backend == BackendChoice::Auto) bad("--backend", "backend", "is still auto", "resolve it to mpi or nccl before checking");
  if (collectives_of(p.space).empty()) bad("--collectives", "collectives", "lists none", "use e.g. --collectives allreduce");
  const std::vector<std::uint64_t> sizes = sizes_of(p.space);
  if (sizes.empty() || sizes.size() > max_size_count)
    bad("--sizes", "sizes_bytes", "holds " + std::to_string(sizes.size()) + " sizes, not 1 to " + std::to_string(max_size_count),
        "give fewer sizes (-b/-e/-f, or a shorter list)");
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end())
    bad("--sizes", "sizes_bytes", "contains 0", "every size must be at least 1 byte");
  if (dtypes_of(p.space).empty() || p.space.ops.empty() || p.space.placements.empty() || p.space.placements.size() > 2)
    bad("-d/--op/--placement", "dtype/op/placements", "must each hold at least one value", "leave them out for the defaults");
  const MeasureSettings& m = p.measure;
  if (m.batch_iters < 1) bad("-n/--iters", "iters", "must be at least 1", "use e.g. -n 20");
  if (m.warmup_iters < 0) bad("-w/--warmup-iters", "warmup_iters", "must not be negative", "use e.g. -w 5");
  if (m.stop.min_iterations < 1) bad("--min-iters", "min_iters", "must be at least 1", "use e.g. --min-iters 20");
  check_seconds(m.stop.max_time_s, "--max-time", "max_time_s", false, "1");
  if (!std::isfinite(m.stop.target_rel_noise) || !(m.stop.target_rel_noise > 0))
    bad("--target-noise", "target_noise", "is " + number_text(m.stop.target_rel_noise) + ", not a finite number above 0",
        "use e.g. --target-noise 0.01");
  if (p.backend == BackendChoice::Nccl) check_nccl(p.nccl);
  // Counted by the space the run walks (the rank count is not known yet: one root each).
  const double points =
      points_per_config(p.space, 0) * static_cast<double>(std::max<std::size_t>(p.nccl.configs.size(), 1));
  char count[32];
  std::snprintf(count, sizeof count, "%.0f", points);
  if (points > static_cast<double>(max_plan_points))
    throw UsageError("the sweep plans " + std::string(count) + " points, more than " + std::to_string(max_plan_points) + " points",
                     "measure fewer sizes, collectives, data types, ops or configs");
}

}  // namespace cctune::runtime
