#pragma once
// Which inputs a point's data check writes and whether its result can be checked exactly.
// Every type but fp8 uses pattern_value() as it is (data_pattern.hpp). fp8 holds few exact
// integers (float8e4m3 up to 16, float8e5m2 up to 8) and NCCL sums in an order of its own
// choosing, rounding every partial result to fp8. A sum is exact in any order when every
// partial sum is representable, i.e. when the inputs' magnitudes add up to at most that
// limit: fp8 sums fold the pattern into [-limit/nranks, limit/nranks]. Where no such range
// exists (too many ranks), where NCCL's avg divides by a rank count that is not a power of
// two, and for prod, the point is not checked (wrong = -1), never counted as 0 wrong.
// GPU-free, so the rule is unit-tested; the NCCL kernels receive its result.
#include <string>

#include "core/collective.hpp"

namespace cctune {

// pattern_value()'s magnitude bound: inputs of every non-fp8 point lie in [-8, 8].
inline constexpr int kPatternMagnitude = 8;

struct DataCheckPlan {
  int input_magnitude = kPatternMagnitude;  // inputs are pattern_value_within(rank, i, this)
  std::string unchecked_reason;             // non-empty: not checked (wrong = -1), and why
  bool checked() const { return unchecked_reason.empty(); }
};

// The largest integer n such that 0..n are all exact in `t` (fp8 only; 0 for other types).
int fp8_exact_integer_limit(DType t);

DataCheckPlan data_check_plan(Collective c, DType t, ReduceOp op, int nranks);

}  // namespace cctune
