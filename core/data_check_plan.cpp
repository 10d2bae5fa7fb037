#include "core/data_check_plan.hpp"

#include <algorithm>

namespace cctune {
namespace {

bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

}  // namespace

int fp8_exact_integer_limit(DType t) {
  switch (t) {
    case DType::Float8e4m3: return 16;  // 3 mantissa bits: 1.xxx * 2^4 = 16 is the last step of 1
    case DType::Float8e5m2: return 8;   // 2 mantissa bits: 1.xx * 2^3 = 8
    default: return 0;
  }
}

DataCheckPlan data_check_plan(Collective c, DType t, ReduceOp op, int nranks) {
  DataCheckPlan plan;
  // Copies and max/min move or pick input values: exact for any pattern in [-8, 8], which
  // both fp8 types hold exactly.
  if (!is_fp8(t) || !is_reduction(c) || op == ReduceOp::Max || op == ReduceOp::Min) return plan;
  const std::string what = to_string(t) + " " + to_string(op) + " over " + std::to_string(nranks) + " ranks";
  if (op == ReduceOp::Prod) {
    plan.unchecked_reason = what + ": products round in fp8 in an order NCCL chooses, so no exact value exists";
    return plan;
  }
  const int limit = fp8_exact_integer_limit(t);
  plan.input_magnitude = std::min(kPatternMagnitude, limit / std::max(nranks, 1));
  if (plan.input_magnitude < 1) {
    plan.unchecked_reason = what + ": partial sums can round (" + to_string(t) + " holds integers exactly only up to " +
                            std::to_string(limit) + ")";
    return plan;
  }
  // NCCL's avg scales by 1/nranks (before or after summing); exact only for a power of two.
  if (op == ReduceOp::Avg && !is_power_of_two(nranks))
    plan.unchecked_reason = what + ": 1/" + std::to_string(nranks) + " is not exact in fp8";
  return plan;
}

}  // namespace cctune
