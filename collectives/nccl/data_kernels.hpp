#pragma once
// The data check's device side: deterministic inputs from core/data_pattern.hpp's
// pattern_value(rank, index), and a count of output elements that differ from the expected
// value, both computed on the device so that multi-GiB buffers are checked in milliseconds.
//
// Exactness (docs/NCCL_BACKEND.md): inputs are integers in [-8, 8] (unsigned types: [0, 16]).
// Sum, max and min are exact in float64/float32 for any rank count, in float16 up to 256
// ranks and in bfloat16 up to 32 ranks (|sum| <= 8n must stay within the type's exact
// integer range); integer types are exact for any rank count because the expected value is
// computed with the same wrap-around arithmetic as NCCL. Prod and avg on floating types are
// compared with a tolerance proportional to the type's epsilon. Collectives that copy
// (broadcast, allgather, gather, scatter, alltoall, sendrecv) are exact in every type.
// fp8 (float8e4m3, float8e5m2): inputs and checkability from core/data_check_plan.hpp; sums
// use inputs narrow enough that every partial sum is exact, and every comparison is exact.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/collective.hpp"
#include "core/data_check_plan.hpp"
#include "core/expected_layout.hpp"

namespace cctune::nccl_detail {

// buf[i] = pattern_value_within(rank, first_index + i, magnitude) for i < count.
void launch_fill_pattern(void* buf, DType dtype, std::uint64_t count, int rank, std::uint64_t first_index,
                         int magnitude, cudaStream_t stream);

struct CheckSpec {
  DType dtype = DType::Float32;
  ReduceOp op = ReduceOp::Sum;
  int input_magnitude = kPatternMagnitude;  // as the inputs were filled (DataCheckPlan)
  std::uint64_t count = 0;   // output elements to check
  ExpectedLayout expected;   // which input each output element holds (core/expected_layout.hpp)
};

// Adds the number of wrong elements of `out` to *wrong_counter (device memory); asynchronous.
void launch_count_wrong(const void* out, const CheckSpec& spec, unsigned long long* wrong_counter,
                        cudaStream_t stream);

}  // namespace cctune::nccl_detail
