#pragma once
// The calling thread's last few API calls (communicator, NCCL's name pointers, count, root),
// so that a training loop's repeated calls are counted without parsing NCCL's names, hashing or
// taking the recorder's lock: a hit is a few compares, two short string compares and one atomic
// increment. Found by the name pointers (NCCL passes its function and type names as static
// strings: ncclFuncToString, ncclDatatypeToString), and confirmed by the names' text kept with
// each call, so a caller that reuses one buffer for other names is not counted as its last call
// (review N15: 10 Broadcasts were counted as AllReduce). One per thread (ThreadState): no lock.
#include <array>
#include <cstddef>
#include <cstdint>

#include "workload/profiler/shape_table.hpp"

namespace cctune::tuner {

class CommRecorder;

// One cache line: a hit reads nothing else of the memo. The shape key is kept in its parts (its
// count and root are the call's).
struct alignas(64) MemoCall {
  const CommRecorder* recorder = nullptr;
  const char* func = nullptr;
  const char* dtype = nullptr;
  std::size_t count = 0;
  std::uint64_t serial = 0;  // the recorder's: a new recorder at a freed one's address is not it
  ShapeStats* stats = nullptr;
  void* handle = nullptr;
  int root = -1;
  std::uint8_t kind = 0, collective = 0, shape_dtype = 0;
  bool rooted = false;

  ShapeKey key() const noexcept {
    return ShapeKey{static_cast<workload::CallKind>(kind), static_cast<Collective>(collective), static_cast<DType>(shape_dtype),
                    rooted ? root : -1, count};
  }
  void set_key(const ShapeKey& k) noexcept {
    kind = static_cast<std::uint8_t>(k.kind);
    collective = static_cast<std::uint8_t>(k.collective);
    shape_dtype = static_cast<std::uint8_t>(k.dtype);
    rooted = k.root >= 0;
  }
};
static_assert(sizeof(MemoCall) == 64);

// The text of a remembered call's names, read only on a pointer match: a line of its own.
struct alignas(64) MemoNames {
  static constexpr std::size_t bytes = 32;  // NCCL's longest ("ncclFloat8e4m3") is 14
  char func[bytes] = {};
  char dtype[bytes] = {};
};
static_assert(sizeof(MemoNames) == 64);

class CallMemo {
 public:
  // The remembered call, or nullptr. `serial` is the live recorder's; `func` and `dtype` must
  // read as they did when the call was remembered.
  const MemoCall* find(const CommRecorder* recorder, std::uint64_t serial, const char* func, const char* dtype, std::size_t count,
                       int root) const noexcept;
  // Replaces the oldest. A call whose names do not fit MemoNames is not remembered (each of its
  // calls is then parsed: still counted right).
  void remember(const MemoCall& call) noexcept;

 private:
  static constexpr std::size_t size = 8;  // distinct calls a loop cycles through before a miss
  std::array<MemoCall, size> calls_{};
  std::array<MemoNames, size> names_{};
  std::size_t next_ = 0;
};

}  // namespace cctune::tuner
