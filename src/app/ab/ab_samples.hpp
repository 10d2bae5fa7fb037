#pragma once
// The per-round medians of an A/B comparison's two groups ("default" and "profile", interleaved
// in alternating order; ab_groups.hpp), per call layout: what `cctune verify` and the sweep's
// confirmation round (app/sweep/confirm_round.hpp) analyse.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/ab/ab_analysis.hpp"
#include "core/results.hpp"

namespace cctune::app {

// One A/B row: data types, ops (reductions) and roots (rooted collectives) are rows of their own.
struct SampleKey {
  Collective collective;
  DType dtype;
  std::optional<ReduceOp> op;
  std::optional<int> root;
  bool in_place;
  std::uint64_t size;
  auto operator<=>(const SampleKey&) const = default;
};

// "allreduce", "reduce max root 1 (in)", "allgather bfloat16": what differs from the default call.
std::string row_name(const SampleKey& k);

struct VerifySamples {
  std::vector<AbSamples> samples;  // per SampleKey, in key order
  std::vector<SampleKey> keys;     // the key of each
  int nranks = 0, nnodes = 0;
};

// The medians of every round: the n-th run of each group is round n (of `rounds`).
VerifySamples collect_samples(const Results& results, int rounds);

}  // namespace cctune::app
