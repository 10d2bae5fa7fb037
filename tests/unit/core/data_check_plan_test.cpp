// The fp8 data check's inputs and its "not checked" cases (core/data_check_plan.hpp).
#include "core/data_check_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "core/data_pattern.hpp"

namespace cctune {
namespace {

const Collective kReductions[] = {Collective::AllReduce, Collective::ReduceScatter, Collective::Reduce};
const Collective kCopies[] = {Collective::AllGather, Collective::Broadcast, Collective::AllToAll,
                              Collective::SendRecv, Collective::Gather, Collective::Scatter};

TEST(DataCheckPlan, OtherTypesUseThePatternAndAreChecked) {
  for (DType t : {DType::Float32, DType::BFloat16, DType::Float16, DType::Int8, DType::Uint64})
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Avg})
      for (int n : {1, 3, 64, 4096}) {
        const DataCheckPlan p = data_check_plan(Collective::AllReduce, t, op, n);
        EXPECT_TRUE(p.checked()) << to_string(t) << " " << p.unchecked_reason;
        EXPECT_EQ(p.input_magnitude, kPatternMagnitude);
      }
}

TEST(DataCheckPlan, Fp8CopiesAndMaxMinAreExactAtAnyRankCount) {
  for (DType t : {DType::Float8e4m3, DType::Float8e5m2})
    for (int n : {2, 3, 17, 1024}) {
      for (Collective c : kCopies) {
        const DataCheckPlan p = data_check_plan(c, t, ReduceOp::Prod, n);  // op is ignored by copies
        EXPECT_TRUE(p.checked()) << to_string(c);
        EXPECT_EQ(p.input_magnitude, kPatternMagnitude);
      }
      for (Collective c : kReductions)
        for (ReduceOp op : {ReduceOp::Max, ReduceOp::Min}) {
          const DataCheckPlan p = data_check_plan(c, t, op, n);
          EXPECT_TRUE(p.checked());
          EXPECT_EQ(p.input_magnitude, kPatternMagnitude);
        }
    }
}

TEST(DataCheckPlan, Fp8ExactIntegerLimits) {
  EXPECT_EQ(fp8_exact_integer_limit(DType::Float8e4m3), 16);
  EXPECT_EQ(fp8_exact_integer_limit(DType::Float8e5m2), 8);
  EXPECT_EQ(fp8_exact_integer_limit(DType::Float32), 0);
}

// Any subset of ranks' inputs sums to at most the sum of all magnitudes, so checking that
// bound for every element proves each partial sum NCCL may form is an exact fp8 integer.
TEST(DataCheckPlan, Fp8SumInputsKeepEveryPartialSumExact) {
  for (DType t : {DType::Float8e4m3, DType::Float8e5m2}) {
    const int limit = fp8_exact_integer_limit(t);
    for (int n = 1; n <= limit; ++n) {
      const DataCheckPlan p = data_check_plan(Collective::ReduceScatter, t, ReduceOp::Sum, n);
      ASSERT_TRUE(p.checked()) << to_string(t) << " n=" << n << ": " << p.unchecked_reason;
      ASSERT_GE(p.input_magnitude, 1);
      for (std::uint64_t i = 0; i < 200; ++i) {
        int magnitude_sum = 0;
        for (int r = 0; r < n; ++r) {
          const int v = pattern_value_within(r, i, p.input_magnitude);
          ASSERT_LE(std::abs(v), p.input_magnitude);
          magnitude_sum += std::abs(v);
        }
        ASSERT_LE(magnitude_sum, limit) << to_string(t) << " n=" << n << " i=" << i;
      }
    }
  }
}

TEST(DataCheckPlan, Fp8SumInputsStillDifferAcrossRanksAndIndices) {
  // The narrowest range ({-1, 0, 1}) must still tell ranks apart, or a result taken from the
  // wrong rank would pass.
  int differ = 0;
  for (std::uint64_t i = 0; i < 100; ++i) differ += pattern_value_within(0, i, 1) != pattern_value_within(1, i, 1);
  EXPECT_GT(differ, 50);
  for (int m = 1; m <= 8; ++m) {
    int lo = 0, hi = 0;
    for (std::uint64_t i = 0; i < 17; ++i) {
      lo = std::min(lo, pattern_value_within(0, i, m));
      hi = std::max(hi, pattern_value_within(0, i, m));
    }
    EXPECT_EQ(lo, -m);
    EXPECT_EQ(hi, m);
  }
}

TEST(DataCheckPlan, Fp8SumOverTooManyRanksIsNotChecked) {
  const DataCheckPlan e4m3 = data_check_plan(Collective::AllReduce, DType::Float8e4m3, ReduceOp::Sum, 17);
  EXPECT_FALSE(e4m3.checked());
  EXPECT_NE(e4m3.unchecked_reason.find("up to 16"), std::string::npos) << e4m3.unchecked_reason;
  EXPECT_TRUE(data_check_plan(Collective::AllReduce, DType::Float8e4m3, ReduceOp::Sum, 16).checked());
  EXPECT_TRUE(data_check_plan(Collective::Reduce, DType::Float8e5m2, ReduceOp::Sum, 8).checked());
  const DataCheckPlan e5m2 = data_check_plan(Collective::Reduce, DType::Float8e5m2, ReduceOp::Sum, 9);
  EXPECT_FALSE(e5m2.checked());
  EXPECT_NE(e5m2.unchecked_reason.find("float8e5m2 sum over 9 ranks"), std::string::npos) << e5m2.unchecked_reason;
}

TEST(DataCheckPlan, Fp8AvgIsCheckedOnlyForPowerOfTwoRankCounts) {
  for (int n : {1, 2, 4, 8, 16})
    EXPECT_TRUE(data_check_plan(Collective::AllReduce, DType::Float8e4m3, ReduceOp::Avg, n).checked()) << n;
  for (int n : {3, 6, 12}) {
    const DataCheckPlan p = data_check_plan(Collective::AllReduce, DType::Float8e4m3, ReduceOp::Avg, n);
    EXPECT_FALSE(p.checked()) << n;
    EXPECT_NE(p.unchecked_reason.find("1/" + std::to_string(n)), std::string::npos) << p.unchecked_reason;
  }
  // Power of two, but past the exact range of partial sums.
  EXPECT_FALSE(data_check_plan(Collective::AllReduce, DType::Float8e5m2, ReduceOp::Avg, 16).checked());
}

TEST(DataCheckPlan, Fp8ProdIsNeverChecked) {
  for (DType t : {DType::Float8e4m3, DType::Float8e5m2})
    for (Collective c : kReductions)
      for (int n : {1, 2, 4}) {
        const DataCheckPlan p = data_check_plan(c, t, ReduceOp::Prod, n);
        EXPECT_FALSE(p.checked());
        EXPECT_NE(p.unchecked_reason.find("products round"), std::string::npos);
      }
}

}  // namespace
}  // namespace cctune
