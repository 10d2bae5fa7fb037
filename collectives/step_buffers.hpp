#pragma once
// How a replayed step (PointSpec::sequence) is issued and where its calls' data lies: which
// calls go out together (a group), and each call's offsets into the two buffers. Header-only:
// the NCCL module, which links core alone, and the worker's buffer sizing (runtime) share it.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "collectives/backend.hpp"

namespace cctune {

// The end of the issue unit that starts at calls[first]: first + 1 for a call issued alone
// (group < 0), else past the consecutive calls of the same group. Any type with `group`.
template <class Call>
std::size_t issue_unit_end(const std::vector<Call>& calls, std::size_t first) {
  std::size_t end = first + 1;
  if (calls[first].group < 0) return end;
  while (end < calls.size() && calls[end].group == calls[first].group) ++end;
  return end;
}

// Each member's region starts at cudaMalloc's alignment, as a job's separate tensors would.
inline constexpr std::uint64_t kStepRegionAlignBytes = 256;

// Byte offsets of one call's data in the send and the receive buffer.
struct StepRegion {
  std::uint64_t send = 0;
  std::uint64_t recv = 0;
  bool operator==(const StepRegion&) const = default;
};

struct StepBuffers {
  std::vector<StepRegion> regions;  // one per call of the sequence
  std::uint64_t send_bytes = 0;     // what the whole step needs of each buffer
  std::uint64_t recv_bytes = 0;
};

// Calls issued alone run one after another on one stream and share offset 0 (their inputs
// and outputs are not checked). The members of one group run concurrently in one launch, so
// overlapping outputs would race: each gets its own region, one after another; the buffers
// are sized for the largest group's sum.
inline StepBuffers step_buffers(const std::vector<StepCall>& sequence) {
  const auto aligned = [](std::uint64_t b) { return (b + kStepRegionAlignBytes - 1) / kStepRegionAlignBytes * kStepRegionAlignBytes; };
  StepBuffers out;
  for (std::size_t i = 0; i < sequence.size();) {
    const std::size_t end = issue_unit_end(sequence, i);
    StepRegion next;
    for (; i < end; ++i) {
      const std::uint64_t w = dtype_size(sequence[i].dtype);
      const std::uint64_t send = sequence[i].bytes.send_count * w, recv = sequence[i].bytes.recv_count * w;
      out.regions.push_back(next);
      out.send_bytes = std::max(out.send_bytes, next.send + send);
      out.recv_bytes = std::max(out.recv_bytes, next.recv + recv);
      next.send += aligned(send), next.recv += aligned(recv);
    }
  }
  return out;
}

}  // namespace cctune
