#pragma once
// A table section: the points of one collective with one data type, one reduction op (for
// reductions) and one root (for rooted collectives): one nccl-tests run's table. Both sweeps
// open a new section where any of these changes.
#include <optional>
#include <string>
#include <tuple>

#include "collectives/backend.hpp"
#include "core/results.hpp"

namespace cctune::runtime {

struct SectionKey {
  Collective collective = Collective::AllReduce;
  DType dtype = DType::Float32;
  std::optional<ReduceOp> op;  // reductions only
  std::optional<int> root;     // rooted collectives only
  std::optional<P2pImpl> impl;  // NCCL's alltoall, gather, scatter: native or grouped
  bool operator==(const SectionKey& o) const {
    return std::tie(collective, dtype, op, root, impl) == std::tie(o.collective, o.dtype, o.op, o.root, o.impl);
  }
  bool operator!=(const SectionKey& o) const { return !(*this == o); }
};

inline SectionKey section_of(const PointSpec& s) {
  return {s.collective, s.dtype, is_reduction(s.collective) ? std::optional(s.op) : std::nullopt,
          is_rooted(s.collective) ? std::optional(s.root) : std::nullopt, s.impl};
}

inline SectionKey section_of(const PointResult& p) {
  return {p.collective, p.dtype, is_reduction(p.collective) ? std::optional(p.op) : std::nullopt,
          is_rooted(p.collective) ? p.root : std::nullopt, p.impl};
}

// ", float32, op sum, root 0": what the section header adds to the sweep's context.
inline std::string section_suffix(const SectionKey& k) {
  std::string s = ", " + to_string(k.dtype);
  if (k.op) s += ", op " + to_string(*k.op);
  if (k.root) s += ", root " + std::to_string(*k.root);
  if (k.impl) s += ", " + std::string(to_string_view(*k.impl));
  return s;
}

}  // namespace cctune::runtime
