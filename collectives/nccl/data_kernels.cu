// Device side of the data check; see data_kernels.hpp for the values and their limits.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "collectives/nccl/cuda_check.hpp"
#include "collectives/nccl/data_kernels.hpp"
#include "core/data_pattern.hpp"  // constexpr pattern_value(), usable on the device (--expt-relaxed-constexpr)

namespace cctune::nccl_detail {
namespace {

constexpr int kThreads = 256;
constexpr std::uint64_t kMaxBlocks = 2048;

// How each element type is written from a pattern integer and read back for comparison.
template <class T>
struct Elem {
  static constexpr bool is_integer = true;
  static constexpr bool is_unsigned = T(-1) > T(0);
  __device__ static T from_int(int v) { return static_cast<T>(is_unsigned ? v + 8 : v); }
  __device__ static double to_double(T v) { return static_cast<double>(v); }
  __device__ static T from_double(double v) { return static_cast<T>(v); }
};
template <>
struct Elem<float> {
  static constexpr bool is_integer = false;
  static constexpr double epsilon = 1.1920929e-07;
  __device__ static float from_int(int v) { return static_cast<float>(v); }
  __device__ static double to_double(float v) { return v; }
  __device__ static float from_double(double v) { return static_cast<float>(v); }
};
template <>
struct Elem<double> {
  static constexpr bool is_integer = false;
  static constexpr double epsilon = 2.220446049250313e-16;
  __device__ static double from_int(int v) { return v; }
  __device__ static double to_double(double v) { return v; }
  __device__ static double from_double(double v) { return v; }
};
template <>
struct Elem<__half> {
  static constexpr bool is_integer = false;
  static constexpr double epsilon = 9.765625e-04;
  __device__ static __half from_int(int v) { return __int2half_rn(v); }
  __device__ static double to_double(__half v) { return __half2float(v); }
  __device__ static __half from_double(double v) { return __double2half(v); }
};
template <>
struct Elem<__nv_bfloat16> {
  static constexpr bool is_integer = false;
  static constexpr double epsilon = 7.8125e-03;
  __device__ static __nv_bfloat16 from_int(int v) { return __int2bfloat16_rn(v); }
  __device__ static double to_double(__nv_bfloat16 v) { return __bfloat162float(v); }
  __device__ static __nv_bfloat16 from_double(double v) { return __double2bfloat16(v); }
};

// fp8: inputs are small integers, exact in both formats; results compare exactly, since a
// point whose result could round is not checked at all (core/data_check_plan.hpp).
template <class T>
struct Fp8Elem {
  static constexpr bool is_integer = false;
  __device__ static T from_int(int v) { return T(static_cast<float>(v)); }
  __device__ static double to_double(T v) { return static_cast<float>(v); }
  __device__ static T from_double(double v) { return T(v); }  // round to nearest, saturating
};
template <>
struct Elem<__nv_fp8_e4m3> : Fp8Elem<__nv_fp8_e4m3> {};
template <>
struct Elem<__nv_fp8_e5m2> : Fp8Elem<__nv_fp8_e5m2> {};

template <class T>
constexpr bool is_fp8_v = std::is_same_v<T, __nv_fp8_e4m3> || std::is_same_v<T, __nv_fp8_e5m2>;

template <class T>
__device__ T pattern(int rank, std::uint64_t index, int magnitude) {
  return Elem<T>::from_int(pattern_value_within(rank, index, magnitude));
}

template <class T>
__global__ void fill_kernel(T* buf, std::uint64_t count, int rank, std::uint64_t first_index, int magnitude) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    buf[i] = pattern<T>(rank, first_index + i, magnitude);
}

// Integer types: the same wrap-around arithmetic as NCCL's kernels (through uint64 so that
// signed overflow is defined), avg as NCCL's sum-then-divide.
template <class T>
__device__ T expected_integer(ReduceOp op, int nranks, std::uint64_t index) {
  T acc = pattern<T>(0, index, kPatternMagnitude);
  for (int r = 1; r < nranks; ++r) {
    const T v = pattern<T>(r, index, kPatternMagnitude);
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Avg:
        acc = static_cast<T>(static_cast<std::uint64_t>(acc) + static_cast<std::uint64_t>(v));
        break;
      case ReduceOp::Prod:
        acc = static_cast<T>(static_cast<std::uint64_t>(acc) * static_cast<std::uint64_t>(v));
        break;
      case ReduceOp::Max: acc = v > acc ? v : acc; break;
      case ReduceOp::Min: acc = v < acc ? v : acc; break;
    }
  }
  if (op == ReduceOp::Avg) acc = static_cast<T>(acc / static_cast<T>(nranks));
  return acc;
}

// Floating types: exact in double, then rounded to T (so overflow to inf matches).
template <class T>
__device__ double expected_floating(ReduceOp op, int nranks, std::uint64_t index, int magnitude) {
  double acc = Elem<T>::to_double(pattern<T>(0, index, magnitude));
  for (int r = 1; r < nranks; ++r) {
    const double v = Elem<T>::to_double(pattern<T>(r, index, magnitude));
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Avg: acc += v; break;
      case ReduceOp::Prod: acc *= v; break;
      case ReduceOp::Max: acc = fmax(acc, v); break;
      case ReduceOp::Min: acc = fmin(acc, v); break;
    }
  }
  if (op == ReduceOp::Avg) acc /= nranks;
  return Elem<T>::to_double(Elem<T>::from_double(acc));
}

template <class T>
__device__ bool matches(T out, const CheckSpec& spec, std::uint64_t i) {
  const ExpectedSource src = expected_source(spec.expected, i);
  if (src.rank != kReducedOverRanks)
    return Elem<T>::to_double(out) == Elem<T>::to_double(pattern<T>(src.rank, src.index, spec.input_magnitude));
  const int nranks = spec.expected.nranks;
  if constexpr (Elem<T>::is_integer) {
    return out == expected_integer<T>(spec.op, nranks, src.index);
  } else {
    const double want = expected_floating<T>(spec.op, nranks, src.index, spec.input_magnitude);
    const double got = Elem<T>::to_double(out);
    if (got == want) return true;
    // Sum, max and min of small integers are exact (within the limits in the header); fp8
    // is checked only where it is exact.
    if (spec.op == ReduceOp::Sum || spec.op == ReduceOp::Max || spec.op == ReduceOp::Min) return false;
    if constexpr (is_fp8_v<T>) {
      return false;
    } else {
      // Prod and avg round at every step (avg multiplies by 1/n first for floating types).
      const double tolerance = Elem<T>::epsilon * (nranks + 2) * fmax(8.0, fabs(want));
      return fabs(got - want) <= tolerance;  // false for NaN
    }
  }
}

template <class T>
__global__ void count_wrong_kernel(const T* out, CheckSpec spec, unsigned long long* wrong) {
  unsigned long long mine = 0;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < spec.count; i += stride)
    if (!matches<T>(out[i], spec, i)) ++mine;
  if (mine) atomicAdd(wrong, mine);
}

unsigned blocks_for(std::uint64_t count) {
  const std::uint64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks));
}

template <class F>
void dispatch(DType dtype, F&& f) {
  switch (dtype) {
    case DType::Int8: f(std::int8_t{}); break;
    case DType::Uint8: f(std::uint8_t{}); break;
    case DType::Int32: f(std::int32_t{}); break;
    case DType::Uint32: f(std::uint32_t{}); break;
    case DType::Int64: f(std::int64_t{}); break;
    case DType::Uint64: f(std::uint64_t{}); break;
    case DType::Float16: f(__half{}); break;
    case DType::Float32: f(float{}); break;
    case DType::Float64: f(double{}); break;
    case DType::BFloat16: f(__nv_bfloat16{}); break;
    case DType::Float8e4m3: f(__nv_fp8_e4m3{}); break;
    case DType::Float8e5m2: f(__nv_fp8_e5m2{}); break;
  }
}

}  // namespace

void launch_fill_pattern(void* buf, DType dtype, std::uint64_t count, int rank, std::uint64_t first_index,
                         int magnitude, cudaStream_t stream) {
  if (count == 0) return;
  dispatch(dtype, [&](auto tag) {
    using T = decltype(tag);
    fill_kernel<T><<<blocks_for(count), kThreads, 0, stream>>>(static_cast<T*>(buf), count, rank, first_index,
                                                                magnitude);
  });
  CCTUNE_CUDA_CHECK(cudaGetLastError());
}

void launch_count_wrong(const void* out, const CheckSpec& spec, unsigned long long* wrong_counter,
                        cudaStream_t stream) {
  if (spec.count == 0) return;
  dispatch(spec.dtype, [&](auto tag) {
    using T = decltype(tag);
    count_wrong_kernel<T><<<blocks_for(spec.count), kThreads, 0, stream>>>(static_cast<const T*>(out), spec,
                                                                         wrong_counter);
  });
  CCTUNE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace cctune::nccl_detail
