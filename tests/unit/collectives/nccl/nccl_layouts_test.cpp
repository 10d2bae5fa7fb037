// The NCCL backend's buffer layouts and the expected values both backends check, without a GPU:
// every rank's two buffers are simulated on the host, poisoned and filled as prepare() does,
// the collective is applied with the semantics of its NCCL call (or nccl-tests' grouped
// send/receive composition), and every checked element must equal expected_source()'s value.
#include "collectives/nccl/nccl_layouts.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "core/data_pattern.hpp"

namespace cctune::nccl_detail {
namespace {

constexpr long kPoison = 1000;  // outside the pattern's [-8, 8]

struct Rank {
  std::vector<long> send, recv;
  std::vector<long>& buf(Buffer b) { return b == Buffer::Send ? send : recv; }
  long* at(const Span& s) { return buf(s.buffer).data() + s.offset_bytes / sizeof(std::int32_t); }
};

PointSpec spec_of(Collective c, bool in_place, int nranks, int root, std::uint64_t bytes = 96) {
  PointSpec s;
  s.collective = c;
  s.dtype = DType::Int32;
  s.in_place = in_place;
  s.root = root;
  s.bytes = collective_bytes(c, bytes, DType::Int32, nranks);
  return s;
}

// One operation on every rank's simulated buffers: inputs are read (snapshot) before any
// output is written, as NCCL guarantees for the layouts it supports.
void run(const PointSpec& spec, std::vector<Rank>& ranks) {
  const int n = static_cast<int>(ranks.size());
  const std::uint64_t c = spec.bytes.param_count;
  std::vector<std::vector<long>> in(n);
  std::vector<NcclLayout> l(n);
  for (int r = 0; r < n; ++r) {
    l[r] = nccl_layout(spec, r, n);
    in[r].assign(ranks[r].at(l[r].send), ranks[r].at(l[r].send) + l[r].send.count);
  }
  auto sum = [&](std::uint64_t i) {
    long s = 0;
    for (int r = 0; r < n; ++r) s += in[r][i];
    return s;
  };
  for (int r = 0; r < n; ++r) {
    long* out = ranks[r].at(l[r].recv);
    for (std::uint64_t i = 0; i < c; ++i) switch (spec.collective) {
        case Collective::AllReduce: out[i] = sum(i); break;
        case Collective::Reduce: if (r == spec.root) out[i] = sum(i); break;
        case Collective::ReduceScatter: out[i] = sum(r * c + i); break;
        case Collective::Broadcast: out[i] = in[spec.root][i]; break;
        case Collective::AllGather:
          for (int j = 0; j < n; ++j) out[j * c + i] = in[j][i];
          break;
        // nccl-tests' grouped ncclSend/ncclRecv: who receives which sender's block where.
        case Collective::AllToAll:
          for (int j = 0; j < n; ++j) out[j * c + i] = in[j][r * c + i];
          break;
        case Collective::SendRecv: out[i] = in[(r + n - 1) % n][i]; break;
        case Collective::Gather:
          if (r == spec.root)
            for (int j = 0; j < n; ++j) out[j * c + i] = in[j][i];
          break;
        case Collective::Scatter: out[i] = in[spec.root][r * c + i]; break;
      }
  }
}

// Wrong elements over all ranks after prepare() + one operation.
long wrong_after_one_operation(const PointSpec& spec, int n) {
  std::vector<Rank> ranks(n);
  for (int r = 0; r < n; ++r) {
    ranks[r].send.assign(spec.bytes.send_count, -77);
    ranks[r].recv.assign(spec.bytes.recv_count, -77);
    const NcclLayout l = nccl_layout(spec, r, n);
    std::fill_n(ranks[r].at(l.poison), l.poison.count, kPoison);
    for (std::uint64_t i = 0; i < l.input.count; ++i) ranks[r].at(l.input)[i] = pattern_value(r, i);
  }
  run(spec, ranks);
  long wrong = 0;
  for (int r = 0; r < n; ++r) {
    const NcclLayout l = nccl_layout(spec, r, n);
    EXPECT_EQ(l.output.count, expected_count(l.expected));
    for (std::uint64_t i = 0; i < l.output.count; ++i) {
      const ExpectedSource src = expected_source(l.expected, i);
      const long want = src.rank == kReducedOverRanks ? pattern_sum(n, src.index) : pattern_value(src.rank, src.index);
      if (ranks[r].at(l.output)[i] != want) ++wrong;
    }
  }
  return wrong;
}

TEST(NcclLayouts, EveryCollectiveAndPlacementChecksExactValues) {
  for (int n : {2, 3, 4})
    for (Collective c : all_collectives())
      for (bool ip : {false, true})
        for (int root = 0; root < (is_rooted(c) ? n : 1); ++root) {
          const PointSpec spec = spec_of(c, ip, n, root);
          if (!nccl_placement_unsupported(spec).empty()) continue;
          EXPECT_EQ(wrong_after_one_operation(spec, n), 0)
              << to_string(c) << (ip ? " in-place" : " out-of-place") << " root " << root << " n " << n;
        }
}

TEST(NcclLayouts, CheckedOutputsAreTheWholeResult) {
  // 4 ranks, 96 B of int32: 24 elements; split collectives move 6 per rank.
  EXPECT_EQ(nccl_layout(spec_of(Collective::AllToAll, false, 4, 0), 1, 4).output.count, 24u);
  EXPECT_EQ(nccl_layout(spec_of(Collective::Gather, false, 4, 2), 2, 4).output.count, 24u);
  EXPECT_EQ(nccl_layout(spec_of(Collective::Gather, false, 4, 2), 1, 4).output.count, 0u);  // not the root
  EXPECT_EQ(nccl_layout(spec_of(Collective::Reduce, true, 4, 3), 0, 4).output.count, 0u);
  EXPECT_EQ(nccl_layout(spec_of(Collective::Reduce, true, 4, 3), 3, 4).output.count, 24u);
  EXPECT_EQ(nccl_layout(spec_of(Collective::Scatter, false, 4, 1), 3, 4).output.count, 6u);
  // Only the root has input for broadcast and scatter, so data from another rank cannot pass.
  EXPECT_EQ(nccl_layout(spec_of(Collective::Broadcast, false, 4, 1), 0, 4).input.count, 0u);
  EXPECT_EQ(nccl_layout(spec_of(Collective::Scatter, true, 4, 1), 1, 4).input.count, 24u);
  // nccl-tests' in-place offsets: gather sends from its block of the receive buffer, scatter
  // receives into its block of the send buffer.
  const NcclLayout g = nccl_layout(spec_of(Collective::Gather, true, 4, 0), 3, 4);
  EXPECT_EQ(g.send.buffer, Buffer::Recv);
  EXPECT_EQ(g.send.offset_bytes, 3u * 6u * 4u);
  const NcclLayout s = nccl_layout(spec_of(Collective::Scatter, true, 4, 0), 2, 4);
  EXPECT_EQ(s.recv.buffer, Buffer::Send);
  EXPECT_EQ(s.recv.offset_bytes, 2u * 6u * 4u);
}

TEST(NcclLayouts, WrongSourcesAreCaught) {
  // The simulated check is not vacuous: a broadcast from the wrong root, or a sendrecv ring
  // turned the other way, leaves wrong elements.
  PointSpec b = spec_of(Collective::Broadcast, false, 3, 1);
  const ExpectedLayout want{Collective::Broadcast, 0, 3, 2, b.bytes.param_count};  // root 2, not 1
  std::uint64_t differ = 0;
  for (std::uint64_t i = 0; i < b.bytes.param_count; ++i)
    differ += pattern_value(expected_source(want, i).rank, i) != pattern_value(1, i);
  EXPECT_GT(differ, 0u);
  const ExpectedLayout ring{Collective::SendRecv, 0, 4, 0, 8};
  EXPECT_EQ(expected_source(ring, 5).rank, 3);  // rank 0 receives from rank 3
  EXPECT_EQ(expected_source(ExpectedLayout{Collective::AllToAll, 2, 4, 0, 8}, 9).index, 2u * 8u + 1u);
}

TEST(NcclLayouts, InPlacePointToPointIsRefusedWithAReason) {
  EXPECT_NE(nccl_placement_unsupported(spec_of(Collective::AllToAll, true, 4, 0)).find("in-place alltoall"), std::string::npos);
  EXPECT_NE(nccl_placement_unsupported(spec_of(Collective::SendRecv, true, 4, 0)).find("in-place sendrecv"), std::string::npos);
  EXPECT_EQ(nccl_placement_unsupported(spec_of(Collective::AllToAll, false, 4, 0)), "");
  EXPECT_EQ(nccl_placement_unsupported(spec_of(Collective::Gather, true, 4, 0)), "");
  EXPECT_EQ(nccl_placement_unsupported(spec_of(Collective::Broadcast, true, 4, 0)), "");
}

// Members of one replayed group run concurrently: on every rank, none may write where another
// reads or writes, and all stay inside the buffers step_buffers sized.
TEST(NcclLayouts, AGroupsMembersNeitherOverlapNorLeaveTheBuffers) {
  PointSpec step;
  const Collective group[] = {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter, Collective::Broadcast,
                              Collective::AllToAll, Collective::AllGather};
  for (std::size_t k = 0; k < std::size(group); ++k) {
    StepCall c;
    c.collective = group[k];
    c.dtype = DType::Int32;
    c.bytes = collective_bytes(group[k], 96 * (k + 1), DType::Int32, 4);
    c.group = 0;
    step.sequence.push_back(c);
  }
  const StepBuffers b = step_buffers(step.sequence);
  struct Bytes {
    Buffer buffer;
    std::uint64_t begin, end;
    bool overlaps(const Bytes& o) const { return buffer == o.buffer && begin < o.end && o.begin < end; }
  };
  const auto bytes = [](const Span& s) { return Bytes{s.buffer, s.offset_bytes, s.offset_bytes + s.count * sizeof(std::int32_t)}; };
  for (int rank = 0; rank < 4; ++rank) {
    std::vector<Bytes> reads, writes;
    for (std::size_t k = 0; k < step.sequence.size(); ++k) {
      const NcclLayout l = in_region(nccl_layout(call_point(step, step.sequence[k]), rank, 4), b.regions[k]);
      reads.push_back(bytes(l.send));
      writes.push_back(bytes(l.recv));
      EXPECT_LE(reads.back().end, b.send_bytes);
      EXPECT_LE(writes.back().end, b.recv_bytes);
    }
    for (std::size_t j = 0; j < writes.size(); ++j)
      for (std::size_t k = 0; k < writes.size(); ++k) {
        if (j == k) continue;
        EXPECT_FALSE(writes[j].overlaps(writes[k]) || writes[j].overlaps(reads[k])) << "rank " << rank << " calls " << j << ", " << k;
      }
  }
}

}  // namespace
}  // namespace cctune::nccl_detail
