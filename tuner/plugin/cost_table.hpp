#pragma once
// Reading and steering NCCL's cost table: float[num_algo][num_proto] of predicted times in
// microseconds, -1 (or any negative value) where NCCL cannot run that (algorithm, protocol)
// for this call. NCCL then picks the smallest entry >= 0, scanning algorithms in the outer
// loop and protocols in the inner one and keeping the first of equal entries.
#include <optional>

#include "tuner/profile/algo_proto.hpp"

namespace cctune::tuner {

struct CostCell {
  int algorithm = -1;  // NCCL's index, as Algorithm's values
  int protocol = -1;   // NCCL's index, as Protocol's values
};

class CostTable {
 public:
  CostTable(float* cells, int num_algo, int num_proto) noexcept : cells_(cells), num_algo_(num_algo), num_proto_(num_proto) {}

  bool contains(int algorithm, int protocol) const noexcept {
    return algorithm >= 0 && algorithm < num_algo_ && protocol >= 0 && protocol < num_proto_;
  }
  // Supported: inside the table and marked >= 0 by NCCL (NaN is not supported either).
  bool supported(int algorithm, int protocol) const noexcept {
    return contains(algorithm, protocol) && cells_[algorithm * num_proto_ + protocol] >= 0.0f;
  }
  // What NCCL's own model picks from the table as it stands.
  std::optional<CostCell> cheapest() const noexcept {
    std::optional<CostCell> best;
    float best_cost = 0.0f;
    for (int a = 0; a < num_algo_; ++a)
      for (int p = 0; p < num_proto_; ++p) {
        const float cost = cells_[a * num_proto_ + p];
        if (cost >= 0.0f && (!best || cost < best_cost)) {
          best = CostCell{a, p};
          best_cost = cost;
        }
      }
    return best;
  }
  // The algorithms NCCL offers for this call: those with a supported entry for some protocol.
  AlgorithmSet offered() const noexcept {
    AlgorithmSet set = 0;
    for (int a = 0; a < num_algo_ && a < kAlgorithmCount; ++a)
      for (int p = 0; p < num_proto_; ++p)
        if (supported(a, p)) {
          set |= AlgorithmSet{1} << a;
          break;
        }
    return set;
  }
  // Makes NCCL pick (algorithm, protocol): a zero cost beats every other supported entry.
  // Only for supported cells; returns false (and changes nothing) otherwise.
  bool choose(int algorithm, int protocol) noexcept {
    if (!supported(algorithm, protocol)) return false;
    cells_[algorithm * num_proto_ + protocol] = 0.0f;
    return true;
  }

  int num_algo() const noexcept { return num_algo_; }
  int num_proto() const noexcept { return num_proto_; }

 private:
  float* cells_;
  int num_algo_;
  int num_proto_;
};

}  // namespace cctune::tuner
