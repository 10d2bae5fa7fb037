#pragma once
// Where each collective's input and output live in the NCCL backend's two device buffers
// (nccl-tests' layouts, in-place ones included), and which regions prepare() poisons and
// fills. GPU-free: byte offsets and element counts only, so it is tested without a GPU.
//
// In-place layouts, as nccl-tests: allgather and gather send from this rank's block of the
// receive buffer; reducescatter and scatter receive into this rank's block of the send buffer;
// allreduce, broadcast and reduce use one buffer. Grouped ncclSend/ncclRecv on one buffer
// (alltoall, sendrecv) would overwrite data before it is sent: not measured in-place (nccl-tests
// does not check those either).
#include <cstdint>
#include <string>

#include "collectives/backend.hpp"
#include "collectives/step_buffers.hpp"
#include "core/expected_layout.hpp"

namespace cctune::nccl_detail {

enum class Buffer { Send, Recv };

// `count` elements starting `offset_bytes` into one of the two buffers.
struct Span {
  Buffer buffer = Buffer::Send;
  std::uint64_t offset_bytes = 0;
  std::uint64_t count = 0;
};

struct NcclLayout {
  Span send;      // the call's send pointer (count: elements it reads)
  Span recv;      // the call's receive pointer (count: elements it writes)
  Span poison;    // filled with a value outside the pattern before the input (0 elements: none)
  Span input;     // then filled with pattern_value(rank, i), i < count (0 elements: no input)
  Span output;    // what the data check reads, element i expected per `expected`
  ExpectedLayout expected;
};

// Empty when the NCCL backend measures this collective and placement; else why not.
std::string nccl_placement_unsupported(const PointSpec& spec);

NcclLayout nccl_layout(const PointSpec& spec, int rank, int nranks);

// `l` moved into one call's region of a replayed step (step_buffers.hpp): every span shifted
// by the region's offset in its own buffer.
NcclLayout in_region(NcclLayout l, const StepRegion& region);

}  // namespace cctune::nccl_detail
