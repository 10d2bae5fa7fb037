#include "collectives/nccl/nccl_layouts.hpp"

#include "core/collective_traits.hpp"

namespace cctune::nccl_detail {

std::string nccl_placement_unsupported(const PointSpec& spec) {
  if (!spec.in_place) return {};
  if (!traits(spec.collective).nccl_in_place)
    return "in-place " + to_string(spec.collective) +
           " is not measured: grouped ncclSend/ncclRecv on one buffer overwrite data before it is sent "
           "(nccl-tests does not check it either)";
  return {};
}

NcclLayout nccl_layout(const PointSpec& spec, int rank, int nranks) {
  const std::uint64_t w = dtype_size(spec.dtype);
  const std::uint64_t c = spec.bytes.param_count;
  const std::uint64_t n = static_cast<std::uint64_t>(nranks);
  const std::uint64_t my_block_bytes = static_cast<std::uint64_t>(rank) * c * w;
  const bool root = rank == spec.root;
  NcclLayout l;
  l.expected = ExpectedLayout{spec.collective, rank, nranks, spec.root, c};
  const std::uint64_t out_count = expected_count(l.expected);
  const bool ip = spec.in_place;
  switch (spec.collective) {
    case Collective::AllReduce:
    case Collective::Reduce:
    case Collective::Broadcast:
    case Collective::SendRecv:
      l.send = {ip ? Buffer::Recv : Buffer::Send, 0, c};
      l.recv = {Buffer::Recv, 0, c};
      break;
    case Collective::AllGather:
    case Collective::Gather:
      l.send = {ip ? Buffer::Recv : Buffer::Send, ip ? my_block_bytes : 0, c};
      l.recv = {Buffer::Recv, 0, c * n};
      break;
    case Collective::ReduceScatter:
    case Collective::Scatter:
      l.send = {Buffer::Send, 0, c * n};
      l.recv = {ip ? Buffer::Send : Buffer::Recv, ip ? my_block_bytes : 0, c};
      break;
    case Collective::AllToAll:
      l.send = {Buffer::Send, 0, c * n};
      l.recv = {Buffer::Recv, 0, c * n};
      break;
  }
  // Only the root's input matters for broadcast and scatter: the others get none, so a
  // result that came from the wrong rank cannot pass.
  const bool has_input = !((spec.collective == Collective::Broadcast || spec.collective == Collective::Scatter) && !root);
  l.input = l.send;
  if (!has_input) l.input.count = 0;
  // The checked output: the receive side; poisoned before the input is written, so that in
  // in-place layouts the input (part of the same memory) survives.
  l.output = l.recv;
  l.output.count = out_count;
  l.poison = l.output;
  return l;
}

NcclLayout in_region(NcclLayout l, const StepRegion& region) {
  for (Span* s : {&l.send, &l.recv, &l.poison, &l.input, &l.output})
    s->offset_bytes += s->buffer == Buffer::Send ? region.send : region.recv;
  return l;
}

}  // namespace cctune::nccl_detail
