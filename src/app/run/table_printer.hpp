#pragma once
// The terminal table, laid out like nccl-tests' (size, count, type, redop, then time,
// algbw, busbw, #wrong for out-of-place and in-place) plus the per-iteration median and
// p99, so users can read it next to nccl-tests output.
#include <cstdio>
#include <optional>

#include "core/results.hpp"

namespace cctune::app {

class TablePrinter {
 public:
  explicit TablePrinter(std::FILE* out) : out_(out) {}
  void header(Collective c, const std::string& context);
  // One row per size: either placement may be absent (not run).
  void row(const std::optional<PointResult>& out_of_place, const std::optional<PointResult>& in_place);
  void footer(double avg_busbw_GBps, long points);

 private:
  std::FILE* out_;
};

}  // namespace cctune::app
